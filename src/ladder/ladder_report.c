/* SPDX-License-Identifier: MIT */
/* The ladder's text table and its clockscope.ladder/2 JSON (docs/json.md). */
#include "ladder/ladder_run.h"

#include "common/json_cost.h"
#include "common/text_wrap.h"
#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ladder_format_reduction(double reduction, const char *what, char *buf, size_t len)
{
    if (!isfinite(reduction))
        snprintf(buf, len, "not comparable with %s (not measured)", what);
    else if (reduction >= 0)
        snprintf(buf, len, "%.0f%% lower than %s", 100 * reduction, what);
    else /* slower: a ratio reads better than "-2400% lower" */
        snprintf(buf, len, "%.1fx %s (higher)", 1 - reduction, what);
}

static const char *placement_name(enum rung_placement p)
{
    static const char *const names[] = {"one_cpu", "same_cpu", "cross_cpu"};
    return names[p];
}

static const char *partner_name(enum rung_partner p)
{
    static const char *const names[] = {NULL, "thread", "process"};
    return names[p];
}

static void print_load(FILE *out, const struct ladder_run *r)
{
    fprintf(out, "load average (1 min) %.2f at the start, %.2f at the end, on %d CPUs%s\n",
             r->machine.loadavg_1m, r->loadavg_end, r->machine.cpus_online,
             sysinfo_busy(&r->machine) ? ": other work shares these CPUs, figures may be inflated"
                                       : "");
}

/* The rung column's width: the longest selected id, at most RUNG_COLUMN_MAX (a longer id
 * is shortened in the middle). */
#define RUNG_COLUMN_MAX 34

static int rung_column(const struct ladder_run *r)
{
    int w = 4; /* "rung" */
    for (size_t i = 0; i < r->nrungs; i++)
        if (r->selected[i] && r->rungs[i].available && (int)strlen(r->defs[i].id) > w)
            w = (int)strlen(r->defs[i].id);
    return w < RUNG_COLUMN_MAX ? w : RUNG_COLUMN_MAX;
}

/* Two spinners on one CPU hand over only when the scheduler preempts the one spinning: the
 * figure is a scheduler timeslice (a tick or two), not the handoff's cost.  Above this it
 * can be nothing else (a spin handoff on one CPU costs nothing near a millisecond). */
#define SPIN_ONE_CPU_TICK_NS 0.5e6

static bool tick_bound(const struct rung_result *x)
{
    return x->def->family == FAMILY_IPC && x->def->mech == MECH_SPIN &&
           x->cpu_b == x->cpu_a && x->ns.median >= SPIN_ONE_CPU_TICK_NS;
}

static void print_rung(FILE *out, const struct rung_result *x, int idw)
{
    char id[RUNG_ID_MAX + 8];
    text_middle_cut(x->def->id, idw, id, sizeof id);
    int idc = units_columns(idw, id);
    const char *kind = ladder_rung_unit(x->def);
    if (!x->measured) {
        fprintf(out, "%-*s %-10s %10s %10s %7s  FAILED: %s\n", idc, id, kind, "-", "-", "-",
                x->why);
        return;
    }
    char med[32], p99[32], cpus[32];
    units_format_ns(x->ns.median, med, sizeof med);
    units_format_ns(x->ns.p99, p99, sizeof p99);
    if (x->cpu_b >= 0)
        snprintf(cpus, sizeof cpus, "%d,%d", x->cpu_a, x->cpu_b);
    else
        snprintf(cpus, sizeof cpus, "%d", x->cpu_a);
    if (tick_bound(x)) {
        fprintf(out, "%-*s %-10s %10s %10s %7s  %s\n", idc, id, kind, "n/a", "n/a", "-", cpus);
        fprintf(out, "    ^ n/a: both sides spin on one CPU, so each handoff waits for the "
                     "scheduler to preempt the spinner (%s measured): a timeslice, not a cost\n",
                med);
        return;
    }
    fprintf(out, "%-*s %-10s %*s %*s %6.1f%%%s %s\n", idc, id, kind, units_columns(10, med), med,
            units_columns(10, p99), p99, 100 * x->ns.spread, x->noisy ? "*" : " ", cpus);
    if (x->across.bimodal) {
        char lo[32], hi[32];
        units_format_ns(x->across.low, lo, sizeof lo);
        units_format_ns(x->across.high, hi, sizeof hi);
        fprintf(out, "    ^ bimodal across processes: %s / %s (%zu and %zu of %zu): "
                "neither level is the figure\n", lo, hi, x->across.nlow, x->across.nhigh,
                x->across.n);
    }
}

