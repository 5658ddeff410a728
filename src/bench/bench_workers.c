/* SPDX-License-Identifier: MIT */
/* bench's worker processes: how many, their shares of the run, spawning them, what each
 * one measures, and the line protocol they report in. */
#include "bench/bench_workers.h"
#include "common/environment.h"
#include "common/message.h"

#include "common/progress.h"
#include "common/stats.h"
#include "common/subprocess.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_processes_for(int requested, const struct measure_config *cfg)
{
    if (requested)
        return requested;
    int n = cfg->samples / cfg->min_samples;
    return n < 1 ? 1 : n > ACROSS_MAX ? ACROSS_MAX : n;
}

/* A worker's share of the per-method budget: on a busy machine, where preempted samples
 * are retaken until the budget runs out, N workers each with the whole budget took N times
 * as long as one process; at least what the minimum of samples takes when none is lost. */
static void worker_budget(struct measure_config *cfg, int nproc)
{
    /* The least samples a worker insists on when the budget is spent: the minimum shared
     * too (at least 3: a median of its own), or a busy machine would make N workers take N
     * times the minimum that one process settled for. */
    int least_samples = (cfg->min_samples + nproc - 1) / nproc;
    cfg->min_samples = least_samples < 3 ? 3 : least_samples;
    double least = 2.0 * cfg->min_samples * cfg->sample_target_ns;
    cfg->budget_ns = cfg->budget_ns / nproc < least ? least : cfg->budget_ns / nproc;
}

void bench_worker_share(struct measure_config *cfg, int nproc)
{
    if (nproc <= 1)
        return;
    cfg->warmup_ns = cfg->warmup_ns / nproc < 1e6 ? 1e6 : cfg->warmup_ns / nproc;
    worker_budget(cfg, nproc);
}

void bench_share_config(struct measure_config *cfg, int nproc)
{
    if (nproc <= 1)
        return;
    /* rounded down (41 / 5: 8 each, 40 in all): each worker also pays its own
     * calibration, which one process paid once */
    bench_worker_share(cfg, nproc); /* for the JSON's config: what each worker had */
    int per = cfg->samples / nproc;
    cfg->samples = per < cfg->min_samples ? cfg->min_samples : per;
}

int bench_worker_main(const struct method *const *sel, size_t nsel,
                      const struct measure_config *cfg, const int *cpus, int threads)
{
    static struct measurement r;
    for (size_t i = 0; i < nsel; i++) {
        const struct method *m = sel[i];
        if (!m->available)
            continue;
        measure_method(m, cfg, cpus, threads, &r);
        bench_worker_print(stdout, m->id, &r);
    }
    return fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
}

/* A comma-joined copy of a list option (the parser split it in place). */
static void join(char *buf, size_t len, const char *const *items, int n)
{
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", items[i]);
}

/* A worker's whole share of the run: minutes at the most samples and methods (--samples,
 * --processes 1); the deadline bounds a hang, not a run. */
#define WORKER_DEADLINE_MS (30 * 60 * 1000)
/* A worker's output: one protocol line per method and process, a few KB each; far past
 * what any run prints, so that a runaway worker cannot take the parent's memory. */
#define WORKER_OUTPUT_MAX (64u << 20)

/* One worker process run and parsed into runs.  false: it failed (said on stderr). */
static bool run_worker(char **argv, int p, int nproc, const char *const *ids, size_t nids,
                       struct measure_runs *runs)
{
    char *out = NULL, err[MSG_REASON] = "", why[MSG_REASON] = "";
    size_t len = 0;
    struct run_outcome oc;
    bool ok = false;
    if (!run_capture_all(argv, WORKER_DEADLINE_MS, WORKER_OUTPUT_MAX, &out, &len, err, sizeof err, &oc,
                         why, sizeof why))
        fprintf(stderr, "clockscope bench: cannot start a worker process: %s\n", why);
    else if (oc.exit_status != 0 || oc.truncated)
        fprintf(stderr, "clockscope bench: worker process %d of %d failed (%s%d)%s%s\n",
                p + 1, nproc, oc.signal ? "signal " : "exit status ",
                oc.signal ? oc.signal : oc.exit_status, err[0] ? ": " : "", err);
    else if (!bench_worker_parse(out, ids, nids, runs, why, sizeof why))
        fprintf(stderr, "clockscope bench: worker process %d of %d: %s\n", p + 1, nproc, why);
    else
        ok = true;
    free(out);
    return ok;
}

