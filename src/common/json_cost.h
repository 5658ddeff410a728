/* SPDX-License-Identifier: MIT */
/* A cost in ns written as JSON: one object shape for every figure (docs/json.md, "Costs"). */
#ifndef CLOCKSCOPE_JSON_COST_H
#define CLOCKSCOPE_JSON_COST_H

#include "common/json.h"
#include "common/stats.h"

#include <stddef.h>

/* The most samples a cost carries: enough for the report's bootstrap of a median, a
 * document of bounded size. */
#define JSON_COST_SAMPLES 256

/* "key": {"median", "p10", "p90", "p99", "min", "max", "mean"} from s, each in ns; a field
 * that is NaN in s (not known to the writer) is null, never missing.  With samples (n > 0)
 * also "samples": them ascending, evenly thinned to at most JSON_COST_SAMPLES. */
void json_cost(struct json *j, const char *key, const struct summary *s, const double *samples,
               size_t n);
/* A summary that knows nothing: every field NaN (written null), n 0.  Fill what is known. */
struct summary json_cost_unknown(void);
/* "key": a cost of which only the median is known. */
void json_cost_median(struct json *j, const char *key, double median);

#endif