static void print_rungs(FILE *out, const struct ladder_run *r)
{
    bool any_selected = false, any_unavailable = false;
    for (size_t i = 0; i < r->nrungs; i++)
        any_selected |= r->selected[i];
    if (!any_selected)
        return;
    int idw = rung_column(r);
    fprintf(out, "%-*s %-10s %10s %10s %7s  %s\n", idw, "rung", "kind", "median", "p99",
            "spread", "CPUs");
    bool noisy_call = false, noisy_trip = false;
    for (size_t i = 0; i < r->nrungs; i++) {
        if (!r->selected[i])
            continue;
        const struct rung_result *x = &r->rungs[i];
        if (!x->available)
            any_unavailable = true;
        else
            print_rung(out, x, idw);
        bool noisy = x->available && x->measured && x->noisy && !tick_bound(x);
        noisy_call |= noisy && x->def->family == FAMILY_CALL;
        noisy_trip |= noisy && x->def->family != FAMILY_CALL;
    }
    /* the one mark, said once (bench and runtimes mark rows the same way); a round trip's
     * single round trips spread by nature, so its mark says its median moved */
    if (noisy_call)
        fprintf(out, "* noisy: its samples spread more than %.0f%%: other work or a changing "
                     "CPU speed moved it\n", 100 * r->plan.rung_cfg.noisy_spread);
    if (noisy_trip)
        fprintf(out, "* noisy round_trip: its median moved more than %.0f%% between runners or "
                     "within one: other work or a changing CPU speed moved it\n",
                100 * r->plan.trip_cfg.noisy_shift);
    if (!any_unavailable)
        return;
    fprintf(out, "\nnot available here:\n");
    for (size_t i = 0; i < r->nrungs; i++)
        if (r->selected[i] && !r->rungs[i].available)
            fprintf(out, "  %s: %s\n", r->rungs[i].def->id, r->rungs[i].why);
}

static void print_matrix(FILE *out, const struct cpu_matrix *m)
{
    fprintf(out, "\ncache-line handoff between CPUs, one_way (half a round trip of one line; "
                 "row: the CPU that stores, column: the CPU that sees it):\n");
    if (!m->available) {
        fprintf(out, "  not available here: %s\n", m->why);
        return;
    }
    fprintf(out, "%8s", "");
    for (int k = 0; k < m->n; k++)
        fprintf(out, " %9d", m->cpus[k]);
    fprintf(out, "\n");
    for (int i = 0; i < m->n; i++) {
        fprintf(out, "%8d", m->cpus[i]);
        for (int k = 0; k < m->n; k++) {
            char v[32];
            const struct matrix_cell *c = &m->cell[i][k];
            if (i == k)
                snprintf(v, sizeof v, "-");
            else if (!c->measured)
                snprintf(v, sizeof v, "FAILED");
            else
                units_format_ns(c->one_way_ns, v, sizeof v);
            fprintf(out, " %*s", units_columns(9, v), v);
        }
        fprintf(out, "\n");
    }
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < m->n; k++)
            if (i != k && !m->cell[i][k].measured)
                fprintf(out, "  CPU %d -> %d: %s\n", m->cpus[i], m->cpus[k], m->cell[i][k].why);
    if (m->cpus_left_out > 0)
        fprintf(out, "  (the first %d CPUs; %d more left out)\n", m->n, m->cpus_left_out);
}

