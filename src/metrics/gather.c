/* SPDX-License-Identifier: MIT */
/* Gathering the metrics in-process (gather.h): the same calls as `doctor` and `warp`, so the
 * metrics say exactly what those commands say. */
#include "metrics/gather.h"
#include "common/clock_ns.h"
#include "common/cpuset.h"
#include "common/message.h"
#include "common/units.h"
#include "facts/archive.h"
#include "measure/method.h"
#include "warp/warp_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The warp's default selection, over every CPU this process may use (at most 256, warp's
 * own limit), for `seconds`. */
static void gather_warp(double seconds, struct metrics_run *r)
{
    static struct warp_options o;
    memset(&o, 0, sizeof o);
    o.seconds = seconds;
    o.json = true;
    o.quiet = true; /* no progress line on stderr: metrics speaks for itself */
    if (!cpuset_allowed(&o.cpus) || o.cpus.count == 0) {
        r->warp_failures++;
        return;
    }
    if (o.cpus.count > 256)
        o.cpus.count = 256;
    static struct method_list ml;
    methods_collect(&ml);
    struct warp_run w = {.o = &o};
    w.results = calloc(ml.count, sizeof *w.results);
    w.rates = calloc(ml.count, sizeof *w.rates);
    if (!w.results || !w.rates) {
        free(w.results);
        free(w.rates);
        r->warp_failures++;
        return;
    }
    sysinfo_read(&w.si);
    warp_run_all(&w, &ml);
    r->warp_ran = true;
    r->warp_seconds = w.elapsed_s;
    r->warp_failures = w.failures;
    r->warp_violations = w.judged_backward;
    for (size_t i = 0; i < w.nresults; i++) {
        struct method_result *mr = &w.results[i];
        if (!mr->cross_ok)
            continue;
        if (r->nwarp < METRICS_WARP_MAX) {
            struct metrics_warp_method *m = &r->warp[r->nwarp++];
            snprintf(m->id, sizeof m->id, "%s", mr->m->id);
            m->backward_steps = mr->s.backward_steps;
            m->must_be_monotonic = warp_must_be_monotonic(mr->m, w.drift.realtime_stepped);
        }
        warp_collected_free(&mr->c);
    }
    free(w.results);
    free(w.rates);
}

bool metrics_gather(const char *root, double warp_seconds, struct metrics_run *r)
{
    memset(r, 0, sizeof *r);
    double t0 = clock_ns_monotonic_s();
    if (root) {
        if (!archive_load_root(root, &r->fs, r->why, sizeof r->why)) /* archives too */
            return false;
    } else {
        facts_load_live(&r->fs);
        proof_run(&r->p);
    }
    diagnose(&r->fs, &r->p, &r->d);
    if (!root && warp_seconds > 0)
        gather_warp(warp_seconds, r);
    r->duration_s = clock_ns_monotonic_s() - t0;
    r->success = r->warp_failures == 0;
    if (!r->success)
        snprintf(r->why, sizeof r->why, "warp: %s could not run",
                 units_plural(r->warp_failures, "method", (char[MSG_WORD]){0}, MSG_WORD));
    return true;
}

void metrics_run_free(struct metrics_run *r) { facts_free(&r->fs); }
