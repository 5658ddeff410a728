/* SPDX-License-Identifier: MIT */
/* The measurement engine: what one call of a method costs, and how sure we are.
 *
 * Method (docs/METHODOLOGY.md says it at length):
 *  - warm up, then choose the calls per sample so that a sample lasts at least
 *    `sample_target_ns`: the two timer reads that bracket a sample are then negligible;
 *  - each sample times n calls of an unrolled batch; between samples, the same loop with
 *    an empty body is timed with the same n: its median (the loop's and the timer's own
 *    cost) is subtracted, and shown;
 *  - the timer is CLOCK_MONOTONIC_RAW read through libc (CLOCK_MONOTONIC when the method
 *    itself reads MONOTONIC_RAW), never the method being measured;
 *  - a sample during which the thread was preempted (its involuntary context switch count
 *    changed) measured another process too: it is discarded and retaken, and counted;
 *  - report median, p10, p90, p99, min, and spread = (p90 - p10) / median; a result whose
 *    spread exceeds `noisy_spread`, or with too few samples, is marked noisy. */
#ifndef CLOCKSCOPE_ENGINE_H
#define CLOCKSCOPE_ENGINE_H

#include "common/stats.h"
#include "measure/method.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define MEASURE_MAX_THREADS 256
#define MEASURE_KEEP_MAX 1024 /* per-call samples kept in a measurement (the first, pooled) */

struct measure_config {
    double sample_target_ns; /* each sample lasts at least this long */
    int samples;             /* samples wanted */
    int min_samples;         /* fewer than this and the result is noisy */
    double warmup_ns;        /* run before calibrating */
    double budget_ns;        /* stop taking samples after this long (per method) */
    double noisy_spread;     /* spread above this marks the result noisy */
    /* The method switches threads by design (ladder's round trips: the partner preempts the
     * caller on wake-up): a context switch is part of what is measured, not interference,
     * so preempted samples are kept (and still counted). */
    bool switches_expected;
    /* A reference (issue 29, measure/reference.h): timed after each sample, single-threaded
     * runs only, for a quarter of a sample, so that a change of the machine's speed shows
     * beside the figure and cancels in the ratio.  NULL: none (the default). */
    const struct method *reference;
};

struct thread_measurement {
    int cpu;
    struct summary ns_per_call;
    double calls_per_sec;
};

struct measurement {
    bool ok;
    char error[METHOD_WHY_MAX + 64];
    uint64_t calls_per_sample;
    size_t samples;
    size_t preempted_samples;     /* discarded and retaken: the thread was preempted */
    struct summary ns_per_call;   /* net of the loop's cost; all threads' samples pooled */
    double loop_ns_per_call;      /* what was subtracted */
    double calls_per_sec;         /* summed over threads, each at its median */
    bool noisy;
    clockid_t timer;
    double elapsed_ns;
    int nthreads;
    struct thread_measurement threads[MEASURE_MAX_THREADS];
    /* The per-call samples behind ns_per_call (net of the loop, all threads pooled, the
     * first MEASURE_KEEP_MAX): a worker process hands them to the parent, which pools
     * them over processes (measure/combine.c), and bench's JSON gives them, thinned, to the
     * report's bootstrap interval of a ratio of medians (docs/report.md). */
    size_t nkept;
    double kept[MEASURE_KEEP_MAX];
    /* With a reference (measure_config.reference): its median ns per call, and the median
     * over samples of (net per call / the reference's per call right after it). */
    bool has_ref;
    double ref_ns, relative;
};

void measure_config_default(struct measure_config *c);
void measure_config_quick(struct measure_config *c);
/* The seconds one measure_method with c takes on an idle machine, one thread: the warm-up,
 * the calibration (about a sample), then the samples (each the sample target, or the least
 * batch of 8 calls of a call that takes call_ns; a quarter more with a reference) up to
 * the budget but never fewer than min_samples.  call_ns 0: a call far below the target.
 * Progress lines and the help texts' durations are weighed with it. */
double measure_expected_s(const struct measure_config *c, double call_ns);
/* Measures m with one thread per CPU in cpus[0..nthreads).  With nthreads == 1 the
 * calling thread is used and must already be pinned to cpus[0]. */
bool measure_method(const struct method *m, const struct measure_config *c, const int *cpus,
                    int nthreads, struct measurement *out);
const char *timer_clock_name(clockid_t id);

#endif