static void print_sweep_item(FILE *out, const struct sweep_row *row, int m)
{
    const struct sweep_item *it = &row->item[m];
    char label[40];
    snprintf(label, sizeof label, "%s (%s)", sweep_mode_name((enum sweep_mode)m),
             sweep_mode_server((enum sweep_mode)m));
    char clients[16];
    snprintf(clients, sizeof clients, "%d%s", row->clients, row->oversubscribed ? "+" : "");
    if (!it->measured) {
        fprintf(out, "%7s  %-17s FAILED: %s\n", m == 0 ? clients : "", label, it->why);
        return;
    }
    char p50[32], p99[32], scpu[32], ccpu[32];
    units_format_ns(it->p50_ns, p50, sizeof p50);
    units_format_ns(it->p99_ns, p99, sizeof p99);
    units_format_ns(it->server_cpu_ns_per_request, scpu, sizeof scpu);
    units_format_ns(it->client_cpu_ns_per_request, ccpu, sizeof ccpu);
    fprintf(out, "%7s  %-17s %*s %*s %10s %*s %*s %6.0f%% %7.2f\n", m == 0 ? clients : "",
            label, units_columns(10, p50), p50, units_columns(10, p99), p99,
            RATE_TEXT(it->throughput_per_s), units_columns(10, scpu), scpu,
            units_columns(10, ccpu), ccpu, 100 * it->server_cpu_share,
            it->server_sleeps_per_request);
}

/* A reduction as the latency ratio it implies ("28%"), or "-" when not measured. */
static void format_ratio(double reduction, char *buf, size_t len)
{
    if (isfinite(reduction))
        snprintf(buf, len, "%.0f%%", 100 * (1 - reduction));
    else
        snprintf(buf, len, "-");
}

static void print_sweep(FILE *out, const struct sweep *s)
{
    fprintf(out, "\nthe polling-server experiment (FlexIPC, Journal of Software 2025): N clients "
                 "-> one server pinned to its own CPU\n");
    if (!s->available) {
        fprintf(out, "  not available here: %s\n", s->why);
        return;
    }
    fprintf(out, "server on CPU %d, clients on CPU", s->server_cpu);
    for (int i = 0; i < s->nclient_cpus; i++)
        fprintf(out, "%s%d", i ? "," : " ", s->client_cpus[i]);
    fprintf(out, "; latency per request is a round_trip; CPU time per request from each "
                 "thread's CPU-time clock\n");
    fprintf(out, "%7s  %-17s %10s %10s %10s %10s %10s %7s %7s\n", "clients", "server", "p50",
            "p99", "requests", "srv CPU/rq", "cli CPU/rq", "srv busy", "sleeps/rq");
    bool over = false;
    for (int k = 0; k < s->nrows; k++) {
        const struct sweep_row *row = &s->row[k];
        over |= row->oversubscribed;
        for (int m = 0; m < SWEEP_MODES; m++)
            print_sweep_item(out, row, m);
        char vs_futex[64], vs_eventfd[64];
        ladder_format_reduction(row->reduction[SWEEP_FUTEX], "futex's", vs_futex, sizeof vs_futex);
        ladder_format_reduction(row->reduction[SWEEP_EVENTFD], "eventfd's", vs_eventfd,
                                sizeof vs_eventfd);
        fprintf(out, "%7s  poll's p50 is %s, %s\n", "", vs_futex, vs_eventfd);
    }
    if (over)
        fprintf(out, "  + oversubscribed: more clients than the %d client CPU%s\n",
                s->nclient_cpus, s->nclient_cpus == 1 ? "" : "s");
    fprintf(out, "  srv busy: the server thread's CPU time over the window (100%%: a core burnt); "
                 "sleeps/rq: its voluntary context switches per request\n");
    fprintf(out, "  published (FlexIPC): %.0f%% lower latency at low concurrency; at %d clients FlexIPC's "
                 "latency is %.0f%% of the original's (%.0f%% lower)\n",
            100 * PAPER_LOW_CONCURRENCY_REDUCTION, PAPER_HIGH_CONCURRENCY,
            100 * PAPER_AT_32_LATENCY_RATIO, 100 * (1 - PAPER_AT_32_LATENCY_RATIO));
    if (s->nrows > 0) {
        const struct sweep_row *lo = &s->row[0], *hi = &s->row[s->nrows - 1];
        char low[64], vs_futex[32], vs_eventfd[32];
        ladder_format_reduction(lo->reduction[SWEEP_FUTEX], "futex's", low, sizeof low);
        format_ratio(hi->reduction[SWEEP_FUTEX], vs_futex, sizeof vs_futex);
        format_ratio(hi->reduction[SWEEP_EVENTFD], vs_eventfd, sizeof vs_eventfd);
        fprintf(out, "  here: at %d client%s poll's p50 is %s (FlexIPC: %.0f%% lower); at %d "
                     "clients it is %s of futex's, %s of eventfd's (FlexIPC at %d: %.0f%%)\n",
                lo->clients, lo->clients == 1 ? "" : "s", low,
                100 * PAPER_LOW_CONCURRENCY_REDUCTION, hi->clients, vs_futex, vs_eventfd,
                PAPER_HIGH_CONCURRENCY, 100 * PAPER_AT_32_LATENCY_RATIO);
    }
}

