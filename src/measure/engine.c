/* SPDX-License-Identifier: MIT */
#include "measure/engine.h"
#include "common/clock_ns.h"

#include "common/cpuset.h"
#include "measure/reference.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_SAMPLES 1024
#define MAX_CALLS_PER_SAMPLE (1ull << 32)

void measure_config_default(struct measure_config *c)
{
    c->sample_target_ns = 1e6;
    c->samples = 41;
    c->min_samples = 7;
    c->warmup_ns = 5e6;
    c->budget_ns = 150e6;
    c->noisy_spread = 0.10;
    c->switches_expected = false;
    c->reference = NULL;
}

void measure_config_quick(struct measure_config *c)
{
    c->sample_target_ns = 0.4e6;
    c->samples = 15;
    c->min_samples = 5;
    c->warmup_ns = 1e6;
    c->budget_ns = 25e6;
    c->noisy_spread = 0.10;
    c->switches_expected = false;
    c->reference = NULL;
}

const char *timer_clock_name(clockid_t id)
{
    return id == CLOCK_MONOTONIC_RAW ? "CLOCK_MONOTONIC_RAW" : "CLOCK_MONOTONIC";
}

/* The loop of a batch with nothing in it: what gets subtracted. */
static void empty_batch(uint64_t n, const void *ctx)
{
    (void)ctx;
    for (uint64_t i = 0; i < n; i += 8) {
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
        __asm__ volatile("" : : : "memory");
    }
}

static uint64_t time_batch(method_batch_fn fn, uint64_t n, const void *ctx, clockid_t timer)
{
    uint64_t t0 = clock_ns_read(timer);
    fn(n, ctx);
    return clock_ns_read(timer) - t0;
}

/* One thread's run: raw per-sample times for the method and for the empty loop. */
struct run {
    const struct method *m;
    const struct measure_config *c;
    clockid_t timer;
    uint64_t n;                      /* calls per sample, fixed before threads start */
    int cpu;
    bool pin;
    pthread_barrier_t *start;
    size_t samples;
    size_t preempted;                /* samples discarded: the thread was preempted */
    double method_ns[MAX_SAMPLES];
    double empty_ns[MAX_SAMPLES];
    uint64_t ref_n;                  /* the reference's calls per sample; 0: none */
    double ref_ns[MAX_SAMPLES];
    bool pin_failed;
};

/* Involuntary context switches of this thread so far: a sample during which it changed
 * measured another process too. */
