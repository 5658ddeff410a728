/* SPDX-License-Identifier: MIT */
#include "common/stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (q <= 0)
        return v[0];
    if (q >= 1)
        return v[n - 1];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    double frac = pos - (double)lo;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

void stats_summarize(double *v, size_t n, struct summary *out)
{
    out->n = n;
    if (n == 0) {
        out->min = out->p10 = out->median = out->p90 = out->p99 = out->max = out->mean = NAN;
        out->spread = NAN;
        return;
    }
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->min = v[0];
    out->max = v[n - 1];
    out->mean = sum / (double)n;
    out->p10 = stats_quantile_sorted(v, n, 0.10);
    out->median = stats_quantile_sorted(v, n, 0.50);
    out->p90 = stats_quantile_sorted(v, n, 0.90);
    out->p99 = stats_quantile_sorted(v, n, 0.99);
    out->spread = out->median > 0 ? (out->p90 - out->p10) / out->median : NAN;
}
