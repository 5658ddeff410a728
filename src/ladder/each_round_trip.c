/* SPDX-License-Identifier: MIT */
/* Round trips timed one by one after a warm-up (each_round_trip.h). */
#include "ladder/each_round_trip.h"

#include "common/clock_ns.h"
#include "common/stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TIMER CLOCK_MONOTONIC_RAW /* the engine's timer (measure/engine.h) */
#define TIMER_PAIRS 256           /* back-to-back read pairs that give the timer's cost */

void each_config_init(struct each_config *c, bool quick)
{
    static const struct each_config full = {.warmup_ns = 50e6, .count = 1000, .min_count = 200,
                                            .budget_ns = 100e6, .noisy_shift = 0.10};
    static const struct each_config fewer = {.warmup_ns = 50e6, .count = 500, .min_count = 100,
                                             .budget_ns = 20e6, .noisy_shift = 0.10};
    *c = quick ? fewer : full;
}

double each_expected_s(const struct each_config *c, double round_trip_ns)
{
    double all = c->count * round_trip_ns;
    double least = fmax(c->budget_ns, c->min_count * round_trip_ns);
    double timing = fmin(all, fmin(least, EACH_BUDGETS_AT_MOST * c->budget_ns));
    return (c->warmup_ns + timing) / 1e9;
}

/* What two reads of the timer with nothing between them take: the median of many pairs. */
static double timer_cost_ns(void)
{
    double d[TIMER_PAIRS];
    for (int i = 0; i < TIMER_PAIRS; i++) {
        uint64_t t0 = clock_ns_read(TIMER);
        d[i] = (double)(clock_ns_read(TIMER) - t0);
    }
    struct summary s;
    stats_summarize(d, TIMER_PAIRS, &s);
    return s.median;
}

static double median_of(const double *v, size_t n)
{
    double copy[MEASURE_KEEP_MAX];
    memcpy(copy, v, n * sizeof *v);
    struct summary s;
    stats_summarize(copy, n, &s);
    return s.median;
}

bool each_round_trip_time(void (*round_trip)(void *ctx), void *ctx, const struct each_config *c,
                          struct measurement *out)
{
    memset(out, 0, sizeof *out);
    out->timer = TIMER;
    uint64_t t_start = clock_ns_read(TIMER);
    while ((double)(clock_ns_read(TIMER) - t_start) < c->warmup_ns)
        round_trip(ctx);
    double cost = timer_cost_ns();
    int max = c->count < MEASURE_KEEP_MAX ? c->count : MEASURE_KEEP_MAX;
    uint64_t start = clock_ns_read(TIMER);
    size_t n = 0;
    while (n < (size_t)max) {
        uint64_t t0 = clock_ns_read(TIMER);
        round_trip(ctx);
        uint64_t t1 = clock_ns_read(TIMER);
        double v = (double)(t1 - t0) - cost;
        out->kept[n++] = v > 0 ? v : 0;
        double spent = (double)(t1 - start);
        if ((spent > c->budget_ns && n >= (size_t)c->min_count) ||
            spent > EACH_BUDGETS_AT_MOST * c->budget_ns)
            break;
    }
    out->nkept = out->samples = n;
    out->calls_per_sample = 1;
    out->loop_ns_per_call = cost;
    out->nthreads = 1;
    double first = median_of(out->kept, n / 2), second = median_of(out->kept + n / 2, n - n / 2);
    double sorted[MEASURE_KEEP_MAX];
    memcpy(sorted, out->kept, n * sizeof *sorted);
    stats_summarize(sorted, n, &out->ns_per_call);
    out->threads[0].ns_per_call = out->ns_per_call;
    out->calls_per_sec = out->ns_per_call.median > 0 ? 1e9 / out->ns_per_call.median : INFINITY;
    out->threads[0].calls_per_sec = out->calls_per_sec;
    out->noisy = n < (size_t)c->min_count ||
                 !(fabs(second - first) <= c->noisy_shift * out->ns_per_call.median);
    out->elapsed_ns = (double)(clock_ns_read(TIMER) - t_start);
    out->ok = n > 0;
    if (!out->ok)
        snprintf(out->error, sizeof out->error, "no round trip timed");
    return out->ok;
}
