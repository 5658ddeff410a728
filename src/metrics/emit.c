/* SPDX-License-Identifier: MIT */
/* The metrics of one run (emit.h).  Names follow Prometheus's conventions: one prefix
 * (clockscope_), base units in the name (_seconds), _info gauges of value 1 for facts that
 * are labels only, no _total (nothing here counts across runs: every value is this run's). */
#include "metrics/emit.h"
#include "arch/arch.h"
#include "common/version.h"
#include "doctor/report.h"

#include <stdio.h>
#include <string.h>

static void one(struct prom *p, const char *name, const char *help, double v)
{
    prom_family(p, name, PROM_GAUGE, help);
    prom_sample(p, NULL, 0, v);
}

static void emit_verdict(const struct metrics_run *r, struct prom *p)
{
    const struct diagnosis *d = &r->d;
    prom_family(p, "clockscope_verdict", PROM_GAUGE,
                "The doctor's verdict: 1 for the verdict given, 0 for the others.");
    for (enum verdict v = V_OK; v <= V_UNKNOWN; v++) {
        struct prom_label l = {"verdict", verdict_name(v)};
        prom_sample(p, &l, 1, d->verdict == v);
    }
    one(p, "clockscope_verdict_exit_status",
        "The doctor's exit status: 0 ok, 3 slow, 4 broken, 5 unknown.",
        verdict_exit_status(d->verdict));
    if (d->fast_path >= 0)
        one(p, "clockscope_fast_path",
            "1 when clock_gettime(CLOCK_MONOTONIC) does not enter the kernel.",
            d->fast_path == 1);
    one(p, "clockscope_verdict_from_proof",
        "1 when a live syscall count proved the verdict, 0 for facts.",
        d->decided_by_proof);
}

static void emit_findings(const struct diagnosis *d, struct prom *p)
{
    prom_family(p, "clockscope_finding_info", PROM_GAUGE,
                "One series of value 1 per finding of the doctor (id and severity).");
    for (int i = 0; i < d->nfindings; i++) {
        /* A rule may add one id twice (two pieces of evidence): one series, not two. */
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = strcmp(d->findings[k].id, d->findings[i].id) == 0 &&
                   d->findings[k].severity == d->findings[i].severity;
        if (seen)
            continue;
        struct prom_label l[2] = {{"id", d->findings[i].id},
                                  {"severity", severity_name(d->findings[i].severity)}};
        prom_sample(p, l, 2, 1);
    }
    prom_family(p, "clockscope_findings", PROM_GAUGE, "The doctor's findings by severity.");
    for (enum severity s = SEV_INFO; s <= SEV_CRITICAL; s++) {
        int n = 0;
        for (int i = 0; i < d->nfindings; i++)
            n += d->findings[i].severity == s;
        struct prom_label l = {"severity", severity_name(s)};
        prom_sample(p, &l, 1, n);
    }
}

/* The names in node_exporter's node_time_clocksource_{current,available}_info: labels
 * clocksource and device ("0": clocksource0), so the two can be joined. */
static void emit_clocksources(const struct machine *c, struct prom *p)
{
    if (c->current_cs[0]) {
        prom_family(p, "clockscope_clocksource_current_info", PROM_GAUGE,
                    "The current clocksource; labels as node_exporter's.");
        struct prom_label l[2] = {{"clocksource", c->current_cs}, {"device", "0"}};
        prom_sample(p, l, 2, 1);
    }
    if (!c->available_cs[0])
        return;
    prom_family(p, "clockscope_clocksource_available_info", PROM_GAUGE,
                "Each available clocksource; labels as node_exporter's.");
    char seen[sizeof c->available_cs + 2] = " ";
    char buf[sizeof c->available_cs];
    snprintf(buf, sizeof buf, "%s", c->available_cs);
    for (char *save = NULL, *cs = strtok_r(buf, " \t\n", &save); cs;
         cs = strtok_r(NULL, " \t\n", &save)) {
        char key[80];
        snprintf(key, sizeof key, " %s ", cs);
        if (strstr(seen, key))
            continue; /* a name twice would be the same series twice */
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", cs);
        struct prom_label l[2] = {{"clocksource", cs}, {"device", "0"}};
        prom_sample(p, l, 2, 1);
    }
}

