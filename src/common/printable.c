/* SPDX-License-Identifier: MIT */
#include "common/printable.h"

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
