/* SPDX-License-Identifier: MIT */
/* A program that spends a known, self-measured share of its CPU time reading the time, for
 * `clockscope profile`'s live acceptance test (tests/test_profile.py) and its overhead
 * benchmark (benchmarks/bench_profile.py).
 *
 *   timeshare vdso|syscall SECONDS [TARGET_PERCENT]
 *
 * Alternates two blocks until SECONDS of CPU time have passed: read_block() makes 1024 calls of
 * clock_gettime(CLOCK_MONOTONIC) (vdso: through libc and the vDSO; syscall: through
 * syscall(SYS_clock_gettime), always the kernel), work_block() computes.  Each block is
 * timed in CPU time, CLOCK_THREAD_CPUTIME_ID through the raw syscall: the profile samples
 * CPU time too (cpu-clock), while a wall clock would charge preemption by other work to
 * whichever block a syscall exit ends, which favours the short read block on a loaded
 * machine (measured: 34% read against 29% sampled at load 7, wall-clock brackets).  The
 * work block's size is calibrated at start so that reading takes about TARGET_PERCENT
 * (default 30) of the time.  The two bracket syscalls are about 1% of a read block.
 * Prints "key value" lines:
 *   share_percent X   CPU time inside read_block over the CPU time inside both blocks
 *   calls N           clock reads made by read_block
 *   ns_per_call X     read_block's time per call
 *   elapsed_s X       the whole run, in CPU time */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define READS_PER_BLOCK 1024

static int use_syscall;
static volatile uint64_t sink;

static int64_t cpu_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((noinline)) static void read_block(void)
{
    struct timespec ts;
    uint64_t acc = 0;
    for (int i = 0; i < READS_PER_BLOCK; i++) {
        if (use_syscall)
            syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        else
            clock_gettime(CLOCK_MONOTONIC, &ts);
        acc += (uint64_t)ts.tv_nsec;
    }
    sink += acc;
}

__attribute__((noinline)) static void work_block(long iterations)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < iterations; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink += x;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "vdso") != 0 && strcmp(argv[1], "syscall") != 0)) {
        fprintf(stderr, "usage: timeshare vdso|syscall SECONDS [TARGET_PERCENT]\n");
        return 2;
    }
    use_syscall = strcmp(argv[1], "syscall") == 0;
    double seconds = atof(argv[2]);
    double target = argc > 3 ? atof(argv[3]) : 30;
    if (!(seconds > 0 && seconds <= 600) || !(target > 0 && target < 100)) {
        fprintf(stderr, "timeshare: SECONDS in (0, 600], TARGET_PERCENT in (0, 100)\n");
        return 2;
    }
    /* Calibrate: the cost of one read block and of 1e5 work iterations (best of 20). */
    int64_t best_read = INT64_MAX, best_work = INT64_MAX;
    for (int k = 0; k < 20; k++) {
        int64_t a = cpu_ns();
        read_block();
        int64_t b = cpu_ns();
        work_block(100000);
        int64_t c = cpu_ns();
        best_read = b - a < best_read ? b - a : best_read;
        best_work = c - b < best_work ? c - b : best_work;
    }
    double work_wanted_ns = (double)best_read * (100 - target) / target;
    long iterations = (long)(work_wanted_ns / ((double)best_work / 100000.0));
    if (iterations < 1)
        iterations = 1;

    int64_t in_read = 0, in_work = 0, calls = 0;
    int64_t start = cpu_ns(), end = start + (int64_t)(seconds * 1e9), now = start;
    while (now < end) {
        int64_t a = now;
        read_block();
        int64_t b = cpu_ns();
        work_block(iterations);
        now = cpu_ns();
        in_read += b - a;
        in_work += now - b;
        calls += READS_PER_BLOCK;
    }
    printf("share_percent %.2f\n", 100.0 * (double)in_read / (double)(in_read + in_work));
    printf("calls %lld\n", (long long)calls);
    printf("ns_per_call %.1f\n", (double)in_read / (double)calls);
    printf("elapsed_s %.3f\n", (double)(now - start) / 1e9);
    return 0;
}