static long preemptions(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

double measure_expected_s(const struct measure_config *c, double call_ns)
{
    double sample = fmax(c->sample_target_ns, 8 * call_ns); /* calibrate() starts at 8 */
    double per = sample * (c->reference ? 1.25 : 1.0);      /* the reference: a quarter */
    double n = c->samples;
    double by_budget = ceil(c->budget_ns / per);             /* take_samples' budget */
    if (by_budget < n)
        n = by_budget > c->min_samples ? by_budget : c->min_samples;
    return (c->warmup_ns + sample + n * per) / 1e9;
}

static void take_samples(struct run *r)
{
    const struct measure_config *c = r->c;
    size_t wanted = c->samples < MAX_SAMPLES ? (size_t)c->samples : MAX_SAMPLES;
    uint64_t start = clock_ns_read(r->timer);
    r->samples = 0;
    r->preempted = 0;
    while (r->samples < wanted) {
        size_t s = r->samples;
        long before = preemptions();
        r->empty_ns[s] = (double)time_batch(empty_batch, r->n, NULL, r->timer);
        r->method_ns[s] = (double)time_batch(r->m->batch, r->n, r->m->ctx, r->timer);
        if (r->ref_n) /* right after: in the same spell of the machine's speed */
            r->ref_ns[s] = (double)time_batch(c->reference->batch, r->ref_n,
                                              c->reference->ctx, r->timer);
        bool over_budget = (double)(clock_ns_read(r->timer) - start) > c->budget_ns;
        bool preempted = preemptions() != before;
        r->preempted += preempted;
        /* A preempted sample is retaken, unless the budget is spent with too few clean
         * samples: then it is kept, and the result says how many were preempted. */
        bool have_enough = r->samples >= (size_t)c->min_samples;
        if (!preempted || c->switches_expected || (over_budget && !have_enough))
            r->samples++;
        if (over_budget && r->samples >= (size_t)c->min_samples)
            break;
        if ((double)(clock_ns_read(r->timer) - start) > 4 * c->budget_ns && r->samples > 0)
            break; /* a machine this busy will not give clean samples: stop trying */
    }
}

/* Warm-up batches are about an eighth of a sample (so the warm-up ends close to its time
 * limit), rounded to the unroll of 8, at least 8. */
static uint64_t warmup_calls(uint64_t n)
{
    return n > 64 ? n / 64 * 8 + 8 : 8;
}

static void *thread_main(void *arg)
{
    struct run *r = arg;
    if (r->pin && !cpuset_pin(r->cpu))
        r->pin_failed = true;
    /* Warm this CPU's caches and branch predictors before the common start. */
    uint64_t until = clock_ns_read(r->timer) + (uint64_t)r->c->warmup_ns;
    while (clock_ns_read(r->timer) < until)
        r->m->batch(warmup_calls(r->n), r->m->ctx);
    pthread_barrier_wait(r->start);
    take_samples(r);
    return NULL;
}

/* Chooses calls per sample: doubles (or more) until one batch lasts sample_target_ns. */
static uint64_t calibrate(const struct method *m, const struct measure_config *c, clockid_t timer)
{
    uint64_t warm_until = clock_ns_read(timer) + (uint64_t)c->warmup_ns;
    uint64_t n = 8;
    for (;;) {
        uint64_t t = time_batch(m->batch, n, m->ctx, timer);
        bool warm = clock_ns_read(timer) >= warm_until;
        if (warm && (double)t >= c->sample_target_ns)
            return n;
        if ((double)t >= c->sample_target_ns)
            continue; /* long enough, but still warming up */
        double grow = t > 0 ? c->sample_target_ns / (double)t * 1.1 : 16;
        if (grow < 2)
            grow = 2;
        if (grow > 16)
            grow = 16;
        uint64_t next = (uint64_t)((double)n * grow);
        next = (next + 7) / 8 * 8;
        if (next >= MAX_CALLS_PER_SAMPLE)
            return n;
        n = next;
    }
}

static void summarize_run(const struct run *r, double empty_median, double n, double *net_out,
                          size_t *net_count, struct thread_measurement *tm)
{
    double per_call[MAX_SAMPLES];
    for (size_t s = 0; s < r->samples; s++) {
        double v = (r->method_ns[s] - empty_median) / n;
        per_call[s] = v > 0 ? v : 0;
        net_out[(*net_count)++] = per_call[s];
    }
    stats_summarize(per_call, r->samples, &tm->ns_per_call);
    tm->cpu = r->cpu;
    tm->calls_per_sec = tm->ns_per_call.median > 0 ? 1e9 / tm->ns_per_call.median : INFINITY;
}

/* Takes every run's samples: one run on this thread (with the reference's calls, when
 * there is one, measured beside it), several on threads of their own.  Returns false with
 * out->error when a thread could not be pinned to its CPU. */
static bool take_all_samples(struct run *runs, int nthreads, const struct method *m,
                             const struct measure_config *c, struct measurement *out)
{
    if (nthreads == 1) {
        if (c->reference && c->reference->available && c->reference->batch &&
            c->reference != m) {
            struct measure_config rc = *c;
            rc.sample_target_ns = c->sample_target_ns / 4;
            rc.warmup_ns = 0;
            runs[0].ref_n = calibrate(c->reference, &rc, out->timer);
        }
        take_samples(&runs[0]);
        return true;
    }
    pthread_t tids[MEASURE_MAX_THREADS];
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tids[started], NULL, thread_main, &runs[started]) != 0)
            break;
    if (started < nthreads) {
        /* The barrier would never open: this is fatal for the whole run. */
        fprintf(stderr, "clockscope: cannot start measuring thread %d\n", started);
        exit(1);
    }
    for (int t = 0; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    bool ok = true;
    for (int t = 0; t < nthreads; t++)
        if (runs[t].pin_failed) {
            snprintf(out->error, sizeof out->error, "cannot pin a thread to CPU %d", runs[t].cpu);
            ok = false;
        }
    return ok;
}