bool bench_run_workers(const struct bench_options *o, const struct measure_config *cfg,
                       int nproc, const char *const *ids, size_t nids,
                       struct measure_runs *runs, struct progress *pg)
{
    char threads[16], samples[16], cpus[CPUSET_MAX * 5], only[4096], clock[512], nenv[16];
    snprintf(threads, sizeof threads, "%d", o->threads);
    snprintf(samples, sizeof samples, "%d", cfg->samples);
    cpus[0] = 0;
    for (int i = 0; i < o->threads; i++)
        snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), "%s%d", i ? "," : "",
                 o->cpus.cpu[i]);
    join(only, sizeof only, o->patterns, o->npatterns);
    join(clock, sizeof clock, o->clock_names, o->nclock_names);
    char *argv[16];
    int n = 0;
    argv[n++] = "/proc/self/exe";
    argv[n++] = "bench";
    argv[n++] = "--threads";
    argv[n++] = threads;
    argv[n++] = "--cpus";
    argv[n++] = cpus;
    argv[n++] = "--samples";
    argv[n++] = samples;
    if (o->quick)
        argv[n++] = "--quick";
    if (o->npatterns) {
        argv[n++] = "--only";
        argv[n++] = only;
    }
    if (o->nclock_names) {
        argv[n++] = "--clock";
        argv[n++] = clock;
    }
    argv[n] = NULL;
    snprintf(nenv, sizeof nenv, "%d", nproc);
    setenv(ENV_BENCH_WORKER, nenv, 1);
    bool ok = true;
    for (int p = 0; ok && p < nproc; p++) {
        progress_say(pg, (double)p / nproc, -1, "worker process %d of %d: %zu methods", p + 1,
                     nproc, nids);
        ok = run_worker(argv, p, nproc, ids, nids, runs);
    }
    unsetenv(ENV_BENCH_WORKER);
    return ok;
}

/* Protocol (one method; the worker prints them in selection order):
 *   r ID MEDIAN P10 P90 P99 MIN MAX MEAN SPREAD LOOP CPS CALLS_PER_SAMPLE SAMPLES PREEMPTED
 *     NOISY TIMER ELAPSED_NS NTHREADS
 *   t CPU MEDIAN CPS            (NTHREADS lines)
 *   k V V V ...                 (the kept per-call samples)
 *   q REF_NS RELATIVE           (optional: the reference timed after each sample)
 * or, for a method that failed:
 *   x ID ERROR TEXT */
void bench_worker_print(FILE *f, const char *id, const struct measurement *r)
{
    if (!r->ok) {
        fprintf(f, "x %s %s\n", id, r->error[0] ? r->error : "failed");
        return;
    }
    const struct summary *s = &r->ns_per_call;
    fprintf(f, "r %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %llu %zu %zu %d %d %.17g %d\n",
            id, s->median, s->p10, s->p90, s->p99, s->min, s->max, s->mean, s->spread,
            r->loop_ns_per_call, r->calls_per_sec, (unsigned long long)r->calls_per_sample,
            r->samples, r->preempted_samples, r->noisy, (int)r->timer, r->elapsed_ns, r->nthreads);
    for (int t = 0; t < r->nthreads; t++)
        fprintf(f, "t %d %.17g %.17g\n", r->threads[t].cpu, r->threads[t].ns_per_call.median,
                r->threads[t].calls_per_sec);
    fputc('k', f);
    for (size_t i = 0; i < r->nkept; i++)
        fprintf(f, " %.17g", r->kept[i]);
    fputc('\n', f);
    if (r->has_ref)
        fprintf(f, "q %.17g %.17g\n", r->ref_ns, r->relative);
}

static int find_id(const char *const *ids, size_t nids, const char *id)
{
    for (size_t i = 0; i < nids; i++)
        if (strcmp(ids[i], id) == 0)
            return (int)i;
    return -1;
}