static void print_text(FILE *out, const struct ladder_run *r)
{
    sysinfo_print_header(out, "ladder", &r->machine);
    if (r->plan.cpus.count > 1)
        fprintf(out, "side A (timed) on CPU %d, side B on CPU %d for cross_cpu", r->plan.cpu_a,
                r->plan.cpu_b);
    else
        fprintf(out, "side A (timed) on CPU %d, the only CPU available (no cross_cpu)",
                r->plan.cpu_a);
    const struct each_config *t = &r->plan.trip_cfg;
    fprintf(out, "; every thread pinned; calls: the engine, up to %d samples of >= %.1f ms, "
                 "loop cost subtracted; round trips: each timed alone, up to %d per runner "
                 "after %.0f ms of warm-up\n",
            r->plan.rung_cfg.samples, r->plan.rung_cfg.sample_target_ns / 1e6, t->count,
            t->warmup_ns / 1e6);
    print_load(out, r);
    fprintf(out, "\n");
    print_rungs(out, r);
    if (r->matrix_selected)
        print_matrix(out, &r->matrix);
    if (r->sweep_selected)
        print_sweep(out, &r->sweep);
    /* The kinds on a line of their own: fitting 100 columns, it does not wrap differently
     * as the time's digits change. */
    fprintf(out, "\ncall: from the call to its return; round_trip: from the request to the "
                 "answer; one_way: half of one.\n%.*f s in all.\n",
            r->elapsed_s < 1 ? 2 : 1, r->elapsed_s);
}

void ladder_print_text(FILE *out, const struct ladder_run *r)
{
    /* written whole, then folded to 100 columns (text_wrap.h) */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        print_text(out, r);
        return;
    }
    print_text(f, r);
    fclose(f);
    text_fold(out, text, TEXT_WIDTH);
    free(text);
}

/* --- JSON --- */

static void rung_json(struct json *j, const struct rung_result *x)
{
    const struct rung_def *d = x->def;
    json_begin_object(j);
    json_kv_string(j, "id", d->id);
    json_kv_string(j, "kind", ladder_kind_name(d->kind));
    const char *key = ladder_cost_key(d->kind);
    if (x->measured)
        json_cost(j, key, &x->ns, NULL, 0);
    else
        json_kv_null(j, key);
    json_kv_bool(j, "available", x->available);
    json_kv_string_or_null(j, "why_unavailable", x->available ? NULL : x->why);
    json_kv_string_or_null(j, "error", x->available && !x->measured ? x->why : NULL);
    json_kv_bool(j, "timed_out", x->timed_out);
    json_kv_string(j, "family", d->family == FAMILY_CALL ? "call" : "round_trip");
    json_kv_string(j, "mechanism", d->family == FAMILY_CALL ? d->method_id : mech_name(d->mech));
    json_kv_string(j, "partner", partner_name(d->partner));
    json_kv_string(j, "placement", placement_name(d->placement));
    json_kv_string(j, "description", d->description);
    json_key(j, "cpus");
    json_begin_array(j);
    if (x->available) {
        json_int(j, x->cpu_a);
        if (x->cpu_b >= 0)
            json_int(j, x->cpu_b);
    }
    json_end_array(j);
    if (x->measured) {
        json_kv_double(j, "spread", x->ns.spread);
        json_kv_bool(j, "noisy", x->noisy);
        json_kv_uint(j, "samples", x->samples);
        json_kv_uint(j, "preempted_samples", x->preempted_samples);
        if (d->family == FAMILY_CALL)
            json_kv_null(j, "round_trips");
        else
            json_kv_uint(j, "round_trips", x->round_trips);
        json_kv_double(j, "loop_ns", x->loop_ns);
        json_key(j, "across_processes");
        json_begin_object(j);
        json_kv_int(j, "count", (int)x->across.n);
        struct summary over = json_cost_unknown();
        over.median = x->across.median;
        over.min = x->across.min;
        over.max = x->across.max;
        json_cost(j, key, &over, NULL, 0);
        json_kv_double(j, "spread", x->across.spread);
        json_kv_bool(j, "bimodal", x->across.bimodal);
        json_key(j, "levels_ns");
        json_begin_array(j);
        if (x->across.bimodal) {
            json_double(j, x->across.low);
            json_double(j, x->across.high);
        }
        json_end_array(j);
        json_end_object(j);
        json_key(j, "processes_ns");
        json_begin_array(j);
        for (int k = 0; k < x->nproc; k++)
            json_double(j, x->proc_ns[k]);
        json_end_array(j);
    }
    json_kv_double(j, "elapsed_s", x->elapsed_s);
    json_end_object(j);
}

