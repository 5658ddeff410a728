/* SPDX-License-Identifier: MIT */
/* syscall.*: the same calls through syscall(2): the price when the vDSO cannot serve. */
#include "measure/batch.h"
#include "common/clock_ns.h"
#include "measure/clocks.h"
#include "measure/method.h"

#include "arch/arch.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

CALL_BATCH(clock_gettime_batch, clockid_t id = ((const struct clock_info *)ctx)->id;
           struct timespec ts, syscall(SYS_clock_gettime, id, &ts))
CALL_BATCH(gettimeofday_batch, struct timeval tv, syscall(SYS_gettimeofday, &tv, NULL))
CALL_BATCH(time_batch, long nr = arch_syscall_time_nr(), KEEP(syscall(nr, NULL)))
CALL_BATCH(clock_getres_batch, struct timespec ts, syscall(SYS_clock_getres, CLOCK_MONOTONIC, &ts))

static uint64_t clock_gettime_read(const void *ctx)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, ((const struct clock_info *)ctx)->id, &ts);
    return clock_ns_of(&ts);
}

static uint64_t gettimeofday_read(const void *ctx)
{
    (void)ctx;
    struct timeval tv;
    syscall(SYS_gettimeofday, &tv, NULL);
    return clock_ns_of_timeval(&tv);
}

static uint64_t time_read(const void *ctx)
{
    (void)ctx;
    return (uint64_t)syscall(arch_syscall_time_nr(), NULL);
}

static const struct method_spec syscall_methods[] = {
    {"gettimeofday", NULL, 0, "gettimeofday syscall", gettimeofday_batch, gettimeofday_read,
     UNIT_NS},
    {"time", NULL, 0, "time syscall", time_batch, time_read, UNIT_SECONDS},
    {"clock_getres", "monotonic", CLOCK_MONOTONIC, "clock_getres syscall", clock_getres_batch,
     NULL, UNIT_NONE},
};

void methods_add_syscall(struct method_list *list)
{
    methods_add_per_clock(list, "syscall", "clock_gettime", "clock_gettime syscall",
                          clock_gettime_batch, clock_gettime_read, NULL);
    for (size_t i = 0; i < sizeof syscall_methods / sizeof syscall_methods[0]; i++) {
        struct method *m = method_add_spec(list, "syscall", &syscall_methods[i]);
        if (m && m->batch == time_batch && arch_syscall_time_nr() < 0)
            method_unavailable(m, "%s has no time syscall", arch_name());
    }
}
