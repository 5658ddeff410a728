/* SPDX-License-Identifier: MIT */
#include "bench/bench_gap.h"
#include "common/message.h"
#include "common/progress.h"
#include "common/units.h"

#include "measure/sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool bench_gap_any_sparse(const struct gap_list *g)
{
    for (int i = 0; i < g->count; i++)
        if (g->item[i].gap_ns)
            return true;
    return false;
}

static uint32_t reads_for(const struct bench_gap_options *o, const struct gap_item *it)
{
    return it->reads ? it->reads : o->reads ? o->reads : gap_default_reads(it->gap_ns);
}

/* ns in the digits of units_format_ns (the unit is in the header); "-" when not measured. */
static void cell(double ns)
{
    printf(" %8s", units_format_ns_number(ns, (char[FORMAT_NS_MAX]){0}, FORMAT_NS_MAX));
}

static void dist_cells(const struct sparse_dist *d)
{
    cell(d->p50);
    cell(d->p99);
    cell(d->p999);
    cell(d->max);
    cell(d->min);
}

static void print_bracket(const struct bracket *b)
{
    if (b->kind == BRACKET_KIND_COUNTER)
        printf("bracket: %s at %.3f MHz (rate measured against CLOCK_MONOTONIC_RAW at the start "
               "and the end: %.0f ppm apart)\n", b->name, (b->hz_start + b->hz_end) / 2e6,
               read_bracket_rate_disagreement_ppm(b));
    else if (b->why[0])
        printf("bracket: %s (the counter is not used: %s; --bracket counter forces it)\n",
               b->name, b->why);
    else
        printf("bracket: %s\n", b->name);
}

static void print_intro(const struct bracket *b, int cpu)
{
    printf("\nsparse reads: 1 thread pinned to CPU %d; each round sleeps the gap, then reads "
           "one method twice; a method's rounds\ncome in blocks of 20 (after 2 warm-up "
           "rounds), the methods taking turns block by block, so its reads\nare one gap "
           "apart with no other method's between: cold = its first read after the sleep, "
           "hot = the\nread right after it.  Each read is timed alone; the empty bracket's "
           "median (row 'bracket') is\nsubtracted.  Preempted rounds are retaken.  A method "
           "that keeps state between reads (fastclock)\nwarms up for as long as it takes to "
           "settle when its block follows an idle spell.\n", cpu);
    print_bracket(b);
}

static void print_gap(const struct sparse_gap *g)
{
    char gap[32];
    gap_format(g->gap_ns, gap, sizeof gap);
    printf("\ngap %s: %zu of %u reads kept per method (%d warm-up per block, %zu preempted rounds "
           "discarded), "
           "%.2f s\n", gap, g->rounds_kept, g->reads_wanted, g->warmup_rounds,
           g->rounds_preempted, g->elapsed_ns / 1e9);
    for (size_t i = 0; i < g->nmethods; i++)
        if (g->methods[i].settled_blocks)
            printf("  %s: %u of its blocks followed an idle spell: %u warm-up rounds in all, "
                   "to settle\n", g->methods[i].m->id, g->methods[i].settled_blocks,
                   g->methods[i].warmup_rounds);
    printf("%-40s %-45s  %s\n", "ns per read, net of the bracket",
           "   cold: the first read after the sleep", "   hot: the read right after it");
    printf("%-40s", "id");
    for (int k = 0; k < 2; k++)
        printf(" %8s %8s %8s %8s %8s%s", "p50", "p99", "p99.9", "max", "min", k ? "" : "  ");
    printf("\n%-40s", "bracket (empty; median subtracted)");
    dist_cells(&g->bracket_cold);
    printf("  ");
    dist_cells(&g->bracket_hot);
    printf("\n");
    for (size_t i = 0; i < g->nmethods; i++) {
        printf("%-40s", g->methods[i].m->id);
        dist_cells(&g->methods[i].cold);
        printf("  ");
        dist_cells(&g->methods[i].hot);
        printf("\n");
    }
}

static void dist_json(struct json *j, const char *key, const struct sparse_dist *d)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_uint(j, "reads", d->n);
    json_kv_double(j, "p50", d->p50);
    json_kv_double(j, "p99", d->p99);
    json_kv_double(j, "p999", d->p999);
    json_kv_double(j, "max", d->max);
    json_kv_double(j, "min", d->min);
    json_kv_double(j, "mean", d->mean);
    json_end_object(j);
}

static void gap_json(struct json *j, const struct sparse_gap *g)
{
    json_begin_object(j);
    json_kv_uint(j, "gap_ns", g->gap_ns);
    json_kv_uint(j, "reads_wanted", g->reads_wanted);
    json_kv_uint(j, "rounds", g->rounds_kept);
    json_kv_uint(j, "preempted_rounds", g->rounds_preempted);
    json_kv_int(j, "warmup_rounds", g->warmup_rounds);
    json_kv_double(j, "elapsed_s", g->elapsed_ns / 1e9);
    json_key(j, "bracket");
    json_begin_object(j);
    dist_json(j, "cold", &g->bracket_cold);
    dist_json(j, "hot", &g->bracket_hot);
    json_end_object(j);
    json_key(j, "methods");
    json_begin_array(j);
    for (size_t i = 0; i < g->nmethods; i++) {
        json_begin_object(j);
        json_kv_string(j, "id", g->methods[i].m->id);
        json_kv_uint(j, "warmup_rounds", g->methods[i].warmup_rounds);
        json_kv_uint(j, "settled_blocks", g->methods[i].settled_blocks);
        dist_json(j, "cold", &g->methods[i].cold);
        dist_json(j, "hot", &g->methods[i].hot);
        json_end_object(j);
    }
    json_end_array(j);
    json_end_object(j);
}

