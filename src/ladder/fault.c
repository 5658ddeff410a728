/* SPDX-License-Identifier: MIT */
/* CLOCKSCOPE_LADDER_FAULT's parser and lookup (fault.h). */
#include "ladder/fault.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

bool ladder_faults_parse(const char *s, size_t len, struct ladder_faults *out, char *why,
                         size_t whylen)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && s[end] != ',')
            end++;
        const char *item = s + i;
        size_t n = end - i;
        enum ladder_fault_kind kind = FAULT_NONE;
        size_t skip = 0;
        if (n > 5 && memcmp(item, "hang:", 5) == 0)
            kind = FAULT_HANG, skip = 5;
        else if (n > 6 && memcmp(item, "crash:", 6) == 0)
            kind = FAULT_CRASH, skip = 6;
        if (kind == FAULT_NONE) {
            snprintf(why, whylen, "'%.*s' is not hang:GLOB or crash:GLOB", (int)(n > 80 ? 80 : n),
                     item);
            return false;
        }
        if (n - skip >= LADDER_FAULT_GLOB_MAX || memchr(item + skip, '\0', n - skip)) {
            snprintf(why, whylen, "a glob is longer than %d characters or holds a NUL",
                     LADDER_FAULT_GLOB_MAX - 1);
            return false;
        }
        if (out->count == LADDER_FAULTS_MAX) {
            snprintf(why, whylen, "more than %d faults", LADDER_FAULTS_MAX);
            return false;
        }
        out->kind[out->count] = kind;
        memcpy(out->glob[out->count], item + skip, n - skip);
        out->glob[out->count][n - skip] = '\0';
        out->count++;
        i = end + 1;
        if (end + 1 == len) {
            snprintf(why, whylen, "empty item after the last ','");
            return false;
        }
    }
    return true;
}

enum ladder_fault_kind ladder_fault_for(const struct ladder_faults *f, const char *id)
{
    for (int i = 0; i < f->count; i++)
        if (fnmatch(f->glob[i], id, 0) == 0)
            return f->kind[i];
    return FAULT_NONE;
}
