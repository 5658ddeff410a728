/* SPDX-License-Identifier: MIT */
/* A dynamically linked program for `clockscope run` inside a VM (tests/test_vm_fastclock.py,
 * docs/benchmarks/fastclock.md).  Times N libc clock_gettime(CLOCK_MONOTONIC) calls and N raw
 * syscall(SYS_clock_gettime) calls, each loop timed by the raw syscall on CLOCK_MONOTONIC_RAW
 * (which neither libc nor the shim serve), then checks the libc values against the kernel's.
 * Prints "key value" lines:
 *   libc_ns N          ns per libc clock_gettime(CLOCK_MONOTONIC) call (loop of N calls)
 *   syscall_ns N       ns per syscall(SYS_clock_gettime, CLOCK_MONOTONIC)
 *   loop_ns N          ns per iteration of the libc loop with a local non-inlined function
 *                      in place of clock_gettime (the loop's own cost, for subtraction)
 *   pair below above   max (kernel_before - value) and max (value - kernel_after) in ns over
 *                      2000 sandwiches syscall / libc call / syscall: both <= 0 when correct
 *   backwards N        backward steps between consecutive libc values
 * Usage: clockloop [N] [coarse]   (default 100000)
 * With `coarse` the sandwiches' kernel reads are CLOCK_MONOTONIC_COARSE: where the
 * program's CLOCK_MONOTONIC is answered from the tick (`run --mode coarse`), both halves of
 * the pair are <= 0 exactly, whatever the machine's speed, because the value and the two
 * kernel reads come from the one timekeeper the kernel updates each tick. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t sys_ns(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t libc_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The same work as libc_ns() but for the call into libc. */
static __attribute__((noinline)) int fake_gettime(clockid_t id, struct timespec *ts)
{
    __asm__ volatile("" : : "r"(id) : "memory");
    ts->tv_sec = 1;
    ts->tv_nsec = 2;
    return 0;
}

static int64_t fake_ns(void)
{
    struct timespec ts;
    fake_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int coarse = argc > 2 && strcmp(argv[2], "coarse") == 0;
    if (n < 1 || n > 100000000 || argc > 3 || (argc > 2 && !coarse)) {
        fprintf(stderr, "usage: clockloop [N] [coarse], N from 1 to 1e8\n");
        return 2;
    }
    clockid_t kernel_clock = coarse ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC;
    int64_t sink = 0, backwards = 0, prev = libc_ns();
    int64_t t0 = sys_ns(CLOCK_MONOTONIC_RAW);
    for (long i = 0; i < n; i++) {
        int64_t v = libc_ns();
        backwards += v < prev;
        prev = v;
    }
    int64_t t1 = sys_ns(CLOCK_MONOTONIC_RAW);
    for (long i = 0; i < n; i++)
        sink += sys_ns(CLOCK_MONOTONIC) & 1;
    int64_t t2 = sys_ns(CLOCK_MONOTONIC_RAW);
    int64_t fprev = fake_ns();
    for (long i = 0; i < n; i++) {
        int64_t v = fake_ns();
        sink += v < fprev;
        fprev = v;
    }
    int64_t t3 = sys_ns(CLOCK_MONOTONIC_RAW);
    printf("libc_ns %.1f\n", (double)(t1 - t0) / (double)n);
    printf("syscall_ns %.1f\n", (double)(t2 - t1) / (double)n);
    printf("loop_ns %.1f\n", (double)(t3 - t2) / (double)n);
    int64_t below = INT64_MIN, above = INT64_MIN;
    for (int i = 0; i < 2000; i++) {
        int64_t a = sys_ns(kernel_clock), v = libc_ns(), b = sys_ns(kernel_clock);
        below = a - v > below ? a - v : below;
        above = v - b > above ? v - b : above;
        backwards += v < prev;
        prev = v;
    }
    printf("pair %lld %lld\n", (long long)below, (long long)above);
    printf("backwards %lld\n", (long long)backwards);
    return sink < 0; /* keeps the syscall loop */
}
