/* SPDX-License-Identifier: MIT */
/* The kernel's clock ids by name, as used in method ids and on the command line. */
#ifndef CLOCKSCOPE_CLOCKS_H
#define CLOCKSCOPE_CLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct clock_info {
    const char *name;        /* "monotonic" */
    const char *macro;       /* "CLOCK_MONOTONIC" */
    clockid_t id;
    bool cputime;            /* per-process/thread CPU clocks: never served by the vDSO */
};

size_t clocks_all(const struct clock_info **out);
const struct clock_info *clock_by_name(const char *name);
const struct clock_info *clock_by_id(clockid_t id);
/* Whether the running kernel knows the clock (clock_getres succeeds). */
bool clock_supported(clockid_t id);

#endif
