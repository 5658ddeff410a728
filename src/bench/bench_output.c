/* SPDX-License-Identifier: MIT */
/* clockscope bench's output: the table or the JSON, printed from a run's result. */
#include "bench/bench_output.h"
#include "common/json_cost.h"
#include "common/message.h"
#include "common/text_wrap.h"
#include "common/units.h"
#include "measure/instability.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The id column: the longest id (syscall.clock_gettime.process_cputime_id) fits; a longer
 * one is shortened in the middle. */
#define BENCH_ID_COLUMNS 40

static void processes_json(struct json *j, const struct measure_runs *runs,
                           const struct across *a, const struct reference_verdict *v,
                           const struct method *ref, double spread)
{
    across_json(j, a);
    json_key(j, "processes");
    json_begin_array(j);
    for (int i = 0; i < runs->n; i++) {
        const struct measurement *p = &runs->proc[i];
        json_begin_object(j);
        if (p->ok) {
            json_cost(j, "ns_per_call", &p->ns_per_call, NULL, 0);
            json_kv_double(j, "spread", p->ns_per_call.spread);
            json_cost_median(j, "loop_ns_per_call", p->loop_ns_per_call);
            json_kv_uint(j, "samples", p->samples);
            if (p->has_ref) {
                json_cost_median(j, "reference_ns_per_call", p->ref_ns);
                json_kv_double(j, "relative", p->relative);
            } else {
                json_kv_null(j, "reference_ns_per_call");
                json_kv_null(j, "relative");
            }
        } else {
            json_kv_string(j, "error", p->error);
        }
        json_end_object(j);
    }
    json_end_array(j);
    /* The reference beside the figure (measure/reference.h), or null; what the run says. */
    json_key(j, "reference");
    if (v && v->n > 0 && ref) {
        json_begin_object(j);
        json_kv_string(j, "method", ref->id);
        reference_cost_json(j, v);
        json_kv_double(j, "relative", v->relative);
        json_kv_double(j, "relative_min", v->rel_min);
        json_kv_double(j, "relative_max", v->rel_max);
        json_kv_bool(j, "machine_speed_changed", v->moved);
        json_end_object(j);
    } else {
        json_null(j);
    }
    char said[MSG_REASON];
    struct reference_verdict shown = instability_shown(v, spread);
    json_kv_string_or_null(j, "verdict",
                           reference_sentence(a, &shown, ref ? ref->id : "", said, sizeof said) > 0
                               ? said : NULL);
}

static void result_json(struct json *j, const struct method *m, const struct measurement *r,
                        bool measured, const struct measure_runs *runs,
                        const struct across *a, const struct reference_verdict *v,
                        const struct method *ref)
{
    json_begin_object(j);
    json_kv_string(j, "id", m->id);
    json_kv_string(j, "path", m->path);
    json_kv_string(j, "api", m->api);
    json_kv_string(j, "clock", m->clock);
    json_kv_string(j, "description", m->description);
    json_kv_string(j, "value_unit", method_unit_name(m->unit));
    json_kv_bool(j, "available", m->available);
    json_kv_string(j, "why_unavailable", m->available ? NULL : m->why);
    if (measured && r->ok) {
        json_cost(j, "ns_per_call", &r->ns_per_call, r->kept,
                  r->nkept < MEASURE_KEEP_MAX ? r->nkept : MEASURE_KEEP_MAX);
        json_kv_double(j, "calls_per_sec", r->calls_per_sec);
        json_kv_double(j, "spread", r->ns_per_call.spread);
        json_kv_bool(j, "noisy", r->noisy);
        json_cost_median(j, "loop_ns_per_call", r->loop_ns_per_call);
        json_kv_uint(j, "calls_per_sample", r->calls_per_sample);
        json_kv_uint(j, "samples", r->samples);
        json_kv_uint(j, "preempted_samples", r->preempted_samples);
        json_kv_string(j, "timer", timer_clock_name(r->timer));
        json_kv_double(j, "elapsed_s", r->elapsed_ns / 1e9);
        json_key(j, "threads");
        json_begin_array(j);
        for (int t = 0; t < r->nthreads; t++) {
            json_begin_object(j);
            json_kv_int(j, "cpu", r->threads[t].cpu);
            json_cost(j, "ns_per_call", &r->threads[t].ns_per_call, NULL, 0);
            json_kv_double(j, "calls_per_sec", r->threads[t].calls_per_sec);
            json_end_object(j);
        }
        json_end_array(j);
        if (runs && a)
            processes_json(j, runs, a, v, ref, r->ns_per_call.spread);
    } else if (measured) {
        json_kv_string(j, "error", r->error);
    }
    json_end_object(j);
}

