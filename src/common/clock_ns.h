/* SPDX-License-Identifier: MIT */
/* Time as one number: a timespec or timeval in nanoseconds, and a clock read now in ns,
 * seconds or milliseconds, for deadlines, elapsed times and read functions.  One spelling
 * of the conversion instead of one per file; static inline, so a read function pays
 * nothing for it.  Header-only: libfastclock and the shim may include it. */
#ifndef CLOCKSCOPE_COMMON_CLOCK_NS_H
#define CLOCKSCOPE_COMMON_CLOCK_NS_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#define CLOCK_NS_PER_S 1000000000u

static inline uint64_t clock_ns_of(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * CLOCK_NS_PER_S + (uint64_t)ts->tv_nsec;
}

static inline uint64_t clock_ns_of_timeval(const struct timeval *tv)
{
    return (uint64_t)tv->tv_sec * CLOCK_NS_PER_S + (uint64_t)tv->tv_usec * 1000u;
}

/* The clock id now, in ns (0 if it cannot be read: an id the kernel does not know). */
static inline uint64_t clock_ns_read(clockid_t id)
{
    struct timespec ts = {0, 0};
    clock_gettime(id, &ts);
    return clock_ns_of(&ts);
}

/* The clock id now, in seconds: for deadlines and elapsed times said to a person. */
static inline double clock_ns_seconds(clockid_t id)
{
    struct timespec ts = {0, 0};
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC now, in seconds: the commands' deadlines. */
static inline double clock_ns_monotonic_s(void)
{
    return clock_ns_seconds(CLOCK_MONOTONIC);
}

/* The clock id now, in milliseconds: for poll() deadlines. */
static inline long long clock_ns_ms(clockid_t id)
{
    struct timespec ts = {0, 0};
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
