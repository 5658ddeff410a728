/* SPDX-License-Identifier: MIT */
/* One fresh process's view of libfastclock, for benchmarks/bench_fastclock.py:
 *   fastclock_accuracy first            ns the first fastclock_monotonic_ns() call took
 *   fastclock_accuracy rate SECONDS idle|busy
 *                                        rate error (ppm) against CLOCK_MONOTONIC over
 *                                        SECONDS from the first call; idle = no calls in
 *                                        between (sleep), busy = calls all the time
 *   fastclock_accuracy offset SECONDS   max and p99 |fastclock - CLOCK_MONOTONIC| (ns) over
 *                                        SECONDS of calls, from sandwiches narrower than 1 us
 * Every comparison is a sandwich kernel/fastclock/kernel; the kernel value is the midpoint. */
#include "fastclock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t kns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* fastclock minus kernel midpoint from the tightest of 20 sandwiches; *fc gets fastclock. */
static int64_t offset_now(int64_t *fc, int64_t *k)
{
    int64_t best_w = INT64_MAX, best = 0;
    for (int i = 0; i < 20; i++) {
        int64_t a = kns(), v = (int64_t)fastclock_monotonic_ns(), b = kns();
        if (b - a < best_w) {
            best_w = b - a;
            best = v - (a + (b - a) / 2);
            *fc = v;
            *k = a + (b - a) / 2;
        }
    }
    return best;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "first") == 0) {
        int64_t a = kns();
        fastclock_monotonic_ns();
        int64_t b = kns();
        printf("%lld\n", (long long)(b - a));
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "rate") == 0) {
        double secs = atof(argv[2]);
        int busy = strcmp(argv[3], "busy") == 0;
        int64_t f0, k0, f1, k1;
        offset_now(&f0, &k0);
        int64_t end = k0 + (int64_t)(secs * 1e9);
        if (busy)
            while (kns() < end)
                fastclock_monotonic_ns();
        else {
            struct timespec ts = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
            nanosleep(&ts, NULL);
        }
        offset_now(&f1, &k1);
        printf("%.4f\n", ((double)(f1 - f0) / (double)(k1 - k0) - 1) * 1e6);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "offset") == 0) {
        double secs = atof(argv[2]);
        size_t cap = 1 << 22, n = 0;
        int64_t *abs_off = malloc(cap * sizeof *abs_off);
        int64_t end = kns() + (int64_t)(secs * 1e9);
        long skipped = 0;
        for (;;) {
            int64_t a = kns(), v = (int64_t)fastclock_monotonic_ns(), b = kns();
            if (a > end)
                break;
            if (b - a > 1000) {
                skipped++;
                continue;
            }
            int64_t d = v - (a + (b - a) / 2);
            if (n < cap)
                abs_off[n++] = d < 0 ? -d : d;
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
        qsort(abs_off, n, sizeof *abs_off, cmp64);
        struct fastclock_info info;
        fastclock_info(&info);
        printf("samples %zu skipped %ld max %lld p99 %lld median %lld source %d refreshes %llu\n", n,
               skipped, (long long)(n ? abs_off[n - 1] : -1), (long long)(n ? abs_off[n * 99 / 100] : -1),
               (long long)(n ? abs_off[n / 2] : -1), info.source, (unsigned long long)info.refreshes);
        return 0;
    }
    fprintf(stderr, "usage: fastclock_accuracy first | rate SECONDS idle|busy | offset SECONDS\n");
    return 2;
}