static void bracket_json(struct json *j, const struct bracket *b)
{
    json_key(j, "bracket");
    json_begin_object(j);
    json_kv_string(j, "kind", b->kind == BRACKET_KIND_COUNTER ? "counter" : "clock");
    json_kv_string(j, "name", b->name);
    json_kv_string(j, "counter_not_used_because", b->why[0] ? b->why : NULL);
    if (b->kind == BRACKET_KIND_COUNTER) {
        json_kv_double(j, "hz_start", b->hz_start);
        json_kv_double(j, "hz_end", b->hz_end);
        json_kv_double(j, "rate_disagreement_ppm", read_bracket_rate_disagreement_ppm(b));
    } else {
        json_kv_null(j, "hz_start");
        json_kv_null(j, "hz_end");
        json_kv_null(j, "rate_disagreement_ppm");
    }
    json_end_object(j);
}

/* The methods that can be read once on their own; the others are named in `skipped`. */
static size_t supported(const struct method *const *sel, size_t n, const struct method **out,
                        const struct method **skipped, size_t *nskipped)
{
    size_t k = 0;
    *nskipped = 0;
    for (size_t i = 0; i < n; i++) {
        if (sparse_method_supported(sel[i]))
            out[k++] = sel[i];
        else if (sel[i]->available)
            skipped[(*nskipped)++] = sel[i];
    }
    return k;
}

static void emit(struct json *j, const struct bracket *b, const struct sparse_gap *gaps,
                 int ngaps, const struct method *const *skipped, size_t nskipped, int cpu)
{
    if (j) {
        json_key(j, "sparse");
        json_begin_object(j);
        json_kv_int(j, "cpu", cpu);
        bracket_json(j, b);
        json_key(j, "not_measured");
        json_begin_array(j);
        for (size_t i = 0; i < nskipped; i++)
            json_string(j, skipped[i]->id);
        json_end_array(j);
        json_key(j, "gaps");
        json_begin_array(j);
        for (int i = 0; i < ngaps; i++)
            gap_json(j, &gaps[i]);
        json_end_array(j);
        json_end_object(j);
        return;
    }
    print_intro(b, cpu);
    for (int i = 0; i < ngaps; i++)
        print_gap(&gaps[i]);
    if (nskipped) {
        printf("\nnot measured with --gap (no single-read form):");
        for (size_t i = 0; i < nskipped; i++)
            printf("%s %s", i ? "," : "", skipped[i]->id);
        printf("\n");
    }
}

double bench_gap_sleep_s(const struct bench_gap_options *o, size_t nm)
{
    double s = 0;
    for (int i = 0; i < o->gaps.count; i++)
        s += (double)reads_for(o, &o->gaps.item[i]) * (double)(nm + 1) *
             (double)o->gaps.item[i].gap_ns / 1e9;
    return s;
}

/* Progress inside one gap: the sleep still ahead is known (reads left x gap). */
struct gap_tick {
    struct progress *pg;
    const char *gap;
    double before_s, total_s, after_s, gap_s; /* sleep of the gaps done, all, the gaps after */
};

static void gap_tick(void *ctx, size_t kept, size_t wanted)
{
    struct gap_tick *t = ctx;
    double left = (double)(wanted - kept) * t->gap_s + t->after_s;
    double done = t->before_s + (double)kept * t->gap_s;
    progress_say(t->pg, t->total_s > 0 ? done / t->total_s : 0, left * 1.1,
                 "sparse reads %s apart: %zu of %zu", t->gap, kept, wanted);
}

int bench_gap_run(const struct method *const *sel, size_t n, const struct bench_gap_options *o,
                  int cpu, struct json *j, struct progress *pg)
{
    static const struct method *ms[METHODS_MAX], *skipped[METHODS_MAX];
    size_t nskipped;
    size_t nm = supported(sel, n, ms, skipped, &nskipped);
    char err[MSG_REASON];
    struct bracket b;
    if (!read_bracket_open(o->bracket, &b, err, sizeof err)) {
        fprintf(stderr, "clockscope bench: %s\n", err);
        return 1;
    }
    struct sparse_gap gaps[GAP_LIST_MAX];
    int ngaps = 0;
    int status = 0;
    double total_s = bench_gap_sleep_s(o, nm), before_s = 0;
    for (int i = 0; i < o->gaps.count; i++) {
        const struct gap_item *it = &o->gaps.item[i];
        if (!it->gap_ns)
            continue;
        char g[32];
        gap_format(it->gap_ns, g, sizeof g);
        double this_s = (double)reads_for(o, it) * (double)(nm + 1) * (double)it->gap_ns / 1e9;
        struct gap_tick t = {.pg = pg, .gap = g, .before_s = before_s, .total_s = total_s,
                             .after_s = total_s - before_s - this_s,
                             .gap_s = (double)it->gap_ns / 1e9};
        gap_tick(&t, 0, (size_t)reads_for(o, it) * (nm + 1));
        if (!sparse_measure_gap(ms, nm, &b, it->gap_ns, reads_for(o, it), &gaps[ngaps], err,
                                sizeof err, pg && pg->on ? gap_tick : NULL, &t)) {
            fprintf(stderr, "clockscope bench: gap %llu ns: %s\n",
                    (unsigned long long)it->gap_ns, err);
            status = 1;
            before_s += this_s;
            continue;
        }
        before_s += this_s;
        ngaps++;
    }
    progress_clear(pg);
    read_bracket_calibrate_end(&b);
    for (int i = 0; i < ngaps; i++)
        sparse_gap_summarize(&gaps[i], read_bracket_ns_per_tick(&b));
    emit(j, &b, gaps, ngaps, skipped, nskipped, cpu);
    for (int i = 0; i < ngaps; i++)
        sparse_gap_free(&gaps[i]);
    return status;
}
