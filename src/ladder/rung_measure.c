/* SPDX-License-Identifier: MIT */
/* One rung: a call measured as bench does, or a round trip between two pinned threads or
 * processes, each in its own runner (runner.h), each round trip timed alone on side A
 * (each_round_trip.h). */
#include "common/message.h"
#include "ladder/rung_measure.h"

#include "ladder/each_round_trip.h"
#include "ladder/mechanism.h"
#include "ladder/runner.h"
#include "measure/combine.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a rung's runner shares with the parent: the channel (B may be another process)
 * and the result. */
struct rung_shared {
    struct channel ch;
    struct measurement meas;
    char why[MSG_REASON];
};

struct rung_job {
    const struct rung_def *d;
    const struct ladder_plan *p;
    const struct method *method; /* calls */
    int cpu_b;
    enum ladder_fault_kind fault;
};

static void round_trip_batch(uint64_t n, const void *ctx)
{
    struct channel *ch = (struct channel *)ctx;
    for (uint64_t i = 0; i < n; i++)
        mech_round_trip(ch);
}

bool rung_time_round_trips(struct channel *ch, const struct measure_config *cfg, int cpu,
                           struct measurement *out)
{
    struct method m = {.id = "round_trip", .path = "ladder", .api = "round_trip",
                       .batch = round_trip_batch, .unit = UNIT_NONE, .ctx = ch,
                       .available = true};
    struct measure_config c = *cfg;
    c.switches_expected = true; /* the partner's wake-up preempts side A by design */
    return measure_method(&m, &c, &cpu, 1, out);
}

static void one_round_trip(void *ctx)
{
    mech_round_trip(ctx);
}

static void *partner_thread(void *arg)
{
    struct channel *ch = arg;
    mech_serve(ch); /* ends with the runner's process */
}

static int run_call(struct rung_shared *sh, const struct rung_job *job)
{
    if (!cpuset_pin(job->p->cpu_a)) {
        snprintf(sh->why, sizeof sh->why, "cannot pin to CPU %d", job->p->cpu_a);
        return 1;
    }
    if (job->fault == FAULT_HANG)
        for (;;)
            pause();
    if (!measure_method(job->method, &job->p->rung_cfg, &job->p->cpu_a, 1, &sh->meas)) {
        snprintf(sh->why, sizeof sh->why, "%s", sh->meas.error);
        return 1;
    }
    return 0;
}

static void pin_or_die(int cpu)
{
    if (!cpuset_pin(cpu))
        _exit(3);
}

static int run_round_trip(struct rung_shared *sh, const struct rung_job *job)
{
    if (!mech_open(&sh->ch, job->d->mech, sh->why, sizeof sh->why))
        return 1;
    sh->ch.stall = job->fault == FAULT_HANG;
    pid_t child = -1;
    if (job->d->partner == PARTNER_PROCESS) {
        child = runner_fork_child();
        if (child < 0) {
            snprintf(sh->why, sizeof sh->why, "cannot fork the partner process");
            return 1;
        }
        if (child == 0) {
            pin_or_die(job->cpu_b);
            mech_serve(&sh->ch);
        }
    } else {
        pthread_t t;
        /* The partner pins itself before serving: pinned from its first round trip. */
        pthread_attr_t attr;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(job->cpu_b, &set);
        pthread_attr_init(&attr);
        pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        int rc = pthread_create(&t, &attr, partner_thread, &sh->ch);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            snprintf(sh->why, sizeof sh->why, "cannot start the partner thread on CPU %d",
                     job->cpu_b);
            return 1;
        }
    }
    bool ok = cpuset_pin(job->p->cpu_a);
    if (!ok)
        snprintf(sh->why, sizeof sh->why, "cannot pin to CPU %d", job->p->cpu_a);
    else if (!each_round_trip_time(one_round_trip, &sh->ch, &job->p->trip_cfg, &sh->meas)) {
        snprintf(sh->why, sizeof sh->why, "%s", sh->meas.error);
        ok = false;
    }
    if (child > 0) {
        int status;
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
            snprintf(sh->why, sizeof sh->why, "cannot pin the partner to CPU %d", job->cpu_b);
            ok = false;
        }
    }
    return ok ? 0 : 1; /* the partner thread ends with this process */
}

static int rung_runner(void *shared, const void *arg)
{
    struct rung_shared *sh = shared;
    const struct rung_job *job = arg;
    if (job->fault == FAULT_CRASH)
        raise(SIGSEGV);
    return job->d->family == FAMILY_CALL ? run_call(sh, job) : run_round_trip(sh, job);
}

