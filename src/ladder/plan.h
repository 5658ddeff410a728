/* SPDX-License-Identifier: MIT */
/* What a ladder run does and where: shared by the rungs, the CPU matrix and the sweep. */
#ifndef CLOCKSCOPE_LADDER_PLAN_H
#define CLOCKSCOPE_LADDER_PLAN_H

#include "common/cpuset.h"
#include "ladder/each_round_trip.h"
#include "ladder/fault.h"
#include "measure/engine.h"

#include <stdbool.h>

struct ladder_plan {
    bool quick;
    struct cpu_list cpus;          /* the CPUs this process may use */
    int cpu_a, cpu_b;              /* side A (timed) and B of a cross-CPU rung; cpu_b ==
                                      cpu_a when there is only one CPU */
    struct measure_config rung_cfg;   /* the engine's, for the calls */
    struct each_config trip_cfg;      /* the round-trip rungs': each timed alone */
    struct measure_config matrix_cfg; /* shorter: one per ordered CPU pair */
    int processes;                 /* runners each call rung is measured in, one after the other */
    int trip_processes;            /* and each round-trip rung */
    double rung_timeout_s;         /* a runner outliving this is killed and reported */
    double sweep_seconds;          /* measured time per sweep item (after its warm-up) */
    struct ladder_faults faults;
};

#endif
