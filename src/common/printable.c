/* SPDX-License-Identifier: MIT */
#include "common/printable.h"

#include <string.h>

const char *printable_copy(char *out, size_t outlen, const char *in)
{
    if (outlen == 0)
        return out;
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && w + 1 < outlen; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            out[w++] = '?';
        } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            out[w++] = '?'; /* a C1 control in UTF-8: both bytes go */
            p++;
        } else {
            out[w++] = (char)*p;
        }
    }
    out[w] = 0;
    return out;
}

static int plain_in_a_shell(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_@%+=:,./-", c));
}

const char *printable_shell_word(char *out, size_t outlen, const char *in)
{
    char safe[1024];
    printable_copy(safe, sizeof safe, in);
    size_t n = strlen(safe), plain = 0;
    while (plain < n && plain_in_a_shell((unsigned char)safe[plain]))
        plain++;
    if (outlen == 0)
        return out;
    if (n > 0 && plain == n) {
        printable_copy(out, outlen, safe);
        return out;
    }
    /* The closing quote is always written: room is kept for it. */
    size_t w = 0;
    if (outlen < 3) {
        out[0] = 0;
        return out;
    }
    out[w++] = '\'';
    for (size_t i = 0; i < n; i++) {
        const char *piece = safe[i] == '\'' ? "'\\''" : (char[2]){safe[i], 0};
        size_t len = strlen(piece);
        if (w + len + 2 > outlen)
            break;
        memcpy(out + w, piece, len);
        w += len;
    }
    out[w++] = '\'';
    out[w] = 0;
    return out;
}