static void print_header(const struct sysinfo *si, const struct bench_options *o,
                         const struct measure_config *cfg, int nproc)
{
    printf("%d thread%s pinned to CPU", o->threads, o->threads == 1 ? "" : "s");
    for (int i = 0; i < o->threads; i++)
        printf("%s%d", i ? "," : " ", o->cpus.cpu[i]);
    if (nproc > 1)
        printf("; %d worker processes of up to %d samples of >= %.1f ms each:\n"
               "the figure is the median over processes, the spread the larger of across and "
               "within them;\nempty-loop cost subtracted (column 'loop')\n\n",
               nproc, cfg->samples, cfg->sample_target_ns / 1e6);
    else
        printf("; up to %d samples of >= %.1f ms;\nempty-loop cost subtracted (column 'loop')\n\n",
               cfg->samples, cfg->sample_target_ns / 1e6);
    if (cfg->reference)
        printf("'x ref': ns/call over %s timed after each sample,\nthe figure that holds when "
               "this machine's speed changes\n\n", cfg->reference->id);
    if (sysinfo_busy(si))
        printf("note: load average %.2f on %d CPUs: other work shares these cores, so figures "
               "may be\n      inflated (samples the thread was preempted in are retaken; "
               "contention below the\n      OS, e.g. a busy SMT sibling, cannot be)\n\n",
               si->loadavg_1m, si->cpus_online);
    printf("%-*s %9s  %11s %7s  %6s %6s  %s\n", BENCH_ID_COLUMNS, "id", "ns/call", "calls/s",
           "spread", "loop", "x ref", "path");
}

/* Unavailable methods, printed after the table grouped by reason: one line per reason. */
static void print_unavailable(const struct bench_result *r)
{
    bool shown[METHODS_MAX] = {false};
    bool header = false;
    for (size_t i = 0; i < r->nsel; i++) {
        const struct method *m = r->sel[i];
        if (shown[i] || m->available)
            continue;
        if (!header)
            printf("\nnot available here:\n");
        header = true;
        size_t same = 0;
        const char *last = m->id;
        for (size_t k = i; k < r->nsel; k++)
            if (!shown[k] && !r->sel[k]->available && strcmp(r->sel[k]->why, m->why) == 0) {
                shown[k] = true;
                same++;
                last = r->sel[k]->id;
            }
        if (same == 1)
            printf("  %s: %s\n", m->id, m->why);
        else
            printf("  %s .. %s (%zu methods): %s\n", m->id, last, same, m->why);
    }
}

/* The 'x ref' cell: the figure over the reference timed beside it, or "-". */
static const char *ratio_cell(const struct reference_verdict *v)
{
    static char buf[16];
    if (!v || v->n == 0)
        return "-";
    snprintf(buf, sizeof buf, "%.3f", v->relative);
    return buf;
}

/* The id in its column: one longer than the column keeps its head and tail around "…". */
static const char *id_cell(const char *id, char *buf, size_t len)
{
    return text_middle_cut(id, BENCH_ID_COLUMNS, buf, len);
}

/* A row; its mark (measure/instability.h) counted in st.  With --verbose, the sentence
 * of a marked or two-level row under it. */
