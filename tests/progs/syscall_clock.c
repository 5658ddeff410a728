/* SPDX-License-Identifier: MIT */
/* LD_PRELOAD library for the doctor's proof test: clock_gettime and gettimeofday that
 * always enter the kernel (raw syscalls, never the vDSO), standing in for a C library on
 * a machine whose clocksource has no vDSO path.  The doctor's seccomp count must then see
 * every one of its 1000 calls of each (tests/test_doctor.py). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t clk, struct timespec *ts)
{
    return (int)syscall(SYS_clock_gettime, clk, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    return (int)syscall(SYS_gettimeofday, tv, tz);
}