/* The next line of *p (NUL-terminated copy in buf), or false at the end. */
static bool next_line(const char **p, char *buf, size_t cap)
{
    if (!**p)
        return false;
    const char *nl = strchr(*p, '\n');
    size_t n = nl ? (size_t)(nl - *p) : strlen(*p);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, *p, n);
    buf[n] = 0;
    *p = nl ? nl + 1 : *p + strlen(*p);
    return true;
}

/* An "r" line's figures after its id into cur.  false: not a result. */
static bool parse_result(const char *rest, struct measurement *cur)
{
    struct summary *s = &cur->ns_per_call;
    unsigned long long cps_n;
    int noisy, timer, nthreads;
    if (!rest || sscanf(rest, "%lg %lg %lg %lg %lg %lg %lg %lg %lg %lg %llu %zu %zu %d %d %lg %d",
                        &s->median, &s->p10, &s->p90, &s->p99, &s->min, &s->max, &s->mean,
                        &s->spread, &cur->loop_ns_per_call, &cur->calls_per_sec, &cps_n,
                        &cur->samples, &cur->preempted_samples, &noisy, &timer,
                        &cur->elapsed_ns, &nthreads) != 17 ||
        nthreads < 1 || nthreads > MEASURE_MAX_THREADS)
        return false;
    cur->calls_per_sample = cps_n;
    cur->noisy = noisy != 0;
    cur->timer = (clockid_t)timer;
    cur->nthreads = nthreads;
    return true;
}

bool bench_worker_parse(const char *out, const char *const *ids, size_t nids,
                        struct measure_runs *runs, char *why, size_t whylen)
{
    static char line[MEASURE_KEEP_MAX * 26 + 256];
    const char *p = out;
    struct measurement *cur = NULL, *done = NULL; /* done: the result just completed */
    int lineno = 0, threads_left = 0;
    while (next_line(&p, line, sizeof line)) {
        lineno++;
        char *save, *tok = strtok_r(line, " ", &save);
        if (!tok)
            continue;
        if (strcmp(tok, "q") == 0) {
            char *rest = strtok_r(NULL, "", &save);
            if (!done || !rest || sscanf(rest, "%lg %lg", &done->ref_ns, &done->relative) != 2) {
                snprintf(why, whylen, "worker output line %d: not a reference after a result",
                         lineno);
                return false;
            }
            done->has_ref = true;
            done = NULL;
            continue;
        }
        done = NULL;
        if (strcmp(tok, "r") == 0 || strcmp(tok, "x") == 0) {
            char *id = strtok_r(NULL, " ", &save);
            int k = id ? find_id(ids, nids, id) : -1;
            if (k < 0) {
                snprintf(why, whylen, "worker output line %d: unknown method '%s'", lineno,
                         id ? id : "");
                return false;
            }
            cur = &runs[k].proc[runs[k].n++];
            memset(cur, 0, sizeof *cur);
            if (tok[0] == 'x') {
                char *rest = strtok_r(NULL, "", &save);
                snprintf(cur->error, sizeof cur->error, "%s", rest ? rest : "failed");
                cur = NULL;
                continue;
            }
            char *rest = strtok_r(NULL, "", &save);
            if (!parse_result(rest, cur)) {
                snprintf(why, whylen, "worker output line %d: not a result", lineno);
                return false;
            }
            threads_left = cur->nthreads;
        } else if (strcmp(tok, "t") == 0 && cur && threads_left > 0) {
            struct thread_measurement *t = &cur->threads[cur->nthreads - threads_left--];
            char *rest = strtok_r(NULL, "", &save);
            if (!rest || sscanf(rest, "%d %lg %lg", &t->cpu, &t->ns_per_call.median,
                                &t->calls_per_sec) != 3) {
                snprintf(why, whylen, "worker output line %d: not a thread's result", lineno);
                return false;
            }
        } else if (strcmp(tok, "k") == 0 && cur && threads_left == 0) {
            while ((tok = strtok_r(NULL, " ", &save)) && cur->nkept < MEASURE_KEEP_MAX)
                cur->kept[cur->nkept++] = strtod(tok, NULL);
            cur->ok = true;
            done = cur;
            cur = NULL;
        } else {
            snprintf(why, whylen, "worker output line %d: unexpected '%s'", lineno, tok);
            return false;
        }
    }
    if (cur) {
        snprintf(why, whylen, "worker output ends inside a result");
        return false;
    }
    return true;
}
