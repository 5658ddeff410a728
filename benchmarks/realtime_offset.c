/* SPDX-License-Identifier: MIT */
/* How far a sandwich estimate of CLOCK_REALTIME - CLOCK_MONOTONIC strays from the exact
 * offset, on the kernel it runs on.  The exact offset: a REALTIME_COARSE read between two
 * equal MONOTONIC_COARSE reads (docs/fastclock.md, "Refresh").  The estimates, ROUNDS of
 * each, as fastclock's refresh could take them from fine reads (raw syscalls, as where the
 * vDSO falls back): the middle of the tightest of 3 sandwiches MONOTONIC/REALTIME/MONOTONIC,
 * and the middle of the intersection of 3 sandwiches' bounds [x - b, x - a].  Prints, for
 * each, its error against the exact offset (min, median, max, how many beyond 100 ns), and
 * the median sandwich width.  Usage: realtime_offset [ROUNDS]  (default 2000). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t kernel_ns(clockid_t id)
{
    struct timespec t;
    syscall(SYS_clock_gettime, id, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int exact_offset(int64_t *off)
{
    for (int i = 0; i < 100; i++) {
        int64_t a = kernel_ns(CLOCK_MONOTONIC_COARSE), x = kernel_ns(CLOCK_REALTIME_COARSE),
                b = kernel_ns(CLOCK_MONOTONIC_COARSE);
        if (a == b) {
            *off = x - a;
            return 1;
        }
    }
    return 0;
}

static int cmp(const void *p, const void *q)
{
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return a < b ? -1 : a > b;
}

static void report(const char *name, int64_t *err, int n)
{
    int far = 0;
    for (int i = 0; i < n; i++)
        far += err[i] > 100 || err[i] < -100;
    qsort(err, (size_t)n, sizeof *err, cmp);
    printf("%-34s error min %6lld  median %5lld  max %6lld ns; %d of %d beyond 100 ns\n", name,
           (long long)err[0], (long long)err[n / 2], (long long)err[n - 1], far, n);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    if (rounds < 1 || rounds > 1000000) {
        fprintf(stderr, "realtime_offset: ROUNDS is 1 to 1000000\n");
        return 2;
    }
    int64_t *tight = calloc((size_t)rounds, sizeof *tight), *inter = calloc((size_t)rounds, sizeof *inter),
            *width = calloc((size_t)rounds, sizeof *width), exact_before, exact_after;
    if (!tight || !inter || !width || !exact_offset(&exact_before)) {
        fprintf(stderr, "realtime_offset: no memory, or the COARSE clocks never held still\n");
        return 1;
    }
    for (int r = 0; r < rounds; r++) {
        int64_t best = 0, best_w = INT64_MAX, lo = INT64_MIN, hi = INT64_MAX;
        for (int i = 0; i < 3; i++) {
            int64_t a = kernel_ns(CLOCK_MONOTONIC), x = kernel_ns(CLOCK_REALTIME), b = kernel_ns(CLOCK_MONOTONIC);
            if (b - a < best_w)
                best_w = b - a, best = x - (a + (b - a) / 2);
            lo = x - b > lo ? x - b : lo;
            hi = x - a < hi ? x - a : hi;
        }
        tight[r] = best - exact_before, inter[r] = lo + (hi - lo) / 2 - exact_before, width[r] = best_w;
        if (r % 50 == 49)
            usleep(2000); /* spread over ticks, as refreshes are */
    }
    if (!exact_offset(&exact_after) || exact_after != exact_before) {
        fprintf(stderr, "realtime_offset: the time was set during the run: run it again\n");
        return 1;
    }
    qsort(width, (size_t)rounds, sizeof *width, cmp);
    printf("exact offset %lld ns; median sandwich width %lld ns\n", (long long)exact_before,
           (long long)width[rounds / 2]);
    report("tightest of 3, its middle", tight, rounds);
    report("intersection of 3, its middle", inter, rounds);
    return 0;
}