static void print_row(const struct bench_row *w, const struct method *ref, bool verbose,
                      struct instability *st)
{
    const struct method *m = w->m;
    const struct measurement *r = &w->res;
    const struct across *a = w->runs ? &w->acr : NULL;
    char idb[2 * BENCH_ID_COLUMNS];
    const char *id = id_cell(m->id, idb, sizeof idb);
    int idw = units_columns(BENCH_ID_COLUMNS, id);
    if (!m->available)
        return; /* listed by print_unavailable */
    if (!r->ok) {
        printf("%-*s %9s  %11s %7s  %6s %6s  %s: %s\n", idw, id, "-", "-", "-", "-", "-",
               m->path, r->error);
        return;
    }
    bool bimodal = a && a->bimodal;
    bool marked = instability_add(st, &w->refv, r->ns_per_call.spread, r->noisy, bimodal);
    char rate[FORMAT_NS_MAX], ns[FORMAT_NS_MAX], loop[FORMAT_NS_MAX], spread[16];
    units_format_rate(r->calls_per_sec, rate, sizeof rate);
    units_format_ns_number(r->loop_ns_per_call, loop, sizeof loop);
    /* Two levels: neither is the figure (docs/METHODOLOGY.md, "Across processes"); the
     * lower is shown with '~', both are in the JSON. */
    units_format_ns_number(bimodal ? a->low : r->ns_per_call.median, ns, sizeof ns);
    printf("%-*s %9s%c %11s %8s %6s %6s  %s\n", idw, id, ns, bimodal ? '~' : ' ', rate,
           instability_spread_cell(r->ns_per_call.spread, marked, spread, sizeof spread), loop,
           ratio_cell(&w->refv), m->path);
    struct reference_verdict shown = instability_shown(&w->refv, r->ns_per_call.spread);
    char said[MSG_REASON];
    if (verbose && reference_sentence(a, &shown, ref ? ref->id : "", said, sizeof said) > 0) {
        text_wrap(stdout, "", said, 4, 6, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
}

void bench_output_list(const struct bench_result *r)
{
    if (r->o->json) {
        struct json j;
        json_init(&j, stdout, 2);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.bench.list/1");
        json_key(&j, "methods");
        json_begin_array(&j);
        for (size_t i = 0; i < r->nsel; i++)
            result_json(&j, r->sel[i], NULL, false, NULL, NULL, NULL, NULL);
        json_end_array(&j);
        json_end_object(&j);
        json_finish(&j);
        return;
    }
    for (size_t i = 0; i < r->nsel; i++) {
        const struct method *m = r->sel[i];
        printf("%-40s %s\n", m->id, m->available ? m->description : m->why);
    }
}

/* Whether fastclock.* rows measured the counter or the kernel clock (it falls back to the
 * kernel when the counter is unsafe, and before its cross-CPU check has passed): said with
 * the rows, as of the end of the run, whenever one was selected. */
static void report_fastclock_source(const struct bench_result *r, struct json *j)
{
    if (!r->fastclock_selected)
        return;
    const char *counter = r->fastclock_counter, *why = r->fastclock_why;
    bool on_counter = r->fastclock_on_counter;
    if (j) {
        json_key(j, "fastclock");
        json_begin_object(j);
        json_kv_string(j, "source", on_counter ? "counter" : "kernel");
        json_kv_string(j, "counter", counter);
        json_kv_string(j, "why", why);
        json_end_object(j);
        return;
    }
    char said[MSG_REASON];
    snprintf(said, sizeof said, "fastclock.* read %s at the end of the run: %s",
             on_counter ? counter : "the kernel clock", why);
    printf("\n");
    text_wrap(stdout, "", said, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
}

/* The document's head: schema, machine, the run's configuration (results follow). */
static void json_preamble(struct json *j, const struct sysinfo *si, const struct bench_options *o,
                          const struct measure_config *cfg, int nproc)
{
    json_init(j, stdout, 2);
    json_begin_object(j);
    json_kv_string(j, "schema", "clockscope.bench/2");
    json_key(j, "machine");
    sysinfo_json(j, si);
    json_key(j, "config");
    json_begin_object(j);
    json_kv_bool(j, "quick", o->quick);
    json_kv_int(j, "threads", o->threads);
    json_key(j, "cpus");
    json_begin_array(j);
    for (int i = 0; i < o->threads; i++)
        json_int(j, o->cpus.cpu[i]);
    json_end_array(j);
    json_kv_int(j, "samples", cfg->samples);
    json_kv_int(j, "processes", nproc);
    json_kv_int(j, "min_samples", cfg->min_samples);
    json_kv_double(j, "sample_target_ns", cfg->sample_target_ns);
    json_kv_double(j, "warmup_ns", cfg->warmup_ns);
    json_kv_double(j, "budget_ns", cfg->budget_ns);
    json_kv_double(j, "noisy_spread", cfg->noisy_spread);
    json_key(j, "gaps_ns");
    json_begin_array(j);
    for (int i = 0; i < o->gap.gaps.count; i++)
        json_uint(j, o->gap.gaps.item[i].gap_ns);
    json_end_array(j);
    json_end_object(j);
}

void bench_output_table(const struct bench_result *r, struct json *j)
{
    const struct bench_options *o = r->o;
    if (o->json) {
        json_preamble(j, &r->si, o, &r->cfg, r->nproc);
        json_kv_string(j, "answer", r->answer[0] ? r->answer : NULL);
        json_key(j, "results");
        json_begin_array(j);
    } else {
        sysinfo_print_header(stdout, "bench", &r->si);
        if (r->hot_loop && r->answer[0]) {
            text_wrap(stdout, "", r->answer, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
            printf("\n");
        }
        if (r->hot_loop)
            print_header(&r->si, o, &r->cfg, r->nproc);
    }
    struct instability st;
    instability_init(&st, r->cfg.noisy_spread);
    for (size_t i = 0; i < r->nrows; i++) {
        const struct bench_row *w = &r->rows[i];
        const struct across *a = w->runs ? &w->acr : NULL;
        if (o->json) {
            result_json(j, w->m, &w->res, w->m->available, w->runs, a, &w->refv,
                        r->cfg.reference);
            if (w->m->available && w->res.ok)
                instability_add(&st, &w->refv, w->res.ns_per_call.spread, w->res.noisy,
                                a && a->bimodal);
        } else {
            print_row(w, r->cfg.reference, o->verbose, &st);
        }
    }
    /* What may have moved the marked figures, said once (measure/instability.h). */
    struct instability_machine mach;
    instability_read_machine("", r->si.virtualization, r->si.loadavg_1m, r->si.cpus_online,
                             &mach);
    if (o->json) {
        json_end_array(j);
        instability_json(j, &st, &mach);
    } else {
        instability_print(stdout, &st, &mach);
        print_unavailable(r);
    }
}

bool bench_output_end(const struct bench_result *r, struct json *j)
{
    report_fastclock_source(r, r->o->json ? j : NULL);
    if (r->o->json) {
        json_kv_double(j, "elapsed_s", r->elapsed_s);
        json_end_object(j);
        json_finish(j);
    } else {
        printf("\n%zu methods in %.1f s.\n", r->nsel, r->elapsed_s);
    }
    /* A full disk or a closed stdout must not pass for a result. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "clockscope bench: cannot write the results to standard output\n");
        return false;
    }
    return true;
}
