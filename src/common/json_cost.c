/* SPDX-License-Identifier: MIT */
/* A cost in ns written as JSON, one shape everywhere (json_cost.h). */
#include "common/json_cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void samples_json(struct json *j, const double *samples, size_t n)
{
    double *sorted = malloc(n * sizeof *sorted);
    json_key(j, "samples");
    if (!sorted) {
        json_null(j);
        return;
    }
    memcpy(sorted, samples, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    json_begin_array(j);
    size_t shown = n < JSON_COST_SAMPLES ? n : JSON_COST_SAMPLES;
    for (size_t k = 0; k < shown; k++)
        json_double(j, n <= JSON_COST_SAMPLES
                           ? sorted[k]
                           : sorted[(size_t)((double)k * (double)(n - 1) / (JSON_COST_SAMPLES - 1)
                                             + 0.5)]);
    json_end_array(j);
    free(sorted);
}

void json_cost(struct json *j, const char *key, const struct summary *s, const double *samples,
               size_t n)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_double(j, "median", s->median);
    json_kv_double(j, "p10", s->p10);
    json_kv_double(j, "p90", s->p90);
    json_kv_double(j, "p99", s->p99);
    json_kv_double(j, "min", s->min);
    json_kv_double(j, "max", s->max);
    json_kv_double(j, "mean", s->mean);
    if (samples && n > 0)
        samples_json(j, samples, n);
    json_end_object(j);
}

struct summary json_cost_unknown(void)
{
    return (struct summary){.n = 0, .min = NAN, .p10 = NAN, .median = NAN, .p90 = NAN,
                            .p99 = NAN, .max = NAN, .mean = NAN, .spread = NAN};
}

void json_cost_median(struct json *j, const char *key, double median)
{
    struct summary s = json_cost_unknown();
    s.median = median;
    json_cost(j, key, &s, NULL, 0);
}
