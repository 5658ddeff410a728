/* SPDX-License-Identifier: MIT */
/* A ladder run's expected cost, step by step, and its weighed progress lines (ladder_progress.h). */
#include "ladder/ladder_progress.h"

#include "ladder/matrix.h"
#include "ladder/sweep.h"

#include <stdarg.h>
#include <stdio.h>

/* Starting a runner (a fork, its shared page, the wait for it) and its partner. */
#define RUNNER_START_S 0.003

/* Two CPU-bound spinners on one CPU hand over only when the scheduler preempts the one
 * that spins: each round trip waits out about two scheduler ticks (4 ms at HZ=250). */
#define SPIN_SAME_CPU_ROUND_TRIP_NS 8e6
/* A round trip's usual cost, for the time a runner's timing takes (each_expected_s): a
 * sleeping partner on another CPU (a wake-up across CPUs), on the same CPU (a switch),
 * and a spinning partner on another CPU (cache-line handoffs). */
#define SLEEPING_CROSS_CPU_ROUND_TRIP_NS 50e3
#define SLEEPING_SAME_CPU_ROUND_TRIP_NS 5e3
#define SPINNING_CROSS_CPU_ROUND_TRIP_NS 1e3

static double round_trip_guess_ns(const struct rung_def *d, const struct ladder_plan *p)
{
    bool one_cpu = d->placement == PLACE_SAME_CPU || p->cpus.count < 2;
    bool spins = d->mech == MECH_SPIN || d->mech == MECH_SPIN_FUTEX;
    if (d->mech == MECH_SPIN && one_cpu)
        return SPIN_SAME_CPU_ROUND_TRIP_NS;
    if (one_cpu)
        return SLEEPING_SAME_CPU_ROUND_TRIP_NS;
    return spins ? SPINNING_CROSS_CPU_ROUND_TRIP_NS : SLEEPING_CROSS_CPU_ROUND_TRIP_NS;
}

double ladder_rung_expected_s(const struct rung_def *d, const struct ladder_plan *p)
{
    if (d->family == FAMILY_IPC && d->placement == PLACE_CROSS_CPU && p->cpus.count < 2)
        return 0; /* not measured: no second CPU */
    if (d->family == FAMILY_CALL) {
        int nproc = p->processes < 1 ? 1 : p->processes;
        return nproc * (measure_expected_s(&p->rung_cfg, 0) + RUNNER_START_S);
    }
    int nproc = p->trip_processes < 1 ? 1 : p->trip_processes;
    return nproc * (each_expected_s(&p->trip_cfg, round_trip_guess_ns(d, p)) + RUNNER_START_S);
}

double ladder_cell_expected_s(const struct ladder_plan *p)
{
    return measure_expected_s(&p->matrix_cfg, 0) + RUNNER_START_S;
}

double ladder_matrix_expected_s(const struct ladder_plan *p)
{
    int n = p->cpus.count < MATRIX_MAX_CPUS ? p->cpus.count : MATRIX_MAX_CPUS;
    return n < 2 ? 0 : n * (n - 1) * ladder_cell_expected_s(p);
}

double ladder_sweep_item_expected_s(const struct ladder_plan *p, double *waits_s)
{
    double waits = sweep_warm_s(p) + p->sweep_seconds;
    if (waits_s)
        *waits_s = waits;
    return waits + RUNNER_START_S;
}

double ladder_sweep_expected_s(const struct ladder_plan *p, double *waits_s)
{
    if (waits_s)
        *waits_s = 0;
    if (p->cpus.count < 2)
        return 0;
    int clients = p->cpus.count - 1 < SWEEP_MAX_CLIENTS ? p->cpus.count - 1 : SWEEP_MAX_CLIENTS;
    int counts[SWEEP_MAX_ROWS];
    int items = sweep_client_counts(clients, p->quick, counts, SWEEP_MAX_ROWS) * SWEEP_MODES;
    double waits, s = items * ladder_sweep_item_expected_s(p, &waits);
    if (waits_s)
        *waits_s = items * waits;
    return s;
}

double ladder_plan_expected_s(const struct ladder_plan *p, const struct rung_def *defs,
                              const bool *selected, size_t n, bool matrix, bool sweep,
                              double *waits_s)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        if (selected[i])
            s += ladder_rung_expected_s(&defs[i], p);
    double waits = 0;
    if (sweep)
        s += ladder_sweep_expected_s(p, &waits);
    if (waits_s)
        *waits_s = waits;
    return s + (matrix ? ladder_matrix_expected_s(p) : 0);
}

void ladder_progress_step(struct ladder_progress *lp, double expected_s, double waits_s,
                          const char *fmt, ...)
{
    if (!lp || !lp->pg)
        return;
    va_list ap;
    va_start(ap, fmt);
    progress_vsay_work(lp->pg, &lp->w, fmt, ap);
    va_end(ap);
    lp->w.done_s += expected_s;
    lp->w.waits_done_s += waits_s;
}
