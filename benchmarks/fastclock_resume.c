/* SPDX-License-Identifier: MIT */
/* What a read costs when a program comes back from an idle spell (issue 18): libfastclock's
 * automatic ticker parks after FASTCLOCK_TICKER_IDLE_NS without reads and, parked, looks
 * for reads every FASTCLOCK_TICKER_PARKED_POLL_NS; until it has seen them, the line is
 * stale and reads are answered by the kernel clock (plus fastclock's own code and line).
 * This program measures that transient, beside the vDSO's clock_gettime in the same
 * pattern:
 *
 *   cc -O2 -Isrc -Isrc/fastclock -o fastclock_resume benchmarks/fastclock_resume.c \
 *       build/libfastclock.a -lpthread
 *   ./fastclock_resume [GAP_MS [IDLE_S [SPELLS [SECONDS]]]]      (default 150 5 6 3)
 *
 * Pinned to one CPU, it repeats SPELLS times, for each method in turn: sleep IDLE_S (no
 * read of any clock), then read every GAP_MS for SECONDS, each read timed alone between
 * two ordered counter reads (the arch's own, src/arch/counter.h: no clock call, so neither
 * method's code is warmed by the bracket).  Prints, per read after the idle spell, the
 * median over the spells of each method's cost, and for fastclock how many of the spells
 * had its line stale right after that read (its seqlock word, libfastclock internal:
 * linkable from the static library only; the read that finds the line past its limit
 * marks it stale); then when, after the spell, fastclock's reads were all back on the
 * counter.  The counter rate comes from CLOCK_MONOTONIC_RAW over the run. */
#define _GNU_SOURCE
#include "arch/counter.h"
#include "fastclock/fastclock.h"
#include "fastclock/fc_state.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_READS 4096
#define MAX_SPELLS 64

static uint64_t raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
        ;
}

static uint64_t read_fastclock(void) { return fastclock_monotonic_ns(); }
static uint64_t read_vdso(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return v[n / 2];
}

static uint64_t ticks[2][MAX_SPELLS][MAX_READS];
static unsigned char stale[MAX_SPELLS][MAX_READS];

int main(int argc, char **argv)
{
    double gap_ms = argc > 1 ? atof(argv[1]) : 150;
    double idle_s = argc > 2 ? atof(argv[2]) : 5;
    int spells = argc > 3 ? atoi(argv[3]) : 6;
    double seconds = argc > 4 ? atof(argv[4]) : 3;
    int reads = (int)(seconds * 1000 / gap_ms);
    if (gap_ms <= 0 || idle_s < 0 || spells < 1 || spells > MAX_SPELLS || reads < 1 ||
        reads > MAX_READS) {
        fprintf(stderr, "usage: fastclock_resume [GAP_MS [IDLE_S [SPELLS [SECONDS]]]] "
                        "(1 to %d spells, 1 to %d reads a spell)\n", MAX_SPELLS, MAX_READS);
        return 2;
    }
    fastclock_monotonic_ns();
    sleep_ns(1000000000ull); /* the cross-CPU check passes, the line goes live */
    struct fastclock_info info;
    fastclock_info(&info);
    if (info.source != FASTCLOCK_SOURCE_COUNTER) {
        fprintf(stderr, "fastclock does not use the counter here (%s): nothing to measure\n",
                info.why);
        return 1;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    uint64_t gap = (uint64_t)(gap_ms * 1e6), idle = (uint64_t)(idle_s * 1e9);
    uint64_t (*const read[2])(void) = {read_fastclock, read_vdso};
    uint64_t r0 = raw_ns(), c0 = arch_counter_ordered();
    for (int s = 0; s < spells; s++)
        for (int m = 0; m < 2; m++) {
            sleep_ns(idle);
            for (int i = 0; i < reads; i++) {
                sleep_ns(gap);
                uint64_t t0 = arch_counter_ordered();
                volatile uint64_t v = read[m]();
                uint64_t t1 = arch_counter_ordered();
                (void)v;
                /* After the read: the first read past the line's limit marks it stale. */
                uint64_t seq = atomic_load_explicit(&fc_line.seq, memory_order_relaxed);
                ticks[m][s][i] = t1 - t0;
                if (m == 0)
                    stale[s][i] = (seq & FC_SEQ_STALE) != 0;
            }
        }
    double ns_per_tick = (double)(raw_ns() - r0) / (double)(arch_counter_ordered() - c0);
    printf("fastclock and the vDSO's clock_gettime(MONOTONIC), reads %g ms apart after %g s "
           "without any read, %d spells each;\nmedian ns per read over the spells (bracket "
           "included), and in how many spells fastclock's line was stale after that read\n",
           gap_ms, idle_s, spells);
    printf("%6s %9s %10s %10s %7s\n", "read", "after ms", "fastclock", "vDSO", "stale");
    int last_stale = -1;
    uint64_t col[MAX_SPELLS];
    for (int i = 0; i < reads; i++) {
        int n_stale = 0;
        for (int s = 0; s < spells; s++)
            n_stale += stale[s][i];
        if (n_stale)
            last_stale = i;
        uint64_t med[2];
        for (int m = 0; m < 2; m++) {
            for (int s = 0; s < spells; s++)
                col[s] = ticks[m][s][i];
            med[m] = median(col, spells);
        }
        printf("%6d %9.0f %10.0f %10.0f %4d/%d\n", i + 1, (i + 1) * gap_ms,
               (double)med[0] * ns_per_tick, (double)med[1] * ns_per_tick, n_stale, spells);
    }
    if (last_stale < 0)
        printf("fastclock's line was never stale after the idle spells\n");
    else
        printf("fastclock's line was stale up to read %d (%.0f ms after the idle spell) in "
               "some spell; every later read was on the counter\n", last_stale + 1,
               (last_stale + 1) * gap_ms);
    return 0;
}