/* The reference's time per call and the method's ratio to it, from one run's samples
 * (loop_ns: the empty loop's time per call, taken off the method's). */
static void reference_figures(const struct run *r, double loop_ns, uint64_t n,
                              struct measurement *out)
{
    double ref[MAX_SAMPLES], sorted[MAX_SAMPLES], net[MAX_SAMPLES];
    size_t ns = r->samples;
    for (size_t i = 0; i < ns; i++) {
        ref[i] = sorted[i] = r->ref_ns[i] / (double)r->ref_n;
        net[i] = (r->method_ns[i] - loop_ns * (double)n) / (double)n;
    }
    struct summary rs;
    stats_summarize(sorted, ns, &rs);
    out->has_ref = true;
    out->ref_ns = rs.median;
    out->relative = reference_ratio(net, ref, ns);
}

/* Pools the runs' samples (n calls each) into out's figures.  Returns false when out of
 * memory. */
static bool pool_runs(const struct run *runs, int nthreads, uint64_t n,
                      const struct measure_config *c, struct measurement *out)
{
    double *pooled = malloc(sizeof(double) * MAX_SAMPLES * (size_t)nthreads);
    double *empty = malloc(sizeof(double) * MAX_SAMPLES);
    bool ok = pooled && empty;
    if (!ok)
        goto out;
    size_t pooled_n = 0;
    double loop_sum = 0;
    for (int t = 0; t < nthreads; t++) {
        memcpy(empty, runs[t].empty_ns, sizeof(double) * runs[t].samples);
        struct summary es;
        stats_summarize(empty, runs[t].samples, &es);
        loop_sum += es.median / (double)n;
        summarize_run(&runs[t], es.median, (double)n, pooled, &pooled_n, &out->threads[t]);
        out->calls_per_sec += out->threads[t].calls_per_sec;
        out->samples += runs[t].samples;
        out->preempted_samples += runs[t].preempted;
    }
    out->nkept = pooled_n < MEASURE_KEEP_MAX ? pooled_n : MEASURE_KEEP_MAX;
    memcpy(out->kept, pooled, out->nkept * sizeof *pooled);
    stats_summarize(pooled, pooled_n, &out->ns_per_call);
    out->loop_ns_per_call = loop_sum / nthreads;
    out->calls_per_sample = n;
    out->nthreads = nthreads;
    out->noisy = !(out->ns_per_call.spread <= c->noisy_spread) ||
                 runs[0].samples < (size_t)c->min_samples;
    for (int t = 0; t < nthreads; t++)
        out->noisy |= runs[t].samples < (size_t)c->min_samples;
    out->ok = true;
    if (runs[0].ref_n && nthreads == 1 && runs[0].samples > 0)
        reference_figures(&runs[0], loop_sum, n, out);
out:
    free(pooled);
    free(empty);
    return ok;
}

bool measure_method(const struct method *m, const struct measure_config *c, const int *cpus,
                    int nthreads, struct measurement *out)
{
    memset(out, 0, sizeof *out);
    if (!m->available || !m->batch) {
        snprintf(out->error, sizeof out->error, "%s", m->available ? "nothing to measure" : m->why);
        return false;
    }
    if (nthreads < 1 || nthreads > MEASURE_MAX_THREADS) {
        snprintf(out->error, sizeof out->error, "bad thread count %d", nthreads);
        return false;
    }
    out->timer = (m->clock && m->clock_id == CLOCK_MONOTONIC_RAW) ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_RAW;
    uint64_t t_start = clock_ns_read(out->timer);
    uint64_t n = calibrate(m, c, out->timer);

    struct run *runs = calloc((size_t)nthreads, sizeof *runs);
    if (!runs) {
        snprintf(out->error, sizeof out->error, "out of memory");
        return false;
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        runs[t] = (struct run){.m = m, .c = c, .timer = out->timer, .n = n, .cpu = cpus[t],
                               .pin = nthreads > 1, .start = &start};
    }
    bool ok = take_all_samples(runs, nthreads, m, c, out);
    pthread_barrier_destroy(&start);
    if (ok && !pool_runs(runs, nthreads, n, c, out))
        snprintf(out->error, sizeof out->error, "out of memory");
    out->elapsed_ns = (double)(clock_ns_read(out->timer) - t_start);
    free(runs);
    return out->ok;
}
