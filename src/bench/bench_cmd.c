/* SPDX-License-Identifier: MIT */
/* clockscope bench: the cost of every way of reading the time on this machine. */
#include "commands.h"
#include "bench/bench_answer.h"
#include "bench/bench_gap.h"
#include "bench/bench_workers.h"
#include "common/cli.h"
#include "common/cpuset.h"
#include "common/json.h"
#include "common/progress.h"
#include "common/subprocess.h"
#include "facts/sysinfo.h"
#include "measure/clocks.h"
#include "measure/engine.h"
#include "measure/method.h"
#include "measure/sparse.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATTERNS 32

struct bench_options {
    bool quick, json, list, progress;
    int threads;
    const char *cpus_arg;
    struct cpu_list allowed, cpus;
    int samples;
    int processes; /* --processes (0: as many as the budget holds) */
    const char *patterns[MAX_PATTERNS];
    int npatterns;
    const char *clock_names[16];
    int nclock_names;
    const struct clock_info *clocks[16];
    int nclocks;
    const char *gap_arg;
    int reads, bracket; /* --reads (0: not given), --bracket (index in bracket_names, -1) */
    struct bench_gap_options gap; /* --gap, --reads, --bracket (bench_gap.c) */
};

static const char help[] =
    "usage: clockscope bench [options]\n"
    "\n"
    "Measures what each way of reading the time costs on this machine: libc calls\n"
    "(libc.*), the vDSO entry points called directly (vdso.*), raw syscalls (syscall.*), raw\n"
    "counters under each ordering (counter.*), libfastclock's reads (fastclock.*), and\n"
    "reference rungs (ref.*: an empty call, getppid).  Ids are <path>.<api>[.<clock>];\n"
    "--list shows them all.\n"
    "\n"
    "options:\n"
    "  --quick            fewer, shorter samples (about 1 s in all; the default: about 3 s)\n"
    "  --threads N        N threads at once, each pinned to its own CPU: per-call cost and\n"
    "                     aggregate calls/sec (shows paths that serialize)\n"
    "  --cpus LIST        CPUs to pin to, e.g. 0 or 0,2-3 (default: the current CPU, or the\n"
    "                     first N allowed CPUs with --threads N)\n"
    "  --only GLOBS       only ids matching these comma-separated globs, e.g. 'libc.*,counter.*'\n"
    "  --clock NAMES      only these clocks for clock_* methods, e.g. monotonic,realtime\n"
    "  --samples N        samples per method in all (default 41, quick 15), shared among\n"
    "                     the processes\n"
    "  --processes N      worker processes to take the figures in, one after the other (default:\n"
    "                     the samples over the engine's minimum: 41 / 7 = 5, quick 15 / 5 = 3);\n"
    "                     1 measures in this process.  The figure is the median over\n"
    "                     processes, each with its own memory layout\n"
    "  --gap LIST         read patterns: gaps between reads, e.g. 0,1ms,20ms,150ms,1s:30\n"
    "                     (units ns, us, ms, s; ':N' sets that gap's reads).  0 is the hot\n"
    "                     loop above; any other gap times each read alone after sleeping the\n"
    "                     gap: per-read p50, p99, p99.9, max, min, cold and hot, for all the\n"
    "                     methods side by side (docs/METHODOLOGY.md, 'Sparse reads')\n"
    "  --reads N          reads per method at each gap without ':N' (default 200, at most\n"
    "                     10 s / gap, at least 10).  Each read sleeps the gap first, one method\n"
    "                     at a time, so a gap takes (methods + 1) x reads x gap: with every\n"
    "                     method (about 50), 1ms takes 10 s, 20ms 3 min, 150ms 8 min; narrow\n"
    "                     it with --only.  bench says the estimate before it starts\n"
    "  --bracket KIND     timer around each sparse read: auto (default: the ordered counter\n"
    "                     when the CPU promises a constant rate, else CLOCK_MONOTONIC_RAW),\n"
    "                     counter, clock\n"
    "  --progress         say what is measured and how long is left on stderr even when it is\n"
    "                     not a terminal (on a terminal it always does)\n"
    "  --list             list the methods and whether each can run here; measure nothing\n"
    "  --json             machine-readable output (schema: docs/json.md)\n"
    "  --help             this text\n"
    "\n"
    "Method: warm-up; unrolled batches of calls; the empty loop's cost measured between\n"
    "samples and subtracted (both shown); median, p10, p90, p99, min; spread = (p90-p10)/median,\n"
    "and a result with spread above 10% is marked noisy.  Timer: CLOCK_MONOTONIC_RAW\n"
    "(CLOCK_MONOTONIC for methods that read MONOTONIC_RAW).  docs/METHODOLOGY.md has the detail.\n";