static void emit_proof(const struct proof *pr, struct prom *p)
{
    if (!pr->ran)
        return;
    prom_family(p, "clockscope_read_duration_seconds", PROM_GAUGE,
                "One read of the time by method (doctor's timing, median).");
    for (int i = 0; i < pr->ntimings; i++)
        if (pr->timing[i].ok) {
            struct prom_label l = {"method", pr->timing[i].id};
            prom_sample(p, &l, 1, pr->timing[i].ns_per_call * 1e-9);
        }
    one(p, "clockscope_proof_counted",
        "1 when the live proof's syscall count holds (its controls saw each).",
        pr->counted);
    if (pr->counted && pr->calls > 0) {
        /* Labelled by method as clockscope_read_duration_seconds is, so that PromQL joins
         * a method's cost and its syscalls; the two controls (a raw syscall, a CPU-time
         * clock) always make one and say so in their own label. */
        prom_family(p, "clockscope_syscalls_per_call", PROM_GAUGE,
                    "Syscalls per call in the live proof (0: served in user space).");
        for (int c = 0; c < PC_COUNT; c++) {
            bool control = c == PC_CONTROL || c == PC_CPUTIME;
            struct prom_label l[2] = {{"method", proof_call_method((enum proof_call)c)},
                                      {"control", control ? "true" : "false"}};
            prom_sample(p, l, 2, (double)pr->syscalls[c] / (double)pr->calls);
        }
    }
    one(p, "clockscope_proof_monotonic_backwards",
        "Live-proof MONOTONIC readings below the one before.",
        (double)pr->backwards);
}

static void emit_warp(const struct metrics_run *r, struct prom *p)
{
    /* Always present, so that a run without warp (--quick) says so instead of leaving the
     * warp series and the alerts on them silent. */
    one(p, "clockscope_warp_measured",
        "1 when this run measured warp (0: --quick, or warp could not run).", r->warp_ran);
    if (!r->warp_ran)
        return;
    prom_family(p, "clockscope_warp_backward_steps", PROM_GAUGE,
                "Backward steps between CPUs in this run's warp, by method.");
    for (int i = 0; i < r->nwarp; i++) {
        struct prom_label l[2] = {{"method", r->warp[i].id},
                                  {"must_be_monotonic", r->warp[i].must_be_monotonic ? "true" : "false"}};
        prom_sample(p, l, 2, (double)r->warp[i].backward_steps);
    }
    one(p, "clockscope_warp_monotonic_violations",
        "Must-be-monotonic methods that went backwards in warp.", r->warp_violations);
    one(p, "clockscope_warp_duration_seconds", "How long this run's warp took.", r->warp_seconds);
}

void metrics_emit(const struct metrics_run *r, double now_s, struct prom *p)
{
    /* Labelled as node_exporter's build_info (prometheus/common's version collector): the
     * release in `version`, the commit in `revision`, the build's arch (its goarch). */
    prom_family(p, "clockscope_build_info", PROM_GAUGE,
                "1, labelled by the version, revision and arch of this build.");
    struct prom_label b[3] = {{"version", clockscope_version_number()},
                              {"revision", clockscope_revision()}, {"arch", arch_name()}};
    prom_sample(p, b, 3, 1);
    emit_verdict(r, p);
    emit_findings(&r->d, p);
    emit_clocksources(&r->d.machine, p);
    emit_proof(&r->p, p);
    emit_warp(r, p);
    one(p, "clockscope_run_duration_seconds", "How long this run of clockscope metrics took.",
        r->duration_s);
    one(p, "clockscope_run_success", "1 when every part of this run could be measured.",
        r->success);
    one(p, "clockscope_run_timestamp_seconds",
        "When this run ended (Unix time); old means stale metrics.", now_s);
}
