/* SPDX-License-Identifier: MIT */
#include "common/printable.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Whether p starts a control character (a C1 control's two UTF-8 bytes included). */
static size_t control_at(const unsigned char *p)
{
    if (*p < 0x20 || *p == 0x7f)
        return 1;
    return *p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f ? 2 : 0;
}

/* The printable form of the character at p: '?' for a control (a C1 control's two UTF-8
 * bytes included), else the byte itself.  *used is how many bytes of p it stands for. */
static char printable_byte(const unsigned char *p, size_t *used)
{
    size_t ctl = control_at(p);
    *used = ctl ? ctl : 1;
    return ctl ? '?' : (char)*p;
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

/* The character at p as written inside the quotes, into piece; returns how many bytes of p
 * it stands for.  In '...' a ' is written '\''; in $'...' (a word holding a control
 * character, so that it pastes back exact) controls are \n, \t, \r or \xHH escapes and '
 * and \ are escaped. */
static size_t word_piece(const unsigned char *p, bool ansi, char piece[16])
{
    size_t ctl = ansi ? control_at(p) : 0;
    if (ctl) {
        const char *named = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : NULL;
        if (named)
            snprintf(piece, 16, "%s", named);
        else if (ctl == 2)
            snprintf(piece, 16, "\\x%02x\\x%02x", p[0], p[1]);
        else
            snprintf(piece, 16, "\\x%02x", p[0]);
        return ctl;
    }
    if (*p == '\'')
        snprintf(piece, 16, "%s", ansi ? "\\'" : "'\\''");
    else if (ansi && *p == '\\')
        snprintf(piece, 16, "\\\\");
    else
        snprintf(piece, 16, "%c", (char)*p);
    return 1;
}

const char *printable_shell_word(char *out, size_t outlen, const char *in)
{
    const unsigned char *u = (const unsigned char *)in;
    if (outlen == 0)
        return out;
    out[0] = 0;
    bool plain = *u != 0, ansi = false;
    for (const unsigned char *p = u; *p; p++) {
        plain = plain && plain_in_a_shell(*p);
        ansi = ansi || control_at(p);
    }
    if (plain) {
        if (strlen(in) < outlen)
            return printable_copy(out, outlen, in);
    }
    const char *open = ansi ? "$'" : "'";
    char piece[16];
    size_t whole = strlen(open) + 1;
    for (const unsigned char *p = u; *p;) {
        size_t used = word_piece(p, ansi, piece);
        whole += strlen(piece);
        p += used;
    }
    if (whole >= outlen && outlen < strlen(open) + sizeof "x'...")
        return out; /* no room for a word and the mark that it was cut */
    /* Cut short, it ends "'..." so nobody pastes it for the whole word. */
    size_t tail = whole < outlen ? 1 : 4, w = strlen(open); /* ' or '... after the text */
    memcpy(out, open, w);
    for (const unsigned char *p = u; *p;) {
        size_t used = word_piece(p, ansi, piece), len = strlen(piece);
        if (w + len + tail + 1 > outlen)
            break;
        memcpy(out + w, piece, len);
        w += len;
        p += used;
    }
    out[w++] = '\'';
    if (whole >= outlen) {
        memcpy(out + w, "...", 3);
        w += 3;
    }
    out[w] = 0;
    return out;
}
