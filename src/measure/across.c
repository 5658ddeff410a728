/* SPDX-License-Identifier: MIT */
#include "measure/across.h"

#include "common/stats.h"

#include <math.h>
#include <string.h>

void across_summarize(const double *v, size_t n, struct across *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->median = out->min = out->max = out->spread = out->low = out->high = NAN;
    if (n == 0)
        return;
    if (n > ACROSS_MAX)
        n = ACROSS_MAX;
    double s[ACROSS_MAX];
    memcpy(s, v, n * sizeof *s);
    struct summary sum;
    stats_summarize(s, n, &sum); /* sorts s */
    out->n = n;
    out->median = sum.median;
    out->min = sum.min;
    out->max = sum.max;
    out->spread = sum.spread;
    /* Splits before index k: s[0..k) low, s[k..n) high, each at least two processes (one
     * process apart from the others is an outlier, not a level). */
    double best_gap = 0;
    for (size_t k = 2; k + 2 <= n; k++) {
        double gap = s[k] - s[k - 1];
        double low_range = s[k - 1] - s[0], high_range = s[n - 1] - s[k];
        double low = stats_quantile_sorted(s, k, 0.5);
        double high = stats_quantile_sorted(s + k, n - k, 0.5);
        if (!(gap > low_range && gap > high_range))
            continue;
        if (!(low > 0 && high >= ACROSS_LEVEL_RATIO * low))
            continue;
        if (gap <= best_gap)
            continue;
        best_gap = gap;
        out->bimodal = true;
        out->low = low;
        out->high = high;
        out->nlow = k;
        out->nhigh = n - k;
    }
}
