/* SPDX-License-Identifier: MIT */
/* The metrics of one run as Prometheus text (docs/metrics.md names every one). */
#ifndef CLOCKSCOPE_METRICS_EMIT_H
#define CLOCKSCOPE_METRICS_EMIT_H

#include "metrics/exposition.h"
#include "metrics/gather.h"

/* Writes r into p (prom_init'ed); now_s is the wall-clock time of the run's end (the
 * staleness alert compares it with Prometheus's time()). */
void metrics_emit(const struct metrics_run *r, double now_s, struct prom *p);

#endif