/* --clock NAME: a clock this build knows (clock_by_name takes names and macros). */
static bool known_clock(void *opts, const char *name, char *err, size_t errlen)
{
    (void)opts;
    if (clock_by_name(name))
        return true;
    const struct clock_info *all;
    size_t na = clocks_all(&all);
    char known[400] = "";
    for (size_t k = 0; k < na; k++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                 all[k].name);
    cli_not_one_of(err, errlen, name, known);
    return false;
}

/* --gap LIST: parsed into the options' gap list (gap_list.c). */
static bool gap_check(void *opts, const char *value, char *err, size_t errlen)
{
    struct bench_options *o = opts;
    return gap_list_parse(value, strlen(value), &o->gap.gaps, err, errlen);
}

static const char *const bracket_names[] = {"auto", "counter", "clock", NULL};

static const struct cli_option bench_decl[] = {
    {.name = "quick", CLI_FLAG_OF(struct bench_options, quick)},
    {.name = "threads", .metavar = "N", 
     CLI_UINT_OF(struct bench_options, threads, 1, CPUSET_MAX),
     CLI_MAX_FROM(struct bench_options, allowed.count), .max_note = "the CPUs this process may use"},
    {.name = "cpus", .metavar = "LIST", CLI_STRING_OF(struct bench_options, cpus_arg)},
    {.name = "only", .metavar = "GLOBS", CLI_LIST_OF(struct bench_options, patterns, npatterns)},
    {.name = "clock", .metavar = "NAMES", .check = known_clock,
     CLI_LIST_OF(struct bench_options, clock_names, nclock_names)},
    {.name = "samples", .metavar = "N", CLI_UINT_OF(struct bench_options, samples, 3, 1000)},
    {.name = "processes", .metavar = "N", CLI_UINT_OF(struct bench_options, processes, 1, ACROSS_MAX)},
    {.name = "list", CLI_FLAG_OF(struct bench_options, list)},
    {.name = "progress", CLI_FLAG_OF(struct bench_options, progress)},
    {.name = "json", CLI_FLAG_OF(struct bench_options, json)},
    {.name = "gap", .metavar = "LIST", .check = gap_check, CLI_STRING_OF(struct bench_options, gap_arg)},
    {.name = "reads", .metavar = "N", .needs = "gap",
     CLI_UINT_OF(struct bench_options, reads, 1, GAP_READS_MAX)},
    {.name = "bracket", .metavar = "KIND", .needs = "gap",
     CLI_ENUM_OF(struct bench_options, bracket, bracket_names)},
    {0},
};

const struct cli_spec bench_cli = {.cmd = "bench", .help = help, .options = bench_decl};

static void parse_args(int argc, char **argv, struct bench_options *o)
{
    memset(o, 0, sizeof *o);
    cli_cpus_allowed("bench", &o->allowed);
    const struct cpu_list allowed = o->allowed;
    o->threads = 1;
    o->bracket = -1;
    cli_parse(&bench_cli, argc, argv, o);
    for (int i = 0; i < o->nclock_names; i++)
        o->clocks[o->nclocks++] = clock_by_name(o->clock_names[i]);
    const char *cpus_arg = o->cpus_arg;
    bool reads_given = o->reads > 0, bracket_given = o->bracket >= 0;
    o->gap.reads = (uint32_t)o->reads;
    if (bracket_given)
        read_bracket_request_parse(bracket_names[o->bracket], &o->gap.bracket);
    if ((reads_given || bracket_given) && !bench_gap_any_sparse(&o->gap.gaps))
        usage_error("bench", "%s needs --gap with a gap other than 0",
                    reads_given ? "--reads" : "--bracket");
    if (o->threads > 1 && bench_gap_any_sparse(&o->gap.gaps))
        usage_error("bench", "--gap measures sparse reads on one thread: drop --threads");
    if (cpus_arg) {
        cli_parse_cpus("bench", cpus_arg, &allowed, &o->cpus);
        if (o->cpus.count < o->threads)
            usage_error("bench", "--cpus names %d CPU%s but --threads is %d", o->cpus.count,
                        o->cpus.count == 1 ? "" : "s", o->threads);
    } else if (o->threads == 1) {
        int cur = sched_getcpu();
        o->cpus.count = 1;
        o->cpus.cpu[0] = cpuset_contains(&allowed, cur) ? cur : allowed.cpu[0];
    } else {
        o->cpus = allowed;
    }
}

