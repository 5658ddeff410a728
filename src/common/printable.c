/* SPDX-License-Identifier: MIT */
#include "common/printable.h"

#include <string.h>

/* The printable form of the character at p: '?' for a control (a C1 control's two UTF-8
 * bytes included), else the byte itself.  *used is how many bytes of p it stands for. */
static char printable_byte(const unsigned char *p, size_t *used)
{
    *used = 1;
    if (*p < 0x20 || *p == 0x7f)
        return '?';
    if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
        *used = 2;
        return '?';
    }
    return (char)*p;
}

const char *printable_copy(char *out, size_t outlen, const char *in)
{
    if (outlen == 0)
        return out;
    size_t w = 0, used;
    for (const unsigned char *p = (const unsigned char *)in; *p && w + 1 < outlen; p += used)
        out[w++] = printable_byte(p, &used);
    out[w] = 0;
    return out;
}

static int plain_in_a_shell(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_@%+=:,./-", c));
}

/* The quoted word's bytes: a ' is written '\''. */
static size_t quoted_length(const unsigned char *in)
{
    size_t n = 2, used;
    for (const unsigned char *p = in; *p; p += used)
        n += printable_byte(p, &used) == '\'' ? 4 : 1;
    return n;
}

const char *printable_shell_word(char *out, size_t outlen, const char *in)
{
    const unsigned char *u = (const unsigned char *)in;
    if (outlen == 0)
        return out;
    out[0] = 0;
    int plain = *u != 0;
    for (const unsigned char *p = u; *p && plain; p++)
        plain = plain_in_a_shell(*p);
    size_t whole = plain ? strlen(in) : quoted_length(u);
    if (whole < outlen) {
        if (plain)
            return printable_copy(out, outlen, in);
    } else if (outlen < sizeof "'x'...") {
        return out; /* no room for a word and the mark that it was cut */
    }
    /* Quoted; cut short, it ends "'..." so nobody pastes it for the whole word. */
    size_t tail = whole < outlen ? 1 : 4, w = 0, used; /* ' or '... after the text */
    out[w++] = '\'';
    for (const unsigned char *p = u; *p; p += used) {
        char c = printable_byte(p, &used);
        const char *piece = c == '\'' ? "'\\''" : (char[2]){c, 0};
        size_t len = strlen(piece);
        if (w + len + tail + 1 > outlen)
            break;
        memcpy(out + w, piece, len);
        w += len;
    }
    out[w++] = '\'';
    if (whole >= outlen) {
        memcpy(out + w, "...", 3);
        w += 3;
    }
    out[w] = 0;
    return out;
}