static void matrix_json(struct json *j, const struct cpu_matrix *m)
{
    json_begin_object(j);
    json_kv_string(j, "kind", "one_way");
    json_kv_bool(j, "available", m->available);
    json_kv_string_or_null(j, "why_unavailable", m->available ? NULL : m->why);
    json_key(j, "cpus");
    json_begin_array(j);
    for (int i = 0; i < m->n; i++)
        json_int(j, m->cpus[i]);
    json_end_array(j);
    /* cells[from][to]: the handoff's costs, or null (the same CPU, or not measured) */
    json_key(j, "cells");
    json_begin_array(j);
    for (int i = 0; m->available && i < m->n; i++) {
        json_begin_array(j);
        for (int k = 0; k < m->n; k++) {
            const struct matrix_cell *c = &m->cell[i][k];
            if (!c->measured) {
                json_null(j);
                continue;
            }
            json_begin_object(j);
            struct summary one_way = json_cost_unknown();
            one_way.median = c->one_way_ns;
            one_way.p99 = c->p99_one_way_ns;
            json_cost(j, ladder_cost_key(KIND_ONE_WAY), &one_way, NULL, 0);
            json_cost_median(j, ladder_cost_key(KIND_ROUND_TRIP), c->round_trip_ns);
            json_end_object(j);
        }
        json_end_array(j);
    }
    json_end_array(j);
    json_key(j, "errors");
    json_begin_array(j);
    for (int i = 0; m->available && i < m->n; i++)
        for (int k = 0; k < m->n; k++)
            if (i != k && !m->cell[i][k].measured) {
                json_begin_object(j);
                json_kv_int(j, "from", m->cpus[i]);
                json_kv_int(j, "to", m->cpus[k]);
                json_kv_string(j, "error", m->cell[i][k].why);
                json_end_object(j);
            }
    json_end_array(j);
    json_kv_int(j, "cpus_left_out", m->cpus_left_out);
    json_end_object(j);
}

static void sweep_item_json(struct json *j, const struct sweep_item *it, enum sweep_mode m)
{
    json_begin_object(j);
    json_kv_string(j, "mode", sweep_mode_name(m));
    json_kv_string(j, "server", sweep_mode_server(m));
    json_kv_string(j, "kind", "round_trip");
    json_kv_bool(j, "measured", it->measured);
    json_kv_string_or_null(j, "error", it->measured ? NULL : it->why);
    json_kv_bool(j, "timed_out", it->timed_out);
    bool ok = it->measured;
    if (ok) {
        struct summary trip = json_cost_unknown();
        trip.median = it->p50_ns;
        trip.p99 = it->p99_ns;
        json_cost(j, ladder_cost_key(KIND_ROUND_TRIP), &trip, NULL, 0);
    } else {
        json_kv_null(j, ladder_cost_key(KIND_ROUND_TRIP));
    }
    json_kv_uint(j, "requests", it->requests);
    json_kv_double(j, "window_s", ok ? it->window_s : NAN);
    json_kv_double(j, "throughput_per_s", ok ? it->throughput_per_s : NAN);
    json_kv_double(j, "server_cpu_ns_per_request", ok ? it->server_cpu_ns_per_request : NAN);
    json_kv_double(j, "client_cpu_ns_per_request", ok ? it->client_cpu_ns_per_request : NAN);
    json_kv_double(j, "server_cpu_share", ok ? it->server_cpu_share : NAN);
    json_kv_double(j, "server_sleeps_per_request", ok ? it->server_sleeps_per_request : NAN);
    json_end_object(j);
}

