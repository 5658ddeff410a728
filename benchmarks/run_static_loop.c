/* SPDX-License-Identifier: MIT */
/* benchmarks/bench_run_static.py's static C program: the cost of clock_gettime(MONOTONIC)
 * through libc (the vDSO, patched or not), best of ROUNDS loops of N calls, timed by raw
 * syscalls around each loop (untouched by any patch).
 *   run_static_loop N ROUNDS   ->   "calls C ns_per_call X" */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t raw_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, rounds = argc > 2 ? atol(argv[2]) : 5;
    double best = 1e18;
    volatile uint64_t sink = 0;
    for (long r = 0; r < rounds; r++) {
        struct timespec ts;
        uint64_t a = raw_ns();
        for (long i = 0; i < n; i++) {
            clock_gettime(CLOCK_MONOTONIC, &ts);
            sink += (uint64_t)ts.tv_nsec;
        }
        uint64_t b = raw_ns();
        double per = (double)(b - a) / (double)n;
        if (per < best)
            best = per;
    }
    printf("calls %ld ns_per_call %.1f\n", n * rounds, best);
    return 0;
}
