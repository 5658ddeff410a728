/* SPDX-License-Identifier: MIT */
/* One integer from a /proc/sys file (kernel.perf_user_access, kernel.yama.ptrace_scope,
 * kernel.perf_event_paranoid): the kernel writes it as decimal text and a newline.
 * Header-only, so libfastclock's arch code may use it without linking common/. */
#ifndef CLOCKSCOPE_COMMON_SYSCTL_H
#define CLOCKSCOPE_COMMON_SYSCTL_H

#include <stdbool.h>
#include <stdio.h>

/* Whether path could be read as an integer; *value is left alone when not (the file is
 * absent where the feature is not built into the kernel). */
static inline bool sysctl_read_int(const char *path, int *value)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    int v;
    bool ok = fscanf(f, "%d", &v) == 1;
    fclose(f);
    if (ok)
        *value = v;
    return ok;
}

#endif
