/* SPDX-License-Identifier: MIT */
#include "measure/combine.h"
#include "measure/instability.h"

#include "common/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double median_of(double *v, size_t n)
{
    struct summary s;
    stats_summarize(v, n, &s);
    return s.median;
}

bool measure_combine(const struct measure_runs *runs, double noisy_spread,
                   struct measurement *out, struct across *across)
{
    memset(out, 0, sizeof *out);
    double med[ACROSS_MAX] = {0}, within[ACROSS_MAX] = {0}, loop[ACROSS_MAX] = {0},
           cps[ACROSS_MAX] = {0};
    size_t n = 0, pooled_n = 0;
    const struct measurement *first = NULL;
    for (int i = 0; i < runs->n && n < ACROSS_MAX; i++) {
        const struct measurement *m = &runs->proc[i];
        if (!m->ok) {
            snprintf(out->error, sizeof out->error, "%s", m->error);
            continue;
        }
        first = first ? first : m;
        med[n] = m->ns_per_call.median;
        within[n] = m->ns_per_call.spread;
        loop[n] = m->loop_ns_per_call;
        cps[n] = m->calls_per_sec;
        n++;
        pooled_n += m->nkept;
        out->samples += m->samples;
        out->preempted_samples += m->preempted_samples;
        out->elapsed_ns += m->elapsed_ns;
        out->noisy |= m->samples < 2; /* a process with no spread to speak of */
    }
    across_summarize(med, n, across);
    if (n == 0) {
        if (!out->error[0])
            snprintf(out->error, sizeof out->error, "no worker process measured it");
        return false;
    }
    /* The other quantiles: every process's samples pooled. */
    double *pooled = malloc((pooled_n ? pooled_n : 1) * sizeof *pooled);
    if (!pooled) {
        snprintf(out->error, sizeof out->error, "out of memory");
        return false;
    }
    size_t k = 0;
    for (int i = 0; i < runs->n; i++)
        for (size_t j = 0; runs->proc[i].ok && j < runs->proc[i].nkept; j++)
            pooled[k++] = runs->proc[i].kept[j];
    stats_summarize(pooled, k, &out->ns_per_call);
    out->nkept = k < MEASURE_KEEP_MAX ? k : MEASURE_KEEP_MAX;
    memcpy(out->kept, pooled, out->nkept * sizeof *pooled);
    free(pooled);
    out->ns_per_call.median = across->median;
    double within_median = median_of(within, n);
    double spread = across->spread;
    if (!(spread >= within_median))
        spread = within_median;
    out->ns_per_call.spread = spread;
    out->loop_ns_per_call = median_of(loop, n);
    out->calls_per_sec = median_of(cps, n);
    out->calls_per_sample = first->calls_per_sample;
    for (int i = 0; i < runs->n; i++) /* the claim of work stays a lower bound */
        if (runs->proc[i].ok && runs->proc[i].calls_per_sample < out->calls_per_sample)
            out->calls_per_sample = runs->proc[i].calls_per_sample;
    out->timer = first->timer;
    out->nthreads = first->nthreads;
    for (int t = 0; t < out->nthreads; t++) {
        double tm[ACROSS_MAX], tc[ACROSS_MAX];
        size_t tn = 0;
        for (int i = 0; i < runs->n && tn < ACROSS_MAX; i++)
            if (runs->proc[i].ok && runs->proc[i].nthreads > t) {
                tm[tn] = runs->proc[i].threads[t].ns_per_call.median;
                tc[tn++] = runs->proc[i].threads[t].calls_per_sec;
            }
        out->threads[t].cpu = first->threads[t].cpu;
        out->threads[t].ns_per_call.median = median_of(tm, tn);
        out->threads[t].calls_per_sec = median_of(tc, tn);
    }
    if (out->nthreads > 1) { /* summed over threads, each at its median (as in one process) */
        out->calls_per_sec = 0;
        for (int t = 0; t < out->nthreads; t++)
            out->calls_per_sec += out->threads[t].calls_per_sec;
    }
    out->noisy |= !(spread <= noisy_spread);
    out->ok = true;
    out->error[0] = 0;
    return true;
}

void measure_combine_reference(const struct measure_runs *runs, struct reference_verdict *v)
{
    double ref[ACROSS_MAX], rel[ACROSS_MAX];
    size_t n = 0;
    bool all = true;
    for (int i = 0; i < runs->n && n < ACROSS_MAX; i++) {
        const struct measurement *m = &runs->proc[i];
        if (!m->ok)
            continue;
        all &= m->has_ref;
        ref[n] = m->ref_ns;
        rel[n++] = m->relative;
    }
    instability_test_drift(ref, n);
    reference_summarize(ref, rel, all ? n : 0, REFERENCE_MOVED_RATIO_COUNTER, v);
}
