/* SPDX-License-Identifier: MIT */
#include "measure/sparse.h"
#include "common/clock_ns.h"

#include "arch/counter_funcs.h" /* KEEP */
#include "common/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

bool sparse_method_supported(const struct method *m)
{
    return m->available && m->read != NULL;
}

uint32_t sparse_warmup_rounds(const struct method *m, uint64_t gap_ns, uint64_t idle_ns)
{
    if (!m || !m->settle_ns || (idle_ns && idle_ns < m->settle_idle_ns))
        return SPARSE_WARMUP_ROUNDS;
    uint64_t n = gap_ns ? m->settle_ns / gap_ns + (m->settle_ns % gap_ns != 0)
                        : SPARSE_WARMUP_ROUNDS;
    return n < SPARSE_WARMUP_ROUNDS ? SPARSE_WARMUP_ROUNDS
                                    : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Involuntary context switches of this thread so far (outside every timed region). */
static long preemptions(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
        ;
}

/* One bracketed read of slot s (0: nothing between the timer reads).  The bracket reads
 * are calls into another translation unit, so the compiler cannot move the method's call
 * across them; the ordered counter read keeps the CPU from closing the bracket before the
 * call's loads are done. */
static uint64_t timed_read(const struct bracket *b, const struct method *m)
{
    uint64_t t0 = read_bracket_read(b);
    if (m) {
        uint64_t v = m->read(m->ctx);
        KEEP(v);
    }
    uint64_t t1 = read_bracket_read(b);
    return t1 - t0;
}

/* out, emptied, with room for nm methods and the bracket, reads each. */
static bool sparse_gap_alloc(const struct method *const *ms, size_t nm, uint64_t gap_ns,
                             uint32_t reads, struct sparse_gap *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    size_t nslots = nm + 1;
    out->gap_ns = gap_ns;
    out->reads_wanted = reads;
    out->warmup_rounds = SPARSE_WARMUP_ROUNDS;
    out->nmethods = nm;
    out->methods = calloc(nm ? nm : 1, sizeof *out->methods);
    out->raw_cold = calloc(nslots * reads, sizeof *out->raw_cold);
    out->raw_hot = calloc(nslots * reads, sizeof *out->raw_hot);
    out->kept = calloc(nslots, sizeof *out->kept);
    if (!out->methods || !out->raw_cold || !out->raw_hot || !out->kept) {
        snprintf(why, whylen, "out of memory for %zu x %u reads", nslots, reads);
        sparse_gap_free(out);
        return false;
    }
    for (size_t i = 0; i < nm; i++)
        out->methods[i].m = ms[i];
    return true;
}

static size_t kept_in_all(const struct sparse_gap *out, size_t nslots)
{
    size_t kept = 0;
    for (size_t k = 0; k < nslots; k++)
        kept += out->kept[k];
    return kept;
}

bool sparse_measure_gap(const struct method *const *ms, size_t nm, const struct bracket *b,
                        uint64_t gap_ns, uint32_t reads, struct sparse_gap *out, char *why,
                        size_t whylen, void (*tick)(void *ctx, size_t kept, size_t wanted),
                        void *tick_ctx)
{
    if (!sparse_gap_alloc(ms, nm, gap_ns, reads, out, why, whylen))
        return false;
    size_t nslots = nm + 1;

    uint64_t start = clock_ns_read(CLOCK_MONOTONIC);
    /* A machine so busy that most rounds are preempted: stop after this many attempts
     * and report what was kept. */
    size_t max_attempts = nslots * ((size_t)reads * 4 + 20), attempts = 0, full = 0;
    /* Blocks of one slot's reads, the slots taking turns block by block: inside a block,
     * nothing but this method reads the time, and its reads are one gap apart, as in a
     * program that reads every `gap`: its cold read is warmed by no other method (libc's
     * and the vDSO's share code and data), and a library that keeps state between reads
     * (fastclock's line, its ticker's idle timer) sees the gap the row names, not the
     * whole turn.  A block's first reads follow the other slots' blocks: warm-up. */
    for (size_t s = 0; full < nslots && attempts < max_attempts; s = (s + 1) % nslots) {
        if (out->kept[s] == reads)
            continue;
        const struct method *m = s ? ms[s - 1] : NULL;
        size_t want = reads - out->kept[s] < SPARSE_BLOCK_READS ? reads - out->kept[s]
                                                                : SPARSE_BLOCK_READS;
        /* The bracket (slot 0) keeps no state.  For a method, the sleep before the block's
         * first read is one more gap of idling. */
        struct sparse_method *sm = s ? &out->methods[s - 1] : NULL;
        uint64_t idle = sm && sm->last_read_ns
                      ? clock_ns_read(CLOCK_MONOTONIC) + gap_ns - sm->last_read_ns : 0;
        uint32_t warm = 0, warm_wanted = sparse_warmup_rounds(m, gap_ns, idle);
        if (sm && warm_wanted > SPARSE_WARMUP_ROUNDS)
            sm->settled_blocks++;
        for (size_t got = 0; got < want && attempts < max_attempts;) {
            sleep_ns(gap_ns);
            long before = preemptions();
            uint64_t cold = timed_read(b, m);
            uint64_t hot = timed_read(b, m);
            if (sm)
                sm->last_read_ns = clock_ns_read(CLOCK_MONOTONIC);
            bool warmup = warm < warm_wanted;
            attempts += !warmup;
            if (preemptions() != before) {
                out->rounds_preempted += !warmup;
                continue; /* retaken: the next read is one gap later, as this one was */
            }
            if (warmup) {
                warm++;
                if (sm)
                    sm->warmup_rounds++;
                continue;
            }
            out->raw_cold[s * reads + out->kept[s]] = cold;
            out->raw_hot[s * reads + out->kept[s]] = hot;
            out->kept[s]++;
            got++;
        }
        full += out->kept[s] == reads;
        if (tick)
            tick(tick_ctx, kept_in_all(out, nslots), nslots * reads);
    }
    out->rounds_kept = reads;
    for (size_t s = 0; s < nslots; s++)
        if (out->kept[s] < out->rounds_kept)
            out->rounds_kept = out->kept[s];
    out->elapsed_ns = (double)(clock_ns_read(CLOCK_MONOTONIC) - start);
    return true;
}

/* Converts n raw tick counts to ns less `subtract` (clamped at 0) and summarizes them. */
static void dist_of(const uint64_t *raw, size_t n, double ns_per_tick, double subtract,
                    double *scratch, struct sparse_dist *d)
{
    for (size_t i = 0; i < n; i++) {
        double v = (double)raw[i] * ns_per_tick - subtract;
        scratch[i] = v > 0 ? v : 0;
    }
    struct summary s;
    stats_summarize(scratch, n, &s); /* sorts scratch */
    d->n = n;
    d->min = s.min;
    d->p50 = s.median;
    d->p99 = s.p99;
    d->p999 = stats_quantile_sorted(scratch, n, 0.999);
    d->max = s.max;
    d->mean = s.mean;
}

void sparse_gap_summarize(struct sparse_gap *g, double ns_per_tick)
{
    size_t reads = g->reads_wanted;
    double none;
    double *allocated = malloc(sizeof(double) * (reads ? reads : 1));
    double *scratch = allocated ? allocated : &none;
    /* no memory: every figure NaN, "not measured" rather than a wrong number */
    size_t n0 = allocated && g->kept ? g->kept[0] : 0;
    dist_of(g->raw_cold, n0, ns_per_tick, 0, scratch, &g->bracket_cold);
    dist_of(g->raw_hot, n0, ns_per_tick, 0, scratch, &g->bracket_hot);
    for (size_t i = 0; i < g->nmethods; i++) {
        size_t s = i + 1, n = allocated && g->kept ? g->kept[s] : 0;
        dist_of(g->raw_cold + s * reads, n, ns_per_tick, g->bracket_cold.p50, scratch,
                &g->methods[i].cold);
        dist_of(g->raw_hot + s * reads, n, ns_per_tick, g->bracket_hot.p50, scratch,
                &g->methods[i].hot);
    }
    free(allocated);
}

void sparse_gap_free(struct sparse_gap *g)
{
    free(g->methods);
    free(g->raw_cold);
    free(g->raw_hot);
    free(g->kept);
    g->kept = NULL;
    g->methods = NULL;
    g->raw_cold = g->raw_hot = NULL;
}
