/* SPDX-License-Identifier: MIT */
#include "bench/bench_workers.h"

#include "common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
            struct summary *s = &cur->ns_per_call;
            unsigned long long cps_n;
            int noisy, timer, nthreads;
            char *rest = strtok_r(NULL, "", &save);
            if (!rest || sscanf(rest, "%lg %lg %lg %lg %lg %lg %lg %lg %lg %lg %llu %zu %zu %d %d %lg %d",
                                &s->median, &s->p10, &s->p90, &s->p99, &s->min, &s->max, &s->mean,
                                &s->spread, &cur->loop_ns_per_call, &cur->calls_per_sec, &cps_n,
                                &cur->samples, &cur->preempted_samples, &noisy, &timer,
                                &cur->elapsed_ns, &nthreads) != 17 ||
                nthreads < 1 || nthreads > MEASURE_MAX_THREADS) {
                snprintf(why, whylen, "worker output line %d: not a result", lineno);
                return false;
            }
            cur->calls_per_sample = cps_n;
            cur->noisy = noisy != 0;
            cur->timer = (clockid_t)timer;
            cur->nthreads = nthreads;
            threads_left = nthreads;
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
