/* SPDX-License-Identifier: MIT */
#include "measure/across.h"

#include "common/json_cost.h"
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

void across_json(struct json *j, const struct across *a)
{
    json_key(j, "across_processes");
    json_begin_object(j);
    json_kv_int(j, "count", (int)a->n);
    json_kv_double(j, "median", a->median);
    json_kv_double(j, "min", a->min);
    json_kv_double(j, "max", a->max);
    json_kv_double(j, "spread", a->spread);
    json_kv_bool(j, "bimodal", a->bimodal);
    json_key(j, "levels");
    if (a->bimodal) {
        json_begin_array(j);
        json_begin_object(j);
        json_cost_median(j, "ns_per_call", a->low);
        json_kv_int(j, "processes", (int)a->nlow);
        json_end_object(j);
        json_begin_object(j);
        json_cost_median(j, "ns_per_call", a->high);
        json_kv_int(j, "processes", (int)a->nhigh);
        json_end_object(j);
        json_end_array(j);
    } else {
        json_null(j);
    }
    json_end_object(j);
}
