/* SPDX-License-Identifier: MIT */
#include "measure/clocks.h"

#include <string.h>

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

static const struct clock_info clocks[] = {
    {"realtime", "CLOCK_REALTIME", CLOCK_REALTIME, false},
    {"monotonic", "CLOCK_MONOTONIC", CLOCK_MONOTONIC, false},
    {"monotonic_raw", "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW, false},
    {"realtime_coarse", "CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE, false},
    {"monotonic_coarse", "CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE, false},
    {"boottime", "CLOCK_BOOTTIME", CLOCK_BOOTTIME, false},
    {"tai", "CLOCK_TAI", CLOCK_TAI, false},
    {"process_cputime_id", "CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID, true},
    {"thread_cputime_id", "CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID, true},
};

size_t clocks_all(const struct clock_info **out)
{
    *out = clocks;
    return sizeof clocks / sizeof clocks[0];
}

const struct clock_info *clock_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
        if (strcmp(clocks[i].name, name) == 0 || strcmp(clocks[i].macro, name) == 0)
            return &clocks[i];
    return NULL;
}

const struct clock_info *clock_by_id(clockid_t id)
{
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
        if (clocks[i].id == id)
            return &clocks[i];
    return NULL;
}

bool clock_supported(clockid_t id)
{
    struct timespec ts;
    return clock_getres(id, &ts) == 0;
}
