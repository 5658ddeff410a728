/* SPDX-License-Identifier: MIT */
/* Order statistics over samples. */
#ifndef CLOCKSCOPE_STATS_H
#define CLOCKSCOPE_STATS_H

#include <stddef.h>

struct summary {
    size_t n;
    double min, p10, median, p90, p99, max, mean;
    /* (p90 - p10) / median: the noise figure, a fraction. */
    double spread;
};

/* Sorts `v` in place and summarizes it.  n == 0 gives all-NaN. */
void stats_summarize(double *v, size_t n, struct summary *out);
/* Linear-interpolated quantile of a sorted array, q in [0, 1]. */
double stats_quantile_sorted(const double *v, size_t n, double q);

#endif
