/* SPDX-License-Identifier: MIT */
/* Measures one rung in a runner (runner.h) with the engine (measure/engine.h). */
#ifndef CLOCKSCOPE_LADDER_RUNG_MEASURE_H
#define CLOCKSCOPE_LADDER_RUNG_MEASURE_H

#include "ladder/plan.h"
#include "ladder/rungs.h"
#include "measure/method.h"

/* ml: the bench methods (for the calls).  Always fills out: measured, unavailable with
 * the reason, or failed (timed out, crashed) with what happened. */
void rung_measure(const struct rung_def *d, const struct ladder_plan *p,
                  const struct method_list *ml, struct rung_result *out);

/* The engine's figure for batches of round trips of ch from the calling thread (pinned to
 * cpu): the CPU matrix's cache-line handoffs, far too short to time one by one (a round-trip
 * rung times each alone: each_round_trip.h). */
struct channel;
bool rung_time_round_trips(struct channel *ch, const struct measure_config *cfg, int cpu,
                           struct measurement *out);

#endif