/* The rung's figures from its runners' measurements (none failed). */
static void combine_runners(const struct rung_def *d, const struct ladder_plan *p,
                            const struct measure_runs *runs, struct rung_result *out)
{
    struct measurement m;
    if (runs->n == 1) {
        m = runs->proc[0];
        out->nproc = 1;
        out->proc_ns[0] = m.ns_per_call.median;
        across_summarize(out->proc_ns, 1, &out->across);
    } else if (d->family != FAMILY_CALL) {
        /* Single round trips spread widely by nature: noisy is a runner's median moving
         * (between its halves, or across runners), not their spread. */
        measure_combine(runs, INFINITY, &m, &out->across);
        m.noisy = !(out->across.spread <= p->trip_cfg.noisy_shift);
        for (int k = 0; k < runs->n; k++)
            m.noisy |= runs->proc[k].noisy;
    } else {
        measure_combine(runs, p->rung_cfg.noisy_spread, &m, &out->across);
    }
    if (runs->n > 1)
        for (out->nproc = 0; out->nproc < runs->n; out->nproc++)
            out->proc_ns[out->nproc] = runs->proc[out->nproc].ns_per_call.median;
    out->measured = true;
    out->ns = m.ns_per_call;
    out->loop_ns = m.loop_ns_per_call;
    out->noisy = m.noisy;
    out->samples = m.samples;
    out->preempted_samples = m.preempted_samples;
}

void rung_measure(const struct rung_def *d, const struct ladder_plan *p,
                  const struct method_list *ml, struct rung_result *out)
{
    memset(out, 0, sizeof *out);
    out->def = d;
    out->cpu_a = p->cpu_a;
    out->cpu_b = -1;
    struct rung_job job = {.d = d, .p = p, .fault = ladder_fault_for(&p->faults, d->id)};
    if (d->family == FAMILY_CALL) {
        job.method = methods_find(ml, d->method_id);
        if (!job.method) {
            snprintf(out->why, sizeof out->why, "no method %s in this build", d->method_id);
            return;
        }
        if (!job.method->available) {
            snprintf(out->why, sizeof out->why, "%s", job.method->why);
            return;
        }
    } else if (d->placement == PLACE_CROSS_CPU) {
        if (p->cpus.count < 2) {
            snprintf(out->why, sizeof out->why,
                     "one CPU available to this process (affinity): nowhere to put the partner");
            return;
        }
        job.cpu_b = out->cpu_b = p->cpu_b;
    } else {
        job.cpu_b = out->cpu_b = p->cpu_a;
    }
    out->available = true;
    struct rung_shared *sh = runner_shared_alloc(sizeof *sh);
    if (!sh) {
        snprintf(out->why, sizeof out->why, "cannot map shared memory");
        return;
    }
    /* Each runner is a process of its own (fresh pages, its own kernel objects), measured
     * one after the other: the figure is the median over them (measure/combine.c). */
    int nproc = d->family == FAMILY_CALL ? p->processes : p->trip_processes;
    nproc = nproc < 1 ? 1 : nproc > ACROSS_MAX ? ACROSS_MAX : nproc;
    struct measure_runs runs = {.n = 0, .proc = calloc((size_t)nproc, sizeof(struct measurement))};
    if (!runs.proc) {
        snprintf(out->why, sizeof out->why, "out of memory");
        runner_shared_free(sh, sizeof *sh);
        return;
    }
    bool failed = false;
    for (int k = 0; k < nproc && !failed; k++) {
        memset(sh, 0, sizeof *sh);
        struct runner_outcome one;
        if (!runner_run(rung_runner, sh, &job, p->rung_timeout_s, &one)) {
            out->timed_out = one.timed_out;
            const char *detail = (!one.timed_out && sh->why[0]) ? sh->why : "";
            snprintf(out->why, sizeof out->why, "%s%s%s", one.why, detail[0] ? ": " : "", detail);
            failed = true;
        } else {
            runs.proc[runs.n++] = sh->meas;
        }
        if (d->family != FAMILY_CALL) /* every runner's timed round trips */
            out->round_trips += sh->meas.samples * sh->meas.calls_per_sample;
        out->elapsed_s += one.elapsed_s;
    }
    if (!failed)
        combine_runners(d, p, &runs, out);
    free(runs.proc);
    runner_shared_free(sh, sizeof *sh);
}
