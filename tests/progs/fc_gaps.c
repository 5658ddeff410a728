/* SPDX-License-Identifier: MIT */
/* Per-read latency of fastclock_monotonic_ns() and of libc's clock_gettime(CLOCK_MONOTONIC)
 * (the vDSO), side by side in one run, for reads spaced by a gap (issue 18).  Each read is
 * timed on its own between two clock_gettime(CLOCK_MONOTONIC) calls (the same bracket for
 * both rows, its cost included); the order of the two reads alternates.  A read during
 * which the thread was switched out involuntarily (getrusage RUSAGE_THREAD, ru_nivcsw) is
 * discarded and counted: preemption is not the library's cost.
 *
 * Starts in a fresh process: the first fastclock call (initialisation) is made and timed
 * apart ("init"); everything after, including the first refreshes, is measured.
 *
 *   fc_gaps [GAP_US:READS ...]     default 0:20000 1000:1000 20000:200 150000:40
 * Prints per gap:
 *   gap US fastclock P50 P99 MAX N vdso P50 P99 MAX N discarded D     (ns)
 * and "init NS", "source N why". */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <fastclock.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long involuntary(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nivcsw;
}

static volatile uint64_t sink;

/* One timed read; returns UINT64_MAX when the thread was preempted meanwhile. */
static uint64_t timed(int fast)
{
    long before = involuntary();
    uint64_t a = now_ns();
    if (fast) {
        sink = fastclock_monotonic_ns();
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sink = (uint64_t)ts.tv_nsec;
    }
    uint64_t b = now_ns();
    return involuntary() == before ? b - a : UINT64_MAX;
}

static int cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static void summary(uint64_t *v, long n)
{
    if (n == 0) {
        printf(" - - - 0");
        return;
    }
    qsort(v, (size_t)n, sizeof v[0], cmp);
    printf(" %llu %llu %llu %ld", (unsigned long long)v[n / 2],
           (unsigned long long)v[(n * 99) / 100], (unsigned long long)v[n - 1], n);
}

static void pause_us(long us)
{
    if (us <= 0)
        return;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    static const char *defaults[] = {"0:20000", "1000:1000", "20000:200", "150000:40"};
    int ngaps = argc > 1 ? argc - 1 : 4;
    uint64_t a = now_ns();
    sink = fastclock_monotonic_ns();
    uint64_t b = now_ns();
    struct fastclock_info info;
    fastclock_info(&info);
    printf("init %llu\nsource %d %s\n", (unsigned long long)(b - a), info.source, info.why);
    for (int g = 0; g < ngaps; g++) {
        const char *spec = argc > 1 ? argv[g + 1] : defaults[g];
        long gap = -1, reads = -1;
        if (sscanf(spec, "%ld:%ld", &gap, &reads) != 2 || gap < 0 || gap > 10000000 ||
            reads < 1 || reads > 10000000) {
            fprintf(stderr, "fc_gaps: bad GAP_US:READS '%s'\n", spec);
            return 2;
        }
        uint64_t *fc = calloc((size_t)reads, sizeof *fc), *vd = calloc((size_t)reads, sizeof *vd);
        if (!fc || !vd)
            return 1;
        long nf = 0, nv = 0, discarded = 0;
        for (long i = 0; i < reads; i++) {
            pause_us(gap);
            for (int k = 0; k < 2; k++) {
                int fast = (int)((i + k) & 1);
                uint64_t t = timed(fast);
                if (t == UINT64_MAX)
                    discarded++;
                else if (fast)
                    fc[nf++] = t;
                else
                    vd[nv++] = t;
            }
        }
        printf("gap %ld fastclock", gap);
        summary(fc, nf);
        printf(" vdso");
        summary(vd, nv);
        printf(" discarded %ld\n", discarded);
        free(fc);
        free(vd);
    }
    fastclock_info(&info);
    printf("refreshes %llu\n", (unsigned long long)info.refreshes);
    return 0;
}
