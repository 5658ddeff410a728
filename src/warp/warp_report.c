/* SPDX-License-Identifier: MIT */
/* `clockscope warp` output: the text report and the clockscope.warp/1 JSON document
 * (docs/json.md). */
#include "warp/warp_run.h"

#include "common/exit_status.h"
#include "common/json.h"
#include "common/message.h"
#include "common/text_wrap.h"
#include "common/units.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double to_ns(const struct method_result *mr, double units)
{
    return units * mr->ns_per_unit;
}

/* ---- text output ---- */

/* "±" where the terminal's locale is UTF-8 (as the report writes it), "+/-" elsewhere: the
 * character set is the locale's (LC_ALL, LC_CTYPE, LANG), asked without changing ours. */
static const char *plus_minus(void)
{
    static const char *pm;
    if (pm)
        return pm;
    pm = "+/-";
    const char *old = setlocale(LC_CTYPE, NULL);
    char saved[64];
    snprintf(saved, sizeof saved, "%s", old ? old : "C");
    if (setlocale(LC_CTYPE, "")) {
        const char *cs = nl_langinfo(CODESET);
        if (cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0))
            pm = "\u00b1";
        setlocale(LC_CTYPE, saved);
    }
    return pm;
}

/* The verdict, said first: went backwards, could not check, too few comparisons to tell,
 * or monotonic (in how many comparisons at least). */
static void write_verdict(FILE *f, const struct warp_run *r)
{
    const struct warp_options *o = r->o;
    char list[MSG_REASON] = "";
    size_t nfew = 0, nchecked = 0, nunordered = 0;
    uint64_t least = UINT64_MAX, unordered_steps = 0;
    for (size_t i = 0; i < r->nresults; i++) {
        const struct method_result *mr = &r->results[i];
        if (!mr->ran || !mr->cross_ok)
            continue;
        bool must = warp_must_be_monotonic(mr->m, r->drift.realtime_stepped);
        if (mr->s.backward_steps && !must && mr->m->unit == UNIT_TICKS) {
            nunordered++;
            unordered_steps += mr->s.backward_steps;
        }
        if (!must || mr->s.backward_steps)
            continue;
        nchecked++;
        if (!warp_enough_comparisons(&mr->s, o->cpus.count)) {
            if (nfew++ < 4)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s (%s)",
                         nfew > 1 ? ", " : "", mr->m->id,
                         COUNT_TEXT((double)mr->s.cross_cpu_comparisons));
        } else if (mr->s.cross_cpu_comparisons < least) {
            least = mr->s.cross_cpu_comparisons;
        }
    }
    if (nfew > 4)
        snprintf(list + strlen(list), sizeof list - strlen(list), " and %zu more", nfew - 4);
    if (r->judged_backward) {
        fprintf(f, "verdict: FAULT: a method that must be monotonic went backwards "
                   "(exit %d):", EXIT_BROKEN);
        size_t shown = 0;
        for (size_t i = 0; i < r->nresults; i++) {
            const struct method_result *mr = &r->results[i];
            if (!mr->cross_ok || !mr->s.backward_steps ||
                !warp_must_be_monotonic(mr->m, r->drift.realtime_stepped))
                continue;
            char worst[32];
            units_format_ns(to_ns(mr, (double)mr->s.max_backward), worst, sizeof worst);
            fprintf(f, "%s %s %s times, worst %s back", shown++ ? ";" : "", mr->m->id,
                   COUNT_TEXT((double)mr->s.backward_steps), worst);
        }
        fprintf(f, "\n");
    } else if (r->failures) {
        fprintf(f, "verdict: %d method%s could not be checked (exit %d): see below\n", r->failures,
               r->failures == 1 ? "" : "s", EXIT_PARTIAL);
    } else if (nchecked == 0) {
        fprintf(f, "verdict: no method that must be monotonic was checked\n");
    } else if (o->cpus.count < 2) {
        fprintf(f, "verdict: no method went backwards on CPU %d; one CPU: nothing to compare "
               "across CPUs\n", o->cpus.cpu[0]);
    } else if (nfew == nchecked) {
        fprintf(f, "verdict: too few comparisons to tell: no method went backwards, but none had "
               "the %u cross-CPU comparisons (with every CPU) that say a warp "
               "would show in fewer than 1 in 100: %s; run longer (--seconds)\n",
               WARP_MIN_CROSS_COMPARISONS, list);
    } else {
        fprintf(f, "verdict: every method that must be monotonic was, in %s cross-CPU comparisons "
               "or more each", COUNT_TEXT((double)least));
        if (nfew)
            fprintf(f, "; too few comparisons to tell for %s", list);
        fprintf(f, "\n");
    }
    if (nunordered)
        fprintf(f, "         unordered counter reads went backwards %s times in %zu method%s: "
               "expected without an ordering instruction, not a fault\n",
               COUNT_TEXT((double)unordered_steps), nunordered, nunordered == 1 ? "" : "s");
}