static void sweep_json(struct json *j, const struct sweep *s)
{
    json_key(j, "sweep");
    json_begin_array(j);
    for (int k = 0; k < s->nrows; k++) {
        const struct sweep_row *row = &s->row[k];
        json_begin_object(j);
        json_kv_int(j, "clients", row->clients);
        json_kv_bool(j, "oversubscribed", row->oversubscribed);
        json_key(j, "modes");
        json_begin_array(j);
        for (int m = 0; m < SWEEP_MODES; m++)
            sweep_item_json(j, &row->item[m], (enum sweep_mode)m);
        json_end_array(j);
        json_key(j, "reduction");
        json_begin_object(j);
        json_kv_double(j, "poll_vs_futex", row->reduction[SWEEP_FUTEX]);
        json_kv_double(j, "poll_vs_eventfd", row->reduction[SWEEP_EVENTFD]);
        json_end_object(j);
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "sweep_setup");
    json_begin_object(j);
    json_kv_bool(j, "available", s->available);
    json_kv_string_or_null(j, "why_unavailable", s->available ? NULL : s->why);
    if (s->available)
        json_kv_int(j, "server_cpu", s->server_cpu);
    else
        json_kv_null(j, "server_cpu");
    json_key(j, "client_cpus");
    json_begin_array(j);
    for (int i = 0; i < s->nclient_cpus; i++)
        json_int(j, s->client_cpus[i]);
    json_end_array(j);
    json_key(j, "paper");
    json_begin_object(j);
    json_kv_string(j, "source", "BankedIPC and FlexIPC on ChCore (Journal of Software, 2025)");
    json_kv_double(j, "low_concurrency_reduction", PAPER_LOW_CONCURRENCY_REDUCTION);
    json_kv_int(j, "high_concurrency_clients", PAPER_HIGH_CONCURRENCY);
    json_kv_double(j, "high_concurrency_latency_ratio", PAPER_AT_32_LATENCY_RATIO);
    json_end_object(j);
    json_end_object(j);
}

void ladder_print_json(FILE *out, const struct ladder_run *r)
{
    struct json j;
    json_init(&j, out, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.ladder/2");
    json_key(&j, "machine");
    json_begin_object(&j);
    sysinfo_json_fields(&j, &r->machine);
    /* how an idle CPU waits for a wake-up: part of every sleeping round trip */
    char driver[64], governor[64];
    sysinfo_cpuidle(driver, sizeof driver, governor, sizeof governor);
    json_kv_string_or_null(&j, "cpuidle_driver", driver);
    json_kv_string_or_null(&j, "cpuidle_governor", governor);
    json_end_object(&j);
    json_key(&j, "config");
    json_begin_object(&j);
    json_kv_bool(&j, "quick", r->plan.quick);
    json_kv_int(&j, "cpu_a", r->plan.cpu_a);
    json_kv_int(&j, "cpu_b", r->plan.cpu_b);
    json_kv_int(&j, "samples", r->plan.rung_cfg.samples);
    json_kv_double(&j, "sample_target_ns", r->plan.rung_cfg.sample_target_ns);
    json_kv_double(&j, "budget_ns", r->plan.rung_cfg.budget_ns);
    json_kv_double(&j, "timeout_s", r->plan.rung_timeout_s);
    json_kv_double(&j, "sweep_window_s", r->plan.sweep_seconds);
    json_end_object(&j);
    json_key(&j, "load");
    json_begin_object(&j);
    json_kv_double(&j, "loadavg_1m_start", r->machine.loadavg_1m >= 0 ? r->machine.loadavg_1m : NAN);
    json_kv_double(&j, "loadavg_1m_end", r->loadavg_end >= 0 ? r->loadavg_end : NAN);
    json_kv_int(&j, "cpus_online", r->machine.cpus_online);
    json_end_object(&j);
    json_key(&j, "rungs");
    json_begin_array(&j);
    for (size_t i = 0; i < r->nrungs; i++)
        if (r->selected[i])
            rung_json(&j, &r->rungs[i]);
    json_end_array(&j);
    if (r->sweep_selected) {
        sweep_json(&j, &r->sweep);
    } else {
        json_key(&j, "sweep");
        json_null(&j);
    }
    json_key(&j, "cpu_matrix");
    if (r->matrix_selected)
        matrix_json(&j, &r->matrix);
    else
        json_null(&j);
    json_kv_double(&j, "elapsed_s", r->elapsed_s);
    json_end_object(&j);
    json_finish(&j);
}
