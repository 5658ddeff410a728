/* SPDX-License-Identifier: MIT */
/* libc.*: the calls applications make.  glibc and musl route them to the vDSO where one
 * exists, so these are what a program really pays. */
#include "measure/batch.h"
#include "common/clock_ns.h"
#include "measure/clocks.h"
#include "measure/method.h"

#include <sys/time.h>
#include <time.h>

CALL_BATCH(clock_gettime_batch, clockid_t id = ((const struct clock_info *)ctx)->id;
           struct timespec ts, clock_gettime(id, &ts))
CALL_BATCH(gettimeofday_batch, struct timeval tv, gettimeofday(&tv, NULL))
CALL_BATCH(time_batch, time_t t, t = time(NULL); KEEP(t))
CALL_BATCH(clock_getres_batch, struct timespec ts, clock_getres(CLOCK_MONOTONIC, &ts))

static uint64_t clock_gettime_read(const void *ctx)
{
    struct timespec ts;
    clock_gettime(((const struct clock_info *)ctx)->id, &ts);
    return clock_ns_of(&ts);
}

static uint64_t gettimeofday_read(const void *ctx)
{
    (void)ctx;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return clock_ns_of_timeval(&tv);
}

static uint64_t time_read(const void *ctx)
{
    (void)ctx;
    return (uint64_t)time(NULL);
}

static const struct method_spec libc_methods[] = {
    {"gettimeofday", NULL, 0, "gettimeofday() through libc", gettimeofday_batch,
     gettimeofday_read, UNIT_NS},
    {"time", NULL, 0, "time() through libc", time_batch, time_read, UNIT_SECONDS},
    {"clock_getres", "monotonic", CLOCK_MONOTONIC, "clock_getres(CLOCK_MONOTONIC) through libc",
     clock_getres_batch, NULL, UNIT_NONE},
};

void methods_add_libc(struct method_list *list)
{
    methods_add_per_clock(list, "libc", "clock_gettime", "clock_gettime() through libc",
                          clock_gettime_batch, clock_gettime_read, NULL);
    for (size_t i = 0; i < sizeof libc_methods / sizeof libc_methods[0]; i++)
        method_add_spec(list, "libc", &libc_methods[i]);
}
