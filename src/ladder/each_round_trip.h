/* SPDX-License-Identifier: MIT */
/* A round-trip rung's timing: each round trip timed alone, after a warm-up (docs/ladder.md,
 * "How a rung is measured").
 *
 * A pair of threads or processes that has just started is not in its steady state (on a
 * KVM guest the first milliseconds of a cross-CPU ping-pong are faster than what follows:
 * the host decides how a halted vCPU wakes), and a mean over a batch of round trips holds
 * every preemption that fell into it.  So the round trips run untimed for warmup_ns, then
 * each one is bracketed by two reads of the engine's timer (CLOCK_MONOTONIC_RAW through
 * the vDSO, tens of ns against µs), the timer's own cost (the median of back-to-back read
 * pairs, measured once) subtracted: what a program timing its own round trips sees. */
#ifndef CLOCKSCOPE_LADDER_EACH_ROUND_TRIP_H
#define CLOCKSCOPE_LADDER_EACH_ROUND_TRIP_H

#include "measure/engine.h"

#include <stdbool.h>

struct each_config {
    double warmup_ns;    /* round trips run untimed first */
    int count;           /* round trips timed per runner, at most (<= MEASURE_KEEP_MAX) */
    int min_count;       /* at least, past the budget ... */
    double budget_ns;    /* ... which ends the timing once min_count are timed */
    double noisy_shift;  /* the two halves' medians differ by more (a fraction): noisy */
};

/* Past this many budgets a runner stops with what it has, fewer than min_count: a rung
 * whose round trips wait for the scheduler's tick (two spinners on one CPU, milliseconds
 * each) cannot reach it within a runner's deadline. */
#define EACH_BUDGETS_AT_MOST 5

/* The default (quick false) or --quick's: docs/ladder.md says both. */
void each_config_init(struct each_config *c, bool quick);

/* The seconds one runner's timing takes with round trips of round_trip_ns each (warm-up
 * included). */
double each_expected_s(const struct each_config *c, double round_trip_ns);

/* Runs round_trip(ctx) for the warm-up, then times each one alone.  Fills out as the
 * engine would for one sample per round trip: samples = calls timed, calls_per_sample 1,
 * ns_per_call their summary, kept the first MEASURE_KEEP_MAX of them, loop_ns_per_call the
 * timer's cost subtracted, noisy when fewer than min_count or when the halves' medians
 * differ by more than noisy_shift. */
bool each_round_trip_time(void (*round_trip)(void *ctx), void *ctx, const struct each_config *c,
                          struct measurement *out);

#endif
