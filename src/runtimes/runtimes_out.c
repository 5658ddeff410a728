/* SPDX-License-Identifier: MIT */
/* `clockscope runtimes` output: the table (the RISC-V clock_gettime report's, with the
 * harness beside each figure) and clockscope.runtimes/2 (docs/json.md). */
#include "runtimes/runtimes.h"

#include "common/json_cost.h"
#include "common/message.h"
#include "common/stats.h"
#include "common/text_wrap.h"
#include "common/units.h"
#include "facts/sysinfo.h"
#include "measure/instability.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether `run --mode auto` (an LD_PRELOAD shim over libc) can serve this path. */
static bool shim_can_serve(const char *via)
{
    return strcmp(via, "libc") == 0 || strcmp(via, "ffi-libc") == 0;
}

static const char *state_name(enum runtime_state s)
{
    return s == RT_READY ? "measured" : s == RT_ABSENT ? "absent" : "failed";
}

static void kernel_cell(const struct runtime_row *r, char *buf, size_t len)
{
    if (!r->counted)
        snprintf(buf, len, "?");
    else /* a fraction with one decimal: "0.0" says "a few, far fewer than one a call";
          * the JSON has the count */
        snprintf(buf, len, "%s %.*f", r->syscalls_per_call >= 0.5 ? "yes" : "no",
                 r->syscalls_per_call == floor(r->syscalls_per_call) ? 0 : 1,
                 r->syscalls_per_call);
}

/* The table's columns, sized from what the rows hold. */
struct widths {
    int runtime, api, clock, via, kernel;
};

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void size_columns(const struct runtimes_result *res, struct widths *w)
{
    *w = (struct widths){(int)strlen("runtime"), 3, 5, 4, 6};
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        if (r->state != RT_READY)
            continue;
        char kernel[32];
        kernel_cell(r, kernel, sizeof kernel);
        w->runtime = max_int(w->runtime, (int)strlen(r->runtime));
        w->api = max_int(w->api, (int)strlen(r->api));
        w->clock = max_int(w->clock, (int)strlen(r->clock));
        w->via = max_int(w->via, (int)strlen(r->via));
        w->kernel = max_int(w->kernel, (int)strlen(kernel));
    }
}

/* Whether the row's figure is one of two levels across processes (shown: the lower, '~'),
 * not a figure taken at the machine's speed. */
static bool two_levels(const struct runtime_row *r)
{
    return r->across.bimodal && !(r->has_ref && r->refv.figure_at_speed);
}

