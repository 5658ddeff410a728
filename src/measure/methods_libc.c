/* libc.*: the calls applications make.  glibc and musl route them to the vDSO where one
 * exists, so these are what a program really pays. */
#include "measure/batch.h"
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
    return timespec_ns(&ts);
}

static uint64_t gettimeofday_read(const void *ctx)
{
    (void)ctx;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static uint64_t time_read(const void *ctx)
{
    (void)ctx;
    return (uint64_t)time(NULL);
}

void methods_add_libc(struct method_list *list)
{
    methods_add_per_clock(list, "libc", "clock_gettime", "clock_gettime() through libc",
                          clock_gettime_batch, clock_gettime_read, NULL);
    struct method *m = method_add(list, "libc", "gettimeofday", NULL);
    if (m) {
        m->description = "gettimeofday() through libc";
        m->batch = gettimeofday_batch;
        m->read = gettimeofday_read;
        m->unit = UNIT_NS;
    }
    m = method_add(list, "libc", "time", NULL);
    if (m) {
        m->description = "time() through libc";
        m->batch = time_batch;
        m->read = time_read;
        m->unit = UNIT_SECONDS;
    }
    m = method_add(list, "libc", "clock_getres", "monotonic");
    if (m) {
        m->clock_id = CLOCK_MONOTONIC;
        m->description = "clock_getres(CLOCK_MONOTONIC) through libc";
        m->batch = clock_getres_batch;
    }
}