/* The verdict's lines, each wrapped within the terminal's 100 columns under its label. */
static void print_verdict(const struct warp_run *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        write_verdict(stdout, r);
        return;
    }
    write_verdict(f, r);
    fclose(f);
    for (char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = 0;
        bool first = strncmp(line, "verdict: ", 9) == 0;
        text_wrap(stdout, first ? "verdict: " : "", first ? line + 9 : line + strspn(line, " "),
                  first ? 0 : 9, 9, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
    free(text);
}

/* A row's judgement of its backward steps: a short word in the table, said in full once
 * below it (JUDGEMENT_MEANING), so that a row fits 100 columns. */
enum judgement { J_NONE, J_FAULT, J_UNORDERED, J_CPUTIME, J_STEPPED, J_COUNT };
static const char *const JUDGEMENT_WORD[J_COUNT] = {"", "  FAULT", "  expected", "  not judged",
                                                    "  stepped"};
static const char *const JUDGEMENT_MEANING[J_COUNT] = {
    NULL, "FAULT: a method that must be monotonic went backwards",
    "expected: an unordered counter read (no ordering instruction) may step back",
    "not judged: a CPU-time clock", "stepped: REALTIME was stepped during the run"};

static enum judgement judgement(const struct method_result *mr, bool realtime_stepped)
{
    if (!mr->s.backward_steps)
        return J_NONE;
    if (warp_must_be_monotonic(mr->m, realtime_stepped))
        return J_FAULT;
    if (mr->m->unit == UNIT_TICKS)
        return J_UNORDERED;
    if (warp_is_cputime(mr->m))
        return J_CPUTIME;
    return J_STEPPED;
}

static void print_pairs(const struct warp_run *r, const struct method_result *mr)
{
    const struct warp_matrix *mx = &mr->c.matrix;
    for (int a = 0; a < mx->n; a++)
        for (int b = a; b < mx->n; b++) {
            struct warp_pair_verdict v = warp_classify_pair(mx, a, b);
            if (v.cls == WARP_NONE)
                continue;
            char worst[32], off[32];
            units_format_ns(to_ns(mr, (double)v.max_backward), worst, sizeof worst);
            int ca = r->o->cpus.cpu[a], cb = r->o->cpus.cpu[b];
            if (a == b) {
                printf("    CPU %d alone: %s backward, worst %s\n", ca,
                       COUNT_TEXT((double)v.backward_ab), worst);
                continue;
            }
            units_format_ns(v.offset_known ? to_ns(mr, v.offset_b_minus_a) : NAN, off,
                            sizeof off);
            printf("    CPU %d->%d: %s backward, %d->%d: %s; worst %s; CPU %d - CPU %d "
                   "offset est. %s: %s\n",
                   ca, cb, COUNT_TEXT((double)v.backward_ab), cb, ca,
                   COUNT_TEXT((double)v.backward_ba), worst, cb, ca, off, warp_class_name(v.cls));
        }
}

/* Each method's cross-CPU check: reads, comparisons, backward steps and the worst. */
static void print_cross_cpu(const struct warp_run *r)
{
    printf("\n");
    printf("cross-CPU monotonicity: one thread per CPU, each read compared with the one "
           "published before it\n");
    printf("%-36s %8s %8s %9s %11s  %s\n", "id", "reads", "cross", "backward", "worst",
           "class");
    bool seen[J_COUNT] = {false};
    for (size_t i = 0; i < r->nresults; i++) {
        const struct method_result *mr = &r->results[i];
        if (!mr->ran || !mr->cross_ok) {
            printf("%-36s %s\n", mr->m->id, mr->error);
            continue;
        }
        char reads[FORMAT_NS_MAX], cross[FORMAT_NS_MAX], back[FORMAT_NS_MAX],
            worst[FORMAT_NS_MAX];
        units_format_count((double)mr->c.reads, reads, sizeof reads);
        units_format_count((double)mr->s.cross_cpu_comparisons, cross, sizeof cross);
        units_format_count((double)mr->s.backward_steps, back, sizeof back);
        units_format_ns(mr->s.backward_steps ? to_ns(mr, (double)mr->s.max_backward) : NAN,
                        worst, sizeof worst);
        enum judgement j = judgement(mr, r->drift.realtime_stepped);
        seen[j] = true;
        printf("%-36s %8s %8s %9s %*s  %s%s\n", mr->m->id, reads, cross, back,
               units_columns(11, worst), worst, mr->s.classification, JUDGEMENT_WORD[j]);
        if (mr->s.backward_steps)
            print_pairs(r, mr);
    }
    for (int j = J_NONE + 1; j < J_COUNT; j++)
        if (seen[j])
            text_wrap(stdout, "", JUDGEMENT_MEANING[j], 2, 4, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
}

/* Each counter's rate over the run, against what is stated and what the kernel found. */
static void print_rates(const struct warp_run *r)
{
    const struct sysinfo *si = &r->si;
    printf("\ncounter rate against CLOCK_MONOTONIC_RAW over the run (clocksource %s)\n",
           si->clocksource[0] ? si->clocksource : "unknown");
    printf("  when the clocksource is this counter, MONOTONIC_RAW is the counter scaled by the\n"
           "  kernel's calibration: the error checks that calibration, not the crystal; the NTP\n"
           "  slew below is the error against the time source, where NTP disciplines the clock\n");
    printf("  stated: ");
    if (r->stated_hz)
        printf("%.6f MHz (%s)\n", (double)r->stated_hz / 1e6, r->stated_source);
    else
        printf("none: %s\n", r->stated_source);
    if (r->kernel.hz)
        printf("  kernel: %.3f MHz (\"%s\"; its last digit is %.2f ppm)\n",
               (double)r->kernel.hz / 1e6, r->kernel.line,
               (double)r->kernel.step_hz / (double)r->kernel.hz * 1e6);
    for (size_t i = 0; i < r->nrates; i++) {
        const struct rate_entry *e = &r->rates[i];
        if (!e->rate_ok) {
            printf("  %-34s rate not measurable (the counter did not advance)\n", e->m->id);
            continue;
        }
        printf("  %-34s %.6f MHz %s %.3f ppm", e->m->id, e->rate.hz / 1e6, plus_minus(),
               e->rate.uncertainty_ppm);
        if (r->stated_hz)
            printf("; vs stated %+.2f ppm", rate_error_ppm(e->rate.hz, (double)r->stated_hz));
        if (r->kernel.hz)
            printf("; vs kernel %+.2f ppm", rate_error_ppm(e->rate.hz, (double)r->kernel.hz));
        printf("\n");
    }
}

static void print_drift(const struct clock_drift *d)
{
    printf("\nclock drift over %.2f s\n", d->seconds);
    printf("  CLOCK_MONOTONIC vs CLOCK_MONOTONIC_RAW: %+.3f ppm %s %.3f (NTP slew)\n",
           d->monotonic_slew_ppm, plus_minus(), d->slew_uncertainty_ppm);
    printf("  CLOCK_REALTIME - CLOCK_MONOTONIC changed by %+.0f ns %s %.0f: %s\n",
           d->realtime_step_ns, plus_minus(), d->realtime_step_uncertainty_ns,
           d->realtime_stepped ? "REALTIME was stepped" : "no step");
}

/* Each method's resolution: the smallest step of back-to-back reads on one CPU. */
static void print_resolution(const struct warp_run *r)
{
    printf("\nresolution: back-to-back reads on CPU %d\n", r->o->cpus.cpu[0]);
    printf("%-36s %9s %12s %12s %8s\n", "id", "reads", "getres", "smallest", "stalls");
    for (size_t i = 0; i < r->nresults; i++) {
        const struct method_result *mr = &r->results[i];
        char reads[FORMAT_NS_MAX], getres[FORMAT_NS_MAX], step[FORMAT_NS_MAX];
        units_format_count((double)mr->res.reads, reads, sizeof reads);
        units_format_ns(mr->getres_ns, getres, sizeof getres);
        units_format_ns(mr->res.min_step ? to_ns(mr, (double)mr->res.min_step) : NAN, step,
                        sizeof step);
        printf("%-36s %9s %*s %*s %7.1f%%\n", mr->m->id, reads, units_columns(12, getres),
               getres, units_columns(12, step), step, 100 * resolution_stall_fraction(&mr->res));
    }
}

void warp_print_text(const struct warp_run *r, const struct method_list *ml)
{
    const struct warp_options *o = r->o;
    const struct sysinfo *si = &r->si;
    sysinfo_print_header(stdout, "warp", si);
    printf("CPUs");
    for (int i = 0; i < o->cpus.count; i++)
        printf("%s%d", i ? "," : " ", o->cpus.cpu[i]);
    printf("; %.1f s in all\n", r->elapsed_s);
    print_verdict(r);
    if (o->cpus.count == 1)
        printf("only one CPU: nothing to compare across CPUs; each read is compared with the "
               "previous one on the same CPU\n");
    if (sysinfo_busy(si))
        printf("note: load average %.2f on %d CPUs: fewer reads per method, and how often an "
               "unordered read warps\n      depends on when the threads really run side "
               "by side\n",
               si->loadavg_1m, si->cpus_online);

    print_cross_cpu(r);

    for (size_t i = 0; i < ml->count; i++)
        if (warp_selected(o, &ml->m[i]) && !ml->m[i].available)
            printf("%-36s not available: %s\n", ml->m[i].id, ml->m[i].why);

    print_rates(r);
    print_drift(&r->drift);
    print_resolution(r);
    printf("\n%s\n", r->judged_backward ? "FAULT: see the verdict at the top (exit 1)"
                                         : "(the verdict is at the top)");
}

/* ---- JSON output ---- */

static void kv_ns(struct json *j, const char *k, double ns)
{
    if (isfinite(ns))
        json_kv_double(j, k, ns);
    else
        json_kv_null(j, k);
}

static void pairs_json(struct json *j, const struct warp_run *r, const struct method_result *mr)
{
    const struct warp_matrix *mx = &mr->c.matrix;
    json_key(j, "pairs");
    json_begin_array(j);
    for (int a = 0; a < mx->n; a++)
        for (int b = a; b < mx->n; b++) {
            struct warp_pair_verdict v = warp_classify_pair(mx, a, b);
            if (!v.comparisons)
                continue;
            json_begin_object(j);
            json_kv_int(j, "cpu_a", r->o->cpus.cpu[a]);
            json_kv_int(j, "cpu_b", r->o->cpus.cpu[b]);
            json_kv_uint(j, "comparisons", v.comparisons);
            json_kv_uint(j, "backward_a_to_b", v.backward_ab);
            json_kv_uint(j, "backward_b_to_a", v.backward_ba);
            kv_ns(j, "max_backward_ns", v.max_backward ? to_ns(mr, (double)v.max_backward) : 0);
            kv_ns(j, "offset_b_minus_a_ns",
                  v.offset_known ? to_ns(mr, v.offset_b_minus_a) : NAN);
            json_kv_string(j, "class", warp_class_name(v.cls));
            json_end_object(j);
        }
    json_end_array(j);
}

static void method_json(struct json *j, const struct warp_run *r, const struct method_result *mr,
                        const struct method *m)
{
    json_begin_object(j);
    json_kv_string(j, "id", m->id);
    json_kv_string(j, "path", m->path);
    json_kv_string(j, "api", m->api);
    json_kv_string(j, "clock", m->clock);
    json_kv_string(j, "value_unit", method_unit_name(m->unit));
    json_kv_bool(j, "available", m->available);
    json_kv_string(j, "why_unavailable", m->available ? NULL : m->why);
    json_kv_bool(j, "ordered", m->ordered);
    json_kv_bool(j, "must_be_monotonic", warp_must_be_monotonic(m, r->drift.realtime_stepped));
    bool done = mr && mr->ran && mr->cross_ok;
    if (done) {
        json_kv_uint(j, "reads", mr->c.reads);
        json_kv_uint(j, "comparisons", mr->s.comparisons);
        json_kv_uint(j, "cross_cpu_comparisons", mr->s.cross_cpu_comparisons);
        json_kv_uint(j, "backward_steps", mr->s.backward_steps);
        kv_ns(j, "max_backward_ns",
              mr->s.backward_steps ? to_ns(mr, (double)mr->s.max_backward) : 0);
        json_kv_uint(j, "max_backward_units", mr->s.max_backward);
        json_kv_uint(j, "equal_steps", mr->s.equal);
        json_kv_string(j, "classification", mr->s.classification);
        json_kv_double(j, "seconds", mr->c.elapsed_s);
        json_key(j, "reads_per_cpu");
        json_begin_array(j);
        for (int c = 0; c < r->o->cpus.count; c++) {
            json_begin_object(j);
            json_kv_int(j, "cpu", r->o->cpus.cpu[c]);
            json_kv_uint(j, "reads", mr->c.reads_per_cpu[c]);
            json_end_object(j);
        }
        json_end_array(j);
        pairs_json(j, r, mr);
    } else {
        json_kv_null(j, "reads");
        json_kv_null(j, "backward_steps");
        json_kv_null(j, "max_backward_ns");
        json_kv_null(j, "classification");
    }
    json_kv_string(j, "error", mr && mr->error[0] ? mr->error : NULL);
    if (mr) {
        json_key(j, "resolution");
        json_begin_object(j);
        json_kv_uint(j, "reads", mr->res.reads);
        json_kv_uint(j, "stalls", mr->res.stalls);
        kv_ns(j, "stall_fraction", resolution_stall_fraction(&mr->res));
        json_kv_uint(j, "backward", mr->res.backward);
        kv_ns(j, "min_step_ns", mr->res.min_step ? to_ns(mr, (double)mr->res.min_step) : NAN);
        if (mr->res.min_step)
            json_kv_uint(j, "min_step_units", mr->res.min_step);
        else
            json_kv_null(j, "min_step_units");
        kv_ns(j, "getres_ns", mr->getres_ns);
        json_end_object(j);
    } else {
        json_kv_null(j, "resolution");
    }
    json_end_object(j);
}

static void config_json(struct json *j, const struct warp_options *o)
{
    json_key(j, "config");
    json_begin_object(j);
    json_kv_double(j, "seconds", o->seconds);
    json_key(j, "cpus");
    json_begin_array(j);
    for (int i = 0; i < o->cpus.count; i++)
        json_int(j, o->cpus.cpu[i]);
    json_end_array(j);
    json_end_object(j);
}

/* The counters' rates, with what is stated and what the kernel found. */
static void rate_json(struct json *j, const struct warp_run *r)
{
    json_key(j, "rate");
    json_begin_object(j);
    if (r->stated_hz)
        json_kv_uint(j, "stated_hz", r->stated_hz);
    else
        json_kv_null(j, "stated_hz");
    json_kv_string(j, "stated_source", r->stated_source);
    if (r->kernel.hz) {
        json_kv_uint(j, "kernel_tsc_hz", r->kernel.hz);
        json_kv_bool(j, "kernel_tsc_refined", r->kernel.refined);
        json_kv_string(j, "kernel_tsc_line", r->kernel.line);
        json_kv_double(j, "kernel_tsc_digit_ppm",
                       (double)r->kernel.step_hz / (double)r->kernel.hz * 1e6);
    } else {
        json_kv_null(j, "kernel_tsc_hz");
    }
    json_key(j, "counters");
    json_begin_array(j);
    for (size_t i = 0; i < r->nrates; i++) {
        const struct rate_entry *e = &r->rates[i];
        json_begin_object(j);
        json_kv_string(j, "id", e->m->id);
        /* Whole Hz: the writer's 6 significant digits would hide ppm-level errors. */
        if (e->rate_ok)
            json_kv_uint(j, "measured_hz", (uint64_t)llround(e->rate.hz));
        else
            json_kv_null(j, "measured_hz");
        kv_ns(j, "uncertainty_ppm", e->rate_ok ? e->rate.uncertainty_ppm : NAN);
        kv_ns(j, "error_ppm",
              e->rate_ok ? rate_error_ppm(e->rate.hz, (double)r->stated_hz) : NAN);
        kv_ns(j, "error_ppm_vs_kernel",
              e->rate_ok ? rate_error_ppm(e->rate.hz, (double)r->kernel.hz) : NAN);
        json_end_object(j);
    }
    json_end_array(j);
    json_end_object(j);
}

static void drift_json(struct json *j, const struct clock_drift *d)
{
    json_key(j, "drift");
    json_begin_object(j);
    json_kv_double(j, "seconds", d->seconds);
    kv_ns(j, "monotonic_slew_ppm", d->monotonic_slew_ppm);
    kv_ns(j, "slew_uncertainty_ppm", d->slew_uncertainty_ppm);
    json_kv_double(j, "realtime_step_ns", d->realtime_step_ns);
    json_kv_double(j, "realtime_step_uncertainty_ns", d->realtime_step_uncertainty_ns);
    json_kv_bool(j, "realtime_stepped", d->realtime_stepped);
    json_end_object(j);
}

void warp_print_json(const struct warp_run *r, const struct method_list *ml)
{
    struct json j;
    json_init(&j, stdout, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.warp/1");
    json_key(&j, "machine");
    sysinfo_json(&j, &r->si);
    config_json(&j, r->o);
    json_kv_bool(&j, "cross_cpu", r->o->cpus.count > 1);
    json_key(&j, "methods");
    json_begin_array(&j);
    for (size_t i = 0; i < ml->count; i++) {
        const struct method *m = &ml->m[i];
        if (!warp_selected(r->o, m))
            continue;
        const struct method_result *mr = NULL;
        for (size_t k = 0; k < r->nresults; k++)
            if (r->results[k].m == m)
                mr = &r->results[k];
        method_json(&j, r, mr, m);
    }
    json_end_array(&j);

    rate_json(&j, r);

    drift_json(&j, &r->drift);

    json_kv_int(&j, "faults", r->judged_backward);
    json_kv_int(&j, "failures", r->failures);
    json_kv_double(&j, "elapsed_s", r->elapsed_s);
    json_end_object(&j);
    json_finish(&j);
}