static bool selected(const struct bench_options *o, const struct method *m)
{
    if (o->nclocks && m->clock) {
        bool found = false;
        for (int i = 0; i < o->nclocks; i++)
            found |= strcmp(o->clocks[i]->name, m->clock) == 0;
        if (!found)
            return false;
    }
    return !o->npatterns || cli_matches_any(o->patterns, o->npatterns, m->id);
}

static void format_rate(double per_sec, char *buf, size_t len)
{
    if (!isfinite(per_sec))
        snprintf(buf, len, "-");
    else if (per_sec >= 1e9)
        snprintf(buf, len, "%.2f G", per_sec / 1e9);
    else if (per_sec >= 1e6)
        snprintf(buf, len, "%.2f M", per_sec / 1e6);
    else if (per_sec >= 1e3)
        snprintf(buf, len, "%.1f k", per_sec / 1e3);
    else
        snprintf(buf, len, "%.0f", per_sec);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summary_json(struct json *j, const char *key, const struct summary *s,
                         const double *samples, size_t kept)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_double(j, "median", s->median);
    json_kv_double(j, "p10", s->p10);
    json_kv_double(j, "p90", s->p90);
    json_kv_double(j, "p99", s->p99);
    json_kv_double(j, "min", s->min);
    json_kv_double(j, "max", s->max);
    json_kv_double(j, "mean", s->mean);
    /* The samples ascending, evenly thinned to at most JSON_SAMPLES: enough for the report's
     * bootstrap of a median, a bundle of bounded size. */
    enum { JSON_SAMPLES = 256 };
    double sorted[MEASURE_KEEP_MAX];
    size_t n = kept < MEASURE_KEEP_MAX ? kept : MEASURE_KEEP_MAX;
    memcpy(sorted, samples, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    json_key(j, "samples");
    json_begin_array(j);
    size_t shown = n < JSON_SAMPLES ? n : JSON_SAMPLES;
    for (size_t k = 0; k < shown; k++)
        json_double(j, n <= JSON_SAMPLES ? sorted[k]
                       : sorted[(size_t)((double)k * (double)(n - 1) / (JSON_SAMPLES - 1) + 0.5)]);
    json_end_array(j);
    json_end_object(j);
}

static void processes_json(struct json *j, const struct measure_runs *runs,
                           const struct across *a, const struct reference_verdict *v,
                           const struct method *ref)
{
    across_json(j, a);
    json_key(j, "processes");
    json_begin_array(j);
    for (int i = 0; i < runs->n; i++) {
        const struct measurement *p = &runs->proc[i];
        json_begin_object(j);
        if (p->ok) {
            json_kv_double(j, "ns_per_call_median", p->ns_per_call.median);
            json_kv_double(j, "ns_per_call_p10", p->ns_per_call.p10);
            json_kv_double(j, "ns_per_call_p90", p->ns_per_call.p90);
            json_kv_double(j, "spread", p->ns_per_call.spread);
            json_kv_double(j, "loop_ns_per_call", p->loop_ns_per_call);
            json_kv_uint(j, "samples", p->samples);
            if (p->has_ref) {
                json_kv_double(j, "reference_ns", p->ref_ns);
                json_kv_double(j, "relative", p->relative);
            } else {
                json_kv_null(j, "reference_ns");
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
        json_kv_double(j, "ns", v->ref_median);
        json_kv_double(j, "min_ns", v->ref_min);
        json_kv_double(j, "max_ns", v->ref_max);
        json_kv_double(j, "relative", v->relative);
        json_kv_double(j, "relative_min", v->rel_min);
        json_kv_double(j, "relative_max", v->rel_max);
        json_kv_bool(j, "machine_speed_changed", v->moved);
        json_end_object(j);
    } else {
        json_null(j);
    }
    char said[400];
    json_kv_string_or_null(j, "verdict",
                           reference_sentence(a, v, ref ? ref->id : "", said, sizeof said) > 0
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
        summary_json(j, "ns_per_call", &r->ns_per_call, r->kept, r->nkept);
        json_kv_double(j, "calls_per_sec", r->calls_per_sec);
        json_kv_double(j, "spread", r->ns_per_call.spread);
        json_kv_bool(j, "noisy", r->noisy);
        json_kv_double(j, "loop_ns_per_call", r->loop_ns_per_call);
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
            json_kv_double(j, "ns_per_call_median", r->threads[t].ns_per_call.median);
            json_kv_double(j, "calls_per_sec", r->threads[t].calls_per_sec);
            json_end_object(j);
        }
        json_end_array(j);
        if (runs && a)
            processes_json(j, runs, a, v, ref);
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
        printf("; %d worker processes of up to %d samples of >= %.1f ms each: the figure is "
               "the median over processes,\nthe spread the larger of across and within them; "
               "empty-loop cost subtracted (column 'loop')\n\n",
               nproc, cfg->samples, cfg->sample_target_ns / 1e6);
    else
        printf("; up to %d samples of >= %.1f ms; empty-loop cost subtracted (column 'loop')\n\n",
               cfg->samples, cfg->sample_target_ns / 1e6);
    if (cfg->reference)
        printf("'x ref': ns/call over %s timed after each sample, the figure that holds when "
               "this machine's speed changes\n\n", cfg->reference->id);
    if (sysinfo_busy(si))
        printf("note: load average %.2f on %d CPUs: other work shares these cores, so figures "
               "may be inflated (samples the\n      thread was preempted in are retaken; "
               "contention below the OS, e.g. a busy SMT sibling, cannot be)\n\n",
               si->loadavg_1m, si->cpus_online);
    printf("%-40s %10s %11s %7s %6s %6s  %s\n", "id", "ns/call", "calls/s", "spread", "loop",
           "x ref", "path");
}

/* Unavailable methods, printed after the table grouped by reason: one line per reason. */
static void print_unavailable(const struct method_list *ml, const struct bench_options *o)
{
    bool shown[METHODS_MAX] = {false};
    bool header = false;
    for (size_t i = 0; i < ml->count; i++) {
        const struct method *m = &ml->m[i];
        if (shown[i] || m->available || !selected(o, m))
            continue;
        if (!header)
            printf("\nnot available here:\n");
        header = true;
        size_t same = 0;
        const char *last = m->id;
        for (size_t k = i; k < ml->count; k++)
            if (!shown[k] && !ml->m[k].available && selected(o, &ml->m[k]) &&
                strcmp(ml->m[k].why, m->why) == 0) {
                shown[k] = true;
                same++;
                last = ml->m[k].id;
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

static void print_row(const struct method *m, const struct measurement *r, const struct across *a,
                      const struct reference_verdict *v, const struct method *ref)
{
    if (!m->available)
        return; /* listed by print_unavailable */
    if (!r->ok) {
        printf("%-40s %10s %11s %7s %6s %6s  %s: %s\n", m->id, "-", "-", "-", "-", "-", m->path,
               r->error);
        return;
    }
    char rate[32];
    format_rate(r->calls_per_sec, rate, sizeof rate);
    if (a && a->bimodal) {
        /* Two levels: neither is the figure (docs/METHODOLOGY.md, "Across processes"). */
        char levels[32];
        snprintf(levels, sizeof levels, "%.1f/%.1f", a->low, a->high);
        printf("%-40s %10s %11s %6.1f%%%s %6.2f %6s  %s\n", m->id, levels, rate,
               100 * r->ns_per_call.spread, r->noisy ? "!" : " ", r->loop_ns_per_call,
               ratio_cell(v), m->path);
    } else {
        printf("%-40s %10.1f %11s %6.1f%%%s %6.2f %6s  %s\n", m->id, r->ns_per_call.median, rate,
               100 * r->ns_per_call.spread, r->noisy ? "!" : " ", r->loop_ns_per_call,
               ratio_cell(v), m->path);
    }
    char said[400];
    if (reference_sentence(a, v, ref ? ref->id : "", said, sizeof said) > 0)
        printf("    %s\n", said);
}

static int list_methods(const struct method_list *ml, const struct bench_options *o)
{
    if (o->json) {
        struct json j;
        json_init(&j, stdout, 2);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.bench.list/1");
        json_key(&j, "methods");
        json_begin_array(&j);
        for (size_t i = 0; i < ml->count; i++)
            if (selected(o, &ml->m[i]))
                result_json(&j, &ml->m[i], NULL, false, NULL, NULL, NULL, NULL);
        json_end_array(&j);
        json_end_object(&j);
        json_finish(&j);
        return 0;
    }
    for (size_t i = 0; i < ml->count; i++) {
        const struct method *m = &ml->m[i];
        if (selected(o, m))
            printf("%-40s %s\n", m->id, m->available ? m->description : m->why);
    }
    return 0;
}

/* Whether fastclock.* rows measured the counter or the kernel clock (it falls back to the
 * kernel when the counter is unsafe, and before its cross-CPU check has passed): said with
 * the rows, as of the end of the run, whenever one was selected. */
static void report_fastclock_source(const struct method_list *ml, const struct bench_options *o,
                                    struct json *j)
{
    bool any = false;
    for (size_t i = 0; i < ml->count && !any; i++)
        any = selected(o, &ml->m[i]) && strcmp(ml->m[i].path, "fastclock") == 0;
    if (!any)
        return;
    char counter[32], why[200];
    bool on_counter = methods_fastclock_source(counter, sizeof counter, why, sizeof why);
    if (j) {
        json_key(j, "fastclock");
        json_begin_object(j);
        json_kv_string(j, "source", on_counter ? "counter" : "kernel");
        json_kv_string(j, "counter", counter);
        json_kv_string(j, "why", why);
        json_end_object(j);
        return;
    }
    printf("\nfastclock.* read %s at the end of the run: %s\n",
           on_counter ? counter : "the kernel clock", why);
}

/* The document's head: schema, machine, the run's configuration (results follow). */
static void json_preamble(struct json *j, const struct sysinfo *si, const struct bench_options *o,
                          const struct measure_config *cfg, int nproc)
{
    json_init(j, stdout, 2);
    json_begin_object(j);
    json_kv_string(j, "schema", "clockscope.bench/1");
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

/* The answer's figures from the rows (bench_answer.c). */
static void answer_from(const struct method *const *ms, const struct measurement *res,
                        const struct across *acr, size_t n, char *buf, size_t len)
{
    struct bench_answer_in in;
    memset(&in, 0, sizeof in);
    for (size_t i = 0; i < n; i++) {
        const struct method *m = ms[i];
        if (!m->available || !res[i].ok)
            continue;
        struct answer_figure f = {.measured = true, .ns = res[i].ns_per_call.median,
                                  .bimodal = acr[i].bimodal, .low = acr[i].low,
                                  .high = acr[i].high};
        if (strcmp(m->id, "libc.clock_gettime.monotonic") == 0)
            in.libc = f;
        else if (strcmp(m->id, "vdso.clock_gettime.monotonic") == 0)
            in.vdso = f;
        else if (strcmp(m->id, "syscall.clock_gettime.monotonic") == 0)
            in.syscall = f;
        else if (strcmp(m->id, "libc.clock_gettime.monotonic_coarse") == 0)
            in.coarse = f;
        else if (strcmp(m->path, "counter") == 0 && !in.counter.measured) {
            in.counter = f; /* the first: the arch's plain read (methods_counter.c) */
            in.counter_name = m->id + strlen("counter.");
        }
        if (!in.fastest_id || f.ns < in.fastest_ns) {
            in.fastest_id = m->id;
            in.fastest_ns = f.ns;
        }
        if (!in.slowest_id || f.ns > in.slowest_ns) {
            in.slowest_id = m->id;
            in.slowest_ns = f.ns;
        }
    }
    bench_answer(&in, buf, len);
}

/* The processes a run takes its hot-loop figures in: --processes, or as many as the
 * samples allow with each process keeping the engine's minimum (41 / 7: 5; quick 15 / 5:
 * 3), so that the run takes about as long as one process taking every sample did. */
static int processes_for(const struct bench_options *o, const struct measure_config *cfg)
{
    if (o->processes)
        return o->processes;
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

/* Each process's share: the samples divided among the processes (at least a worker's
 * minimum), the warm-up (at least 1 ms: calibration warms up as well) and the budget. */
static void share_config(struct measure_config *cfg, int nproc)
{
    if (nproc <= 1)
        return;
    /* rounded down (41 / 5: 8 each, 40 in all): each worker also pays its own
     * calibration, which one process paid once */
    worker_budget(cfg, nproc); /* for the JSON's config: what each worker had */
    int per = cfg->samples / nproc;
    cfg->samples = per < cfg->min_samples ? cfg->min_samples : per;
    cfg->warmup_ns = cfg->warmup_ns / nproc < 1e6 ? 1e6 : cfg->warmup_ns / nproc;
}

/* The reference timed after each sample (issue 29, measure/reference.h): the first
 * available ordered counter read (x86: lfence; rdtsc), the work the vDSO's clock reads are
 * built on, which moves with them when the machine's speed does (docs/METHODOLOGY.md,
 * "What moved").  Single-threaded runs only (the engine's); NULL where there is none. */
static const struct method *bench_reference(const struct method_list *ml,
                                            const struct bench_options *o)
{
    if (o->threads != 1)
        return NULL;
    for (size_t i = 0; i < ml->count; i++)
        if (strcmp(ml->m[i].path, "counter") == 0 && ml->m[i].ordered && ml->m[i].available)
            return &ml->m[i];
    return NULL;
}

/* The worker's whole run: every selected method measured, in the protocol on stdout. */
static int worker_main(const struct method_list *ml, const struct bench_options *o,
                       const struct measure_config *cfg)
{
    if (o->threads == 1 && !cpuset_pin(o->cpus.cpu[0])) {
        fprintf(stderr, "clockscope bench: cannot pin to CPU %d: %m\n", o->cpus.cpu[0]);
        return 1;
    }
    static struct measurement r;
    for (size_t i = 0; i < ml->count; i++) {
        const struct method *m = &ml->m[i];
        if (!selected(o, m) || !m->available)
            continue;
        measure_method(m, cfg, o->cpus.cpu, o->threads, &r);
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

/* Runs the worker processes one after the other, each parsed into runs.  false: one
 * failed (said on stderr). */
static bool run_workers(const struct bench_options *o, const struct measure_config *cfg,
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
    setenv(BENCH_WORKER_ENV, nenv, 1);
    bool ok = true;
    for (int p = 0; ok && p < nproc; p++) {
        progress_say(pg, (double)p / nproc, -1, "worker process %d of %d: %zu methods", p + 1,
                     nproc, nids);
        char *out = NULL, err[400] = "", why[300] = "";
        size_t len = 0;
        struct run_outcome oc;
        if (!run_capture_all(argv, 30 * 60 * 1000, 64u << 20, &out, &len, err, sizeof err, &oc,
                             why, sizeof why)) {
            fprintf(stderr, "clockscope bench: cannot start a worker process: %s\n", why);
            ok = false;
        } else if (oc.exit_status != 0 || oc.truncated) {
            fprintf(stderr, "clockscope bench: worker process %d of %d failed (%s%d)%s%s\n",
                    p + 1, nproc, oc.signal ? "signal " : "exit status ",
                    oc.signal ? oc.signal : oc.exit_status, err[0] ? ": " : "", err);
            ok = false;
        } else if (!bench_worker_parse(out, ids, nids, runs, why, sizeof why)) {
            fprintf(stderr, "clockscope bench: worker process %d of %d: %s\n", p + 1, nproc, why);
            ok = false;
        }
        free(out);
    }
    unsetenv(BENCH_WORKER_ENV);
    return ok;
}

int cmd_bench(int argc, char **argv)
{
    struct bench_options o;
    parse_args(argc, argv, &o);
    const char *worker = getenv(BENCH_WORKER_ENV);

    static struct method_list ml;
    methods_collect(&ml);
    size_t nsel = 0;
    for (size_t i = 0; i < ml.count; i++)
        nsel += selected(&o, &ml.m[i]);
    if (nsel == 0)
        usage_error("bench", "no method matches --only/--clock (see 'clockscope bench --list')");
    if (o.list)
        return list_methods(&ml, &o);

    /* Gap 0 is the hot loop: always without --gap, and when the list names it. */
    bool hot_loop = o.gap_arg == NULL;
    for (int i = 0; i < o.gap.gaps.count; i++)
        hot_loop |= o.gap.gaps.item[i].gap_ns == 0;

    struct measure_config cfg;
    if (o.quick)
        measure_config_quick(&cfg);
    else
        measure_config_default(&cfg);
    if (o.samples)
        cfg.samples = o.samples;
    if (worker) {
        int n = atoi(worker);
        if (n > 1) { /* the shares of the warm-up and of the budget (samples: --samples) */
            cfg.warmup_ns = cfg.warmup_ns / n < 1e6 ? 1e6 : cfg.warmup_ns / n;
            worker_budget(&cfg, n);
        }
        cfg.reference = bench_reference(&ml, &o);
        return worker_main(&ml, &o, &cfg);
    }
    int nproc = processes_for(&o, &cfg);
    share_config(&cfg, nproc);

    if (o.threads == 1 && !cpuset_pin(o.cpus.cpu[0])) {
        fprintf(stderr, "clockscope bench: cannot pin to CPU %d: %m\n", o.cpus.cpu[0]);
        return 1;
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct progress pg;
    progress_init(&pg, "bench", o.progress);
    if (pg.on && bench_gap_any_sparse(&o.gap.gaps)) {
        /* the long part: said before it starts, with the true figure */
        size_t nsparse = 0;
        for (size_t i = 0; i < ml.count; i++)
            nsparse += selected(&o, &ml.m[i]) && sparse_method_supported(&ml.m[i]);
        char d[32];
        progress_format_duration(bench_gap_sleep_s(&o.gap, nsparse) * 1.1, d, sizeof d);
        fprintf(stderr, "clockscope bench: the sparse reads will take about %s (%zu methods; "
                "--only narrows them)\n", d, nsparse);
    }
    int failures = 0;
    /* Each selected, available method's measurements, one per process. */
    static const char *ids[METHODS_MAX];
    static struct measure_runs runs[METHODS_MAX];
    size_t nids = 0;
    for (size_t i = 0; hot_loop && i < ml.count; i++)
        if (selected(&o, &ml.m[i]) && ml.m[i].available) {
            ids[nids] = ml.m[i].id;
            runs[nids].n = 0;
            runs[nids].proc = calloc((size_t)nproc, sizeof(struct measurement));
            if (!runs[nids].proc) {
                fprintf(stderr, "clockscope bench: out of memory\n");
                return 1;
            }
            nids++;
        }
    if (hot_loop && nproc > 1 && nids > 0 &&
        !run_workers(&o, &cfg, nproc, ids, nids, runs, &pg)) {
        /* Where this binary cannot run itself (under qemu-user, /proc/self/exe is the
         * guest binary, which the host cannot exec), one process is better than none: said. */
        fprintf(stderr, "clockscope bench: the figures are taken in this one process instead\n");
        nproc = 1;
        if (o.quick)
            measure_config_quick(&cfg);
        else
            measure_config_default(&cfg);
        if (o.samples)
            cfg.samples = o.samples;
        for (size_t i = 0; i < nids; i++)
            runs[i].n = 0;
    }
    cfg.reference = bench_reference(&ml, &o); /* in this process (--processes 1) */
    struct sysinfo si;
    sysinfo_read(&si);

    /* Every figure first (the answer opens the output), then the output. */
    static struct measurement res[METHODS_MAX];
    static struct across acr[METHODS_MAX];
    static struct reference_verdict refv[METHODS_MAX];
    static const struct method *rowm[METHODS_MAX];
    size_t nrows = 0, done = 0, k = 0;
    /* Tests only: the method named here fails as a measurement can (docs/testing.md). */
    const char *fault = getenv("CLOCKSCOPE_BENCH_FAULT");
    for (size_t i = 0; hot_loop && i < ml.count; i++) {
        const struct method *m = &ml.m[i];
        if (!selected(&o, m))
            continue;
        struct measurement *r = &res[nrows];
        struct across *a = &acr[nrows];
        struct reference_verdict *v = &refv[nrows];
        rowm[nrows++] = m;
        memset(a, 0, sizeof *a);
        reference_summarize(NULL, NULL, 0, REFERENCE_MOVED_RATIO_COUNTER, v);
        if (!m->available) {
            memset(r, 0, sizeof *r);
            snprintf(r->error, sizeof r->error, "not available: %s", m->why);
            continue;
        }
        struct measure_runs *mr = &runs[k++];
        if (nproc == 1) {
            /* in this process: today's figure, exactly */
            progress_say(&pg, (double)done / (double)nids, -1, "%s", m->id);
            done++;
            measure_method(m, &cfg, o.cpus.cpu, o.threads, &mr->proc[0]);
            mr->n = 1;
            *r = mr->proc[0];
            double fig = r->ns_per_call.median;
            across_summarize(&fig, r->ok ? 1 : 0, a);
        } else {
            measure_combine(mr, cfg.noisy_spread, r, a);
        }
        measure_combine_reference(mr, v);
        if (fault && strcmp(fault, m->id) == 0) {
            memset(r, 0, sizeof *r);
            snprintf(r->error, sizeof r->error, "failed on cue (CLOCKSCOPE_BENCH_FAULT)");
        }
        bool failed = !r->ok;
        /* Any measurement that failed fails the run, whatever its reason (a thread that
         * could not be pinned, no memory, a worker's error), not only the reasons someone
         * thought of. */
        if (failed)
            failures++;
    }
    progress_clear(&pg);
    char answer[512] = "";
    if (hot_loop)
        answer_from(rowm, res, acr, nrows, answer, sizeof answer);

    struct json j;
    if (o.json) {
        json_preamble(&j, &si, &o, &cfg, nproc);
        json_kv_string(&j, "answer", answer[0] ? answer : NULL);
        json_key(&j, "results");
        json_begin_array(&j);
    } else if (hot_loop) {
        sysinfo_print_header(stdout, "bench", &si);
        if (answer[0])
            printf("%s\n\n", answer);
        print_header(&si, &o, &cfg, nproc);
    } else {
        sysinfo_print_header(stdout, "bench", &si);
    }
    for (size_t i = 0, kk = 0; i < nrows; i++) {
        const struct method *m = rowm[i];
        struct measure_runs *mr = m->available ? &runs[kk++] : NULL;
        if (o.json)
            result_json(&j, m, &res[i], m->available, mr, m->available ? &acr[i] : NULL,
                        &refv[i], cfg.reference);
        else
            print_row(m, &res[i], m->available ? &acr[i] : NULL, &refv[i], cfg.reference);
    }
    for (size_t i = 0; i < nids; i++)
        free(runs[i].proc);
    progress_clear(&pg);
    if (o.json)
        json_end_array(&j);
    else
        print_unavailable(&ml, &o);
    if (bench_gap_any_sparse(&o.gap.gaps)) {
        static const struct method *sel[METHODS_MAX];
        size_t n = 0;
        for (size_t i = 0; i < ml.count; i++)
            if (selected(&o, &ml.m[i]))
                sel[n++] = &ml.m[i];
        failures += bench_gap_run(sel, n, &o.gap, o.cpus.cpu[0], o.json ? &j : NULL, &pg);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    progress_end(&pg);
    report_fastclock_source(&ml, &o, o.json ? &j : NULL);
    if (o.json) {
        json_kv_double(&j, "elapsed_s", elapsed);
        json_end_object(&j);
        json_finish(&j);
    } else if (hot_loop) {
        printf("\n%zu methods in %.1f s; '!' marks a noisy result (spread > %.0f%%).\n", nsel,
               elapsed, cfg.noisy_spread * 100);
    } else {
        printf("\n%zu methods in %.1f s.\n", nsel, elapsed);
    }
    /* A full disk or a closed stdout must not pass for a result. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "clockscope bench: cannot write the results to standard output\n");
        return 1;
    }
    return failures ? 1 : 0;
}
