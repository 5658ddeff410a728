/* SPDX-License-Identifier: MIT */
/* `clockscope runtimes` output: the table (the RISC-V clock_gettime report's, with the
 * harness beside each figure) and clockscope.runtimes/2 (docs/json.md). */
#include "runtimes/runtimes.h"

#include "common/json_cost.h"
#include "common/message.h"
#include "common/stats.h"
#include "common/units.h"
#include "facts/sysinfo.h"

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
    else
        snprintf(buf, len, "%s %.2f", r->syscalls_per_call >= 0.5 ? "yes" : "no",
                 r->syscalls_per_call);
}

/* One measured row, with its notes under it. */
static void print_ready_row(const struct runtime_row *r)
{
    char kernel[32];
    kernel_cell(r, kernel, sizeof kernel);
    char ns[FORMAT_NS_MAX], harness[FORMAT_NS_MAX], timed[FORMAT_NS_MAX];
    printf("%-7s %-25s %9s %9s %9s %10s", r->runtime, r->api,
           units_format_ns_number(r->ns_per_call, ns, sizeof ns),
           units_format_ns_number(r->harness_ns, harness, sizeof harness),
           units_format_ns_number(r->timed_ns, timed, sizeof timed),
           RATE_TEXT(r->timed_ns > 0 ? 1e9 / r->timed_ns : NAN));
    char rel[16] = "-";
    if (r->has_ref)
        snprintf(rel, sizeof rel, "%.2f", r->refv.relative);
    printf(" %6.1f%%%c %6s  %-18s %-11s %s\n", r->spread * 100, r->noisy ? '!' : ' ', rel,
           r->clock, r->via, kernel);
    char said[MSG_REASON];
    if (reference_sentence(&r->across, r->has_ref ? &r->refv : NULL, r->ref, said,
                           sizeof said) > 0)
        printf("%-7s   ^ %s\n", "", said);
    if (r->harness_bound)
        printf("%-7s   ^ the harness (%s) is %.0f%% of this figure: it measures the "
               "call, not the clock\n", "", r->harness, 100 * r->harness_ns / r->timed_ns);
}

/* Each runtime's version and harness, once. */
static void print_harnesses(const struct runtimes_result *res)
{
    printf("\nharness per runtime:");
    const char *last = "";
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        if (r->state == RT_READY && strcmp(r->runtime, last) != 0) {
            printf(" %s %s %s;", r->runtime, r->version, r->harness);
            last = r->runtime;
        }
    }
    printf("\n");
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
        printf("reference of %s: a loop of %s, %s (%s to %s over its rows' processes), "
               "timed around each pair; 'x ref' = ns/call / reference, pair by pair: the "
               "figure that holds when this machine's speed changes\n", r->runtime, r->ref,
               NS_TEXT(sm.median), NS_TEXT(lo), NS_TEXT(hi));
    }
}

void runtimes_print_table(const struct sysinfo *si, const struct runtimes_result *res)
{
    sysinfo_print_header(stdout, "runtimes", si);
    printf("each API timed in its runtime's own loop; 'harness' is that loop without the "
           "call (named below),\nsubtracted sample by sample from 'as timed' to give ns/call; "
           "'kernel': enters the kernel here, syscalls per call, counted\nas the doctor's "
           "proof counts them (seccomp)%s\n\n",
           res->counted ? "" : " -- not counted");
    if (sysinfo_busy(si))
        printf("note: load average %.2f on %d CPUs: other work shares these cores\n\n",
               si->loadavg_1m, si->cpus_online);
    printf("%-7s %-25s %9s %9s %9s %10s %7s %6s  %-18s %-11s %s\n", "runtime", "api",
           "ns/call", "harness", "as timed", "calls/s", "spread", "x ref", "clock", "path",
           "kernel");
    const char *last = "";
    for (int i = 0; i < res->nrows; i++) {
        const struct runtime_row *r = &res->rows[i];
        if (strcmp(r->runtime, last) != 0 && last[0])
            printf("\n");
        last = r->runtime;
        if (r->state != RT_READY)
            printf("%-7s %s: %s\n", r->runtime, state_name(r->state), r->why);
        else
            print_ready_row(r);
    }
    print_harnesses(res);
    print_references(res);
    if (!res->counted)
        printf("syscalls not counted: %s\n", res->count_why);
    /* Where the shim can help and where only the clocksource can. */
    bool any_direct = false;
    for (int i = 0; i < res->nrows; i++)
        any_direct |= res->rows[i].state == RT_READY && !shim_can_serve(res->rows[i].via) &&
                      strcmp(res->rows[i].via, "syscall") != 0;
    printf("where reading the time is slow: `clockscope run --mode auto` serves the paths "
           "through libc;%s\n",
           any_direct ? " Go reads the vDSO itself (vdso-direct): only the clocksource fix helps it"
                      : "");
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
            reference_sentence(&r->across, r->has_ref ? &r->refv : NULL, r->ref, said,
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
    json_end_object(&j);
    json_finish(&j);
}