/* One measured row, its mark counted in st; with verbose, its sentence under it. */
static void print_ready_row(const struct runtime_row *r, const struct widths *w, bool verbose,
                            struct instability *st)
{
    char kernel[32];
    kernel_cell(r, kernel, sizeof kernel);
    bool levels = two_levels(r);
    bool marked = instability_add(st, r->has_ref ? &r->refv : NULL, r->spread, r->noisy, levels);
    char ns[FORMAT_NS_MAX], harness[FORMAT_NS_MAX], spread[16], rel[16] = "-";
    if (r->has_ref)
        snprintf(rel, sizeof rel, "%.2f", r->refv.relative);
    printf("%-*s %-*s %7s%c %7s %6s %5s %-*s %-*s %s\n", w->runtime, r->runtime, w->api, r->api,
           units_format_ns_number(levels ? r->across.low : r->ns_per_call, ns, sizeof ns),
           levels ? '~' : ' ', units_format_ns_number(r->harness_ns, harness, sizeof harness),
           instability_spread_cell(r->spread, marked, spread, sizeof spread), rel, w->clock,
           r->clock, w->via, r->via, kernel);
    char said[MSG_REASON], line[MSG_REASON + 4];
    struct reference_verdict shown = instability_shown(&r->refv, r->spread);
    if (verbose && reference_sentence(&r->across, r->has_ref ? &shown : NULL, r->ref, said,
                                      sizeof said) > 0) {
        snprintf(line, sizeof line, "^ %s", said);
        text_wrap(stdout, "", line, w->runtime + 1, w->runtime + 3, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
    if (r->harness_bound) {
        snprintf(said, sizeof said, "^ the harness (%s) is %.0f%% of the time as timed: it "
                 "measures the call, not the clock", r->harness, 100 * r->harness_ns / r->timed_ns);
        text_wrap(stdout, "", said, w->runtime + 1, w->runtime + 3, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
}

/* Each runtime's version and harness, once. */
static void print_harnesses(const struct runtimes_result *res)
{
    char line[MSG_PARAGRAPH] = "harness per runtime:";
    const char *last = "";
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        size_t at = strlen(line);
        if (r->state == RT_READY && strcmp(r->runtime, last) != 0) {
            snprintf(line + at, sizeof line - at, " %s %s %s;", r->runtime, r->version,
                     r->harness);
            last = r->runtime;
        }
    }
    printf("\n");
    text_wrap(stdout, "", line, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
}

/* The reference of each runtime that has one: its level over the processes, so that a
 * reader sees the machine's speed beside the figures ('x ref' is ns/call over it). */
static void print_references(const struct runtimes_result *res)
{
    const char *last = "";
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        if (r->state != RT_READY || !r->has_ref || strcmp(r->runtime, last) == 0)
            continue;
        last = r->runtime;
        /* over all of this runtime's rows: each row's pairs had their own reference */
        double lo = r->refv.ref_min, hi = r->refv.ref_max, med[PROBE_MAX_ROWS];
        size_t n = 0;
        for (int k = i; k < res->nrows && strcmp(res->rows[k].runtime, r->runtime) == 0; k++) {
            const struct runtime_row *q = &res->rows[k];
            if (q->state != RT_READY || !q->has_ref || n == PROBE_MAX_ROWS)
                continue;
            lo = q->refv.ref_min < lo ? q->refv.ref_min : lo;
            hi = q->refv.ref_max > hi ? q->refv.ref_max : hi;
            med[n++] = q->refv.ref_median;
        }
        struct summary sm;
        stats_summarize(med, n, &sm);
        char line[MSG_REASON];
        snprintf(line, sizeof line, "reference of %s: a loop of %s, %s (%s to %s over its rows' "
                 "processes), timed around each pair; 'x ref' = ns/call / reference, pair by "
                 "pair: the figure that holds when this machine's speed changes", r->runtime,
                 r->ref, NS_TEXT(sm.median), NS_TEXT(lo), NS_TEXT(hi));
        text_wrap(stdout, "", line, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
}

void runtimes_print_table(const struct sysinfo *si, const struct runtimes_result *res,
                          bool verbose)
{
    sysinfo_print_header(stdout, "runtimes", si);
    printf("each API timed in its runtime's own loop; 'harness' is that loop without the call\n"
           "(named below), subtracted sample by sample from the loop with the call to give\n"
           "ns/call; 'kernel': enters the kernel here, syscalls per call, counted as the\n"
           "doctor's proof counts them (seccomp)%s\n\n",
           res->counted ? "" : " -- not counted");
    if (sysinfo_busy(si))
        printf("note: load average %.2f on %d CPUs: other work shares these cores\n\n",
               si->loadavg_1m, si->cpus_online);
    struct widths w;
    size_columns(res, &w);
    printf("%-*s %-*s %7s  %7s %6s %5s %-*s %-*s %s\n", w.runtime, "runtime", w.api, "api",
           "ns/call", "harness", "spread", "x ref", w.clock, "clock", w.via, "path", "kernel");
    struct instability st;
    instability_init(&st, RUNTIMES_NOISY_SPREAD);
    const char *last = "";
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        if (strcmp(r->runtime, last) != 0 && last[0])
            printf("\n");
        last = r->runtime;
        if (r->state != RT_READY)
            printf("%-*s %s: %s\n", w.runtime, r->runtime, state_name(r->state), r->why);
        else
            print_ready_row(r, &w, verbose, &st);
    }
    struct instability_machine mach;
    instability_read_machine("", si->virtualization, si->loadavg_1m, si->cpus_online, &mach);
    instability_print(stdout, &st, &mach);
    print_harnesses(res);
    print_references(res);
    if (!res->counted)
        printf("syscalls not counted: %s\n", res->count_why);
    /* Where the shim can help and where only the clocksource can. */
    bool any_direct = false;
    for (int i = 0; i < res->nrows; i++)
        any_direct |= res->rows[i].state == RT_READY && !shim_can_serve(res->rows[i].via) &&
                      strcmp(res->rows[i].via, "syscall") != 0;
    char line[MSG_REASON];
    snprintf(line, sizeof line, "where reading the time is slow: `clockscope run --mode auto` "
             "serves the paths through libc%s.", any_direct ? ", and Go's, which reads the vDSO "
             "itself (vdso-direct), through a patched vDSO (docs/run.md)" : "");
    text_wrap(stdout, "", line, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
}

/* The row's costs: net of the harness (median, p10, p90 known), the harness alone and
 * the call as timed (medians). */
static void row_costs_json(struct json *j, const struct runtime_row *r)
{
    struct summary net = json_cost_unknown();
    net.median = r->ns_per_call;
    net.p10 = r->p10_ns;
    net.p90 = r->p90_ns;
    json_cost(j, "ns_per_call", &net, NULL, 0);
    json_cost_median(j, "harness_ns_per_call", r->harness_ns);
    json_cost_median(j, "timed_ns_per_call", r->timed_ns);
}

/* The figures of each process and what they say together (docs/json.md). */
static void processes_json(struct json *j, const struct runtime_row *r)
{
    across_json(j, &r->across);
    json_key(j, "processes");
    json_begin_array(j);
    for (int p = 0; p < r->nproc; p++) {
        json_begin_object(j);
        json_cost_median(j, "ns_per_call", r->proc_ns[p]);
        json_cost_median(j, "timed_ns_per_call", r->proc_timed_ns[p]);
        if (r->proc_seed[p])
            json_kv_uint(j, "pythonhashseed", r->proc_seed[p]);
        else
            json_kv_null(j, "pythonhashseed");
        if (r->has_ref) {
            json_cost_median(j, "reference_ns_per_call", r->proc_ref_ns[p]);
            json_kv_double(j, "relative", r->proc_rel[p]);
            json_kv_bool(j, "at_speed", r->proc_at_speed[p]);
        } else {
            json_kv_null(j, "reference_ns_per_call");
            json_kv_null(j, "relative");
            json_kv_null(j, "at_speed");
        }
        json_end_object(j);
    }
    json_end_array(j);
    /* The reference beside the figure (measure/reference.h), or null. */
    json_key(j, "reference");
    if (!r->has_ref) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_string(j, "loop_of", r->ref);
    reference_cost_json(j, &r->refv);
    json_kv_double(j, "relative", r->refv.relative);
    json_kv_double(j, "relative_min", r->refv.rel_min);
    json_kv_double(j, "relative_max", r->refv.rel_max);
    json_kv_bool(j, "machine_speed_changed", r->refv.moved);
    json_kv_uint(j, "processes_at_speed", r->refv.at_speed);
    json_kv_bool(j, "figure_from_processes_at_speed", r->refv.figure_at_speed);
    json_kv_uint(j, "processes_added_for_speed", r->refv.added);
    json_end_object(j);
}

/* "stability": the rows' marks counted as the table counts them (measure/instability.h). */
static void stability_json(struct json *j, const struct sysinfo *si,
                           const struct runtimes_result *res)
{
    struct instability st;
    instability_init(&st, RUNTIMES_NOISY_SPREAD);
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        if (r->state == RT_READY)
            instability_add(&st, r->has_ref ? &r->refv : NULL, r->spread, r->noisy,
                            two_levels(r));
    }
    struct instability_machine mach;
    instability_read_machine("", si->virtualization, si->loadavg_1m, si->cpus_online, &mach);
    instability_json(j, &st, &mach);
}

void runtimes_print_json(const struct sysinfo *si, const struct runtimes_result *res,
                         const struct runtimes_config *cfg)
{
    struct json j;
    json_init(&j, stdout, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.runtimes/2");
    json_key(&j, "machine");
    sysinfo_json(&j, si);
    json_key(&j, "config");
    json_begin_object(&j);
    json_kv_int(&j, "samples", cfg->samples);
    json_kv_int(&j, "sample_us", cfg->sample_us);
    json_kv_int(&j, "processes", cfg->processes);
    json_kv_int(&j, "count_calls", cfg->count ? RUNTIMES_COUNT_CALLS : 0);
    json_kv_bool(&j, "counted", res->counted);
    json_kv_string_or_null(&j, "count_why", res->counted ? NULL : res->count_why);
    json_end_object(&j);
    json_key(&j, "results");
    json_begin_array(&j);
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        bool ok = r->state == RT_READY;
        json_begin_object(&j);
        json_kv_string(&j, "runtime", r->runtime);
        json_kv_string_or_null(&j, "api", ok ? r->api : NULL);
        json_kv_bool(&j, "available", ok);
        json_kv_string(&j, "status", state_name(r->state));
        json_kv_string_or_null(&j, "why_unavailable", ok ? NULL : r->why);
        json_kv_string_or_null(&j, "version", r->version);
        json_kv_string_or_null(&j, "program", r->program);
        if (ok) {
            row_costs_json(&j, r);
            json_kv_double(&j, "spread", r->spread);
            json_kv_double(&j, "calls_per_sec", r->timed_ns > 0 ? 1e9 / r->timed_ns : 0);
            json_kv_bool(&j, "noisy", r->noisy);
            json_kv_bool(&j, "harness_bound", r->harness_bound);
            json_kv_string(&j, "harness", r->harness);
            json_kv_int(&j, "samples", r->nsamples);
            json_kv_uint(&j, "iterations", r->iterations);
            json_kv_string(&j, "clock", r->clock);
            json_kv_string(&j, "path", r->via);
            processes_json(&j, r);
            char said[MSG_REASON];
            struct reference_verdict shown = instability_shown(&r->refv, r->spread);
            reference_sentence(&r->across, r->has_ref ? &shown : NULL, r->ref, said,
                               sizeof said);
            json_kv_string_or_null(&j, "verdict", said[0] ? said : NULL);
            json_kv_bool(&j, "shim_can_serve", shim_can_serve(r->via));
        }
        if (ok && r->counted) {
            json_kv_bool(&j, "enters_kernel", r->syscalls_per_call >= 0.5);
            json_kv_double(&j, "syscalls_per_call", r->syscalls_per_call);
        } else {
            json_kv_null(&j, "enters_kernel");
            json_kv_null(&j, "syscalls_per_call");
        }
        json_kv_string_or_null(&j, "count_why", ok && !r->counted ? r->count_why : NULL);
        json_end_object(&j);
    }
    json_end_array(&j);
    stability_json(&j, si, res);
    json_end_object(&j);
    json_finish(&j);
}
