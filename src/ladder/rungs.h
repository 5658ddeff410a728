/* SPDX-License-Identifier: MIT */
/* The rungs of the ladder, as one table: what is measured, with what, where.
 *
 * Rung ids: a call is a bench method measured by the engine, under bench's id
 * (`ref.empty_call`, `vdso.clock_gettime.monotonic`, `ref.getppid`, ...); and
 * `<mechanism>.<threads|processes>.<same_cpu|cross_cpu>` for round trips
 * (`pipe.threads.cross_cpu`, `futex.processes.same_cpu`, `spin.threads.cross_cpu`). */
#ifndef CLOCKSCOPE_LADDER_RUNGS_H
#define CLOCKSCOPE_LADDER_RUNGS_H

#include "common/message.h"
#include "common/stats.h"
#include "measure/across.h"
#include "ladder/mechanism.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUNG_ID_MAX 64
#define RUNGS_MAX 64

/* What a figure covers.  Every figure of the ladder says which: peers differ (lmbench and
 * `perf bench sched pipe` print round trips, others half of one). */
enum ladder_kind { KIND_ONE_WAY, KIND_ROUND_TRIP, KIND_CALL };
/* "one_way", "round_trip" or "call": the text's and the JSON's word for the kind. */
const char *ladder_kind_name(enum ladder_kind k);
/* The JSON key of a figure of that kind: "ns_one_way", "ns_per_round_trip", "ns_per_call". */
const char *ladder_cost_key(enum ladder_kind k);

enum rung_family { FAMILY_CALL, FAMILY_IPC };
enum rung_partner { PARTNER_NONE, PARTNER_THREAD, PARTNER_PROCESS };
enum rung_placement { PLACE_ONE_CPU, PLACE_SAME_CPU, PLACE_CROSS_CPU };

struct rung_def {
    char id[RUNG_ID_MAX];
    enum rung_family family;
    enum ladder_kind kind;
    char method_id[RUNG_ID_MAX]; /* FAMILY_CALL: the bench method measured */
    enum mech mech;              /* FAMILY_IPC */
    enum rung_partner partner;
    enum rung_placement placement;
    const char *description;
};

struct rung_result {
    const struct rung_def *def;
    bool available;
    char why[MSG_PARAGRAPH]; /* not available: why; available but failed: the error */
    bool measured;       /* a figure exists (available and it did not fail) */
    bool timed_out;
    struct summary ns;   /* per round trip or per call, net of the loop's cost */
    double loop_ns;
    bool noisy;
    size_t samples, preempted_samples;
    uint64_t round_trips; /* timed, over every runner (round-trip rungs; 0 for calls) */
    double elapsed_s;
    int cpu_a, cpu_b;    /* where side A (the timer's) and side B ran; -1: none */
    /* Across the runners the rung was measured in, one after the other (issue 29): ns's
     * median is the median over them. */
    int nproc;
    double proc_ns[ACROSS_MAX];
    struct across across;
};

/* Fills defs with every rung in display order (calls first, then each mechanism with
 * threads and processes, same CPU and cross CPU).  Returns the count. */
size_t rungs_build(struct rung_def *defs, size_t max);
/* What the text calls a rung's figure: "call" (a call and its return), else its kind. */
const char *ladder_rung_unit(const struct rung_def *d);

#endif
