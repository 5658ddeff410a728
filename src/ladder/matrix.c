/* SPDX-License-Identifier: MIT */
/* The cache-line handoff matrix (matrix.h). */
#include "common/message.h"
#include "ladder/matrix.h"

#include "ladder/ladder_progress.h"
#include "ladder/mechanism.h"
#include "ladder/rung_measure.h"
#include "ladder/runner.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct cell_shared {
    struct channel ch;
    struct measurement meas;
};

struct cell_job {
    const struct ladder_plan *p;
    int from, to;
    enum ladder_fault_kind fault;
};

static void *partner(void *arg)
{
    mech_serve(arg);
}

static int cell_runner(void *shared, const void *arg)
{
    struct cell_shared *sh = shared;
    const struct cell_job *job = arg;
    if (job->fault == FAULT_CRASH)
        raise(SIGSEGV);
    char why[MSG_WORD];
    mech_open(&sh->ch, MECH_CACHELINE, why, sizeof why);
    sh->ch.stall = job->fault == FAULT_HANG;
    pthread_attr_t attr;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(job->to, &set);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    pthread_t t;
    int rc = pthread_create(&t, &attr, partner, &sh->ch);
    pthread_attr_destroy(&attr);
    if (rc != 0 || !cpuset_pin(job->from))
        return 1;
    return rung_time_round_trips(&sh->ch, &job->p->matrix_cfg, job->from, &sh->meas) ? 0 : 1;
}

static void measure_cell(const struct ladder_plan *p, int from, int to, struct matrix_cell *c)
{
    struct cell_shared *sh = runner_shared_alloc(sizeof *sh);
    if (!sh) {
        snprintf(c->why, sizeof c->why, "cannot map shared memory");
        return;
    }
    char id[64];
    snprintf(id, sizeof id, "cacheline.%d.%d", from, to);
    struct cell_job job = {.p = p, .from = from, .to = to,
                           .fault = ladder_fault_for(&p->faults, id)};
    struct runner_outcome oc;
    if (runner_run(cell_runner, sh, &job, p->rung_timeout_s, &oc)) {
        c->measured = true;
        c->round_trip_ns = sh->meas.ns_per_call.median;
        c->one_way_ns = sh->meas.ns_per_call.median / 2;
        c->p99_one_way_ns = sh->meas.ns_per_call.p99 / 2;
        c->noisy = sh->meas.noisy;
    } else {
        snprintf(c->why, sizeof c->why, "%s", oc.why);
    }
    runner_shared_free(sh, sizeof *sh);
}

void matrix_measure(const struct ladder_plan *p, struct cpu_matrix *out, struct ladder_progress *lp)
{
    memset(out, 0, sizeof *out);
    out->n = p->cpus.count < MATRIX_MAX_CPUS ? p->cpus.count : MATRIX_MAX_CPUS;
    out->cpus_left_out = p->cpus.count - out->n;
    for (int i = 0; i < out->n; i++)
        out->cpus[i] = p->cpus.cpu[i];
    if (out->n < 2) {
        snprintf(out->why, sizeof out->why,
                 "one CPU available to this process (affinity): no pair of CPUs");
        return;
    }
    out->available = true;
    for (int i = 0; i < out->n; i++)
        for (int k = 0; k < out->n; k++) {
            struct matrix_cell *c = &out->cell[i][k];
            if (i == k)
                snprintf(c->why, sizeof c->why, "the same CPU");
            else {
                ladder_progress_step(lp, ladder_cell_expected_s(p), 0,
                                     "the CPU-by-CPU handoff matrix: CPU %d to %d",
                                     out->cpus[i], out->cpus[k]);
                measure_cell(p, out->cpus[i], out->cpus[k], c);
            }
        }
}

bool matrix_range(const struct cpu_matrix *m, double *lo, double *hi)
{
    bool any = false;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < m->n; k++)
            if (i != k && m->cell[i][k].measured) {
                any = true;
                *lo = fmin(*lo, m->cell[i][k].one_way_ns);
                *hi = fmax(*hi, m->cell[i][k].one_way_ns);
            }
    return any;
}
