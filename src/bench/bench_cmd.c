/* SPDX-License-Identifier: MIT */
/* clockscope bench: the cost of every way of reading the time on this machine.  Here: the
 * options and the run (bench_output.c prints it, bench_workers.c takes its figures in
 * worker processes, bench_gap.c its sparse reads). */
#include "commands.h"
#include "common/environment.h"
#include "bench/bench_answer.h"
#include "bench/bench_cmd.h"
#include "bench/bench_gap.h"
#include "bench/bench_output.h"
#include "bench/bench_workers.h"
#include "common/cli.h"
#include "common/cpuset.h"
#include "common/message.h"
#include "common/progress.h"
#include "measure/engine.h"
#include "measure/sparse.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    "  --quick            fewer, shorter samples (about 1 s for every method on an idle\n"
    "                     machine; the default 5 processes take about 3 s.  A busy machine\n"
    "                     takes up to 3x: a preempted sample is retaken; --progress says)\n"
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
    "  --verbose          under each row marked * (or in two levels), what its processes and the\n"
    "                     reference said; by default one summary after the table says it\n"
    "  --list             list the methods and whether each can run here; measure nothing\n"
    "  --json             machine-readable output (schema: docs/json.md)\n"
    "  --help             this text\n"
    "\n"
    "Method: warm-up; unrolled batches of calls; the empty loop's cost measured between\n"
    "samples and subtracted (both shown); median, p10, p90, p99, min; spread = (p90-p10)/median,\n"
    "and a row is marked * when its spread is above 10% (noisy) or the reference moved by more\n"
    "than 10% and more than the spread (unstable): one summary after the table says how many\n"
    "and what may have moved them.  Timer: CLOCK_MONOTONIC_RAW (CLOCK_MONOTONIC for methods that\n"
    "read MONOTONIC_RAW).  docs/METHODOLOGY.md has the detail.\n";

static const struct exit_use bench_exits[] = {
    {EXIT_OK, NULL},
    {EXIT_FAILED, "nothing measured, or the output could not be written"},
    {EXIT_USAGE, NULL},
    {EXIT_PARTIAL, "a method failed (said in its row): the others are reported"},
    {EXIT_USES_END, NULL},
};

/* --clock NAME: a clock this build knows (clock_by_name takes names and macros). */
static bool known_clock(void *opts, const char *name, char *why, size_t whylen)
{
    (void)opts;
    if (clock_by_name(name))
        return true;
    const struct clock_info *all;
    size_t na = clocks_all(&all);
    char known[MSG_REASON] = "";
    for (size_t k = 0; k < na; k++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                 all[k].name);
    cli_not_one_of(why, whylen, name, known);
    return false;
}

/* --gap LIST: parsed into the options' gap list (gap_list.c). */
static bool gap_check(void *opts, const char *value, char *why, size_t whylen)
{
    struct bench_options *o = opts;
    return gap_list_parse(value, strlen(value), &o->gap.gaps, why, whylen);
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
    {.name = "verbose", CLI_FLAG_OF(struct bench_options, verbose)},
    {.name = "json", CLI_FLAG_OF(struct bench_options, json)},
    {.name = "gap", .metavar = "LIST", .check = gap_check, CLI_STRING_OF(struct bench_options, gap_arg)},
    {.name = "reads", .metavar = "N", .needs = "gap",
     CLI_UINT_OF(struct bench_options, reads, 1, GAP_READS_MAX)},
    {.name = "bracket", .metavar = "KIND", .needs = "gap",
     CLI_ENUM_OF(struct bench_options, bracket, bracket_names)},
    {0},
};

const struct cli_spec bench_cli = {.cmd = "bench", .help = help, .options = bench_decl,
                                   .exits = bench_exits};

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

/* Whether --only and --clock select m. */
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

/* The answer's figures from the rows (bench_answer.c). */
static void answer_from(const struct bench_row *rows, size_t n, char *buf, size_t len)
{
    struct bench_answer_in in;
    memset(&in, 0, sizeof in);
    for (size_t i = 0; i < n; i++) {
        const struct method *m = rows[i].m;
        const struct measurement *r = &rows[i].res;
        const struct across *a = &rows[i].acr;
        if (!m->available || !r->ok)
            continue;
        struct answer_figure f = {.measured = true, .ns = r->ns_per_call.median,
                                  .bimodal = a->bimodal, .low = a->low, .high = a->high};
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

/* The engine's configuration for --quick and --samples, before any process's share. */
static void bench_config(const struct bench_options *o, struct measure_config *cfg)
{
    if (o->quick)
        measure_config_quick(cfg);
    else
        measure_config_default(cfg);
    if (o->samples)
        cfg->samples = o->samples;
}

/* The sparse reads are the long part: how long they will take, said before they start. */
static void say_sparse_estimate(const struct bench_result *br, const struct progress *pg)
{
    if (!pg->on || !bench_gap_any_sparse(&br->o->gap.gaps))
        return;
    size_t nsparse = 0;
    for (size_t i = 0; i < br->nsel; i++)
        nsparse += sparse_method_supported(br->sel[i]);
    char d[32];
    progress_format_duration(bench_gap_sleep_s(&br->o->gap, nsparse) * 1.1, d, sizeof d);
    fprintf(stderr, "clockscope bench: the sparse reads will take about %s (%zu methods; "
            "--only narrows them)\n", d, nsparse);
}

/* Room for each selected, available method's measurements, one per process (hot loop
 * only).  false: out of memory (said). */
static bool alloc_runs(struct bench_result *br)
{
    for (size_t i = 0; br->hot_loop && i < br->nsel; i++)
        if (br->sel[i]->available) {
            br->ids[br->nids] = br->sel[i]->id;
            br->runs[br->nids].n = 0;
            br->runs[br->nids].proc = calloc((size_t)br->nproc, sizeof(struct measurement));
            if (!br->runs[br->nids].proc) {
                fprintf(stderr, "clockscope bench: out of memory\n");
                return false;
            }
            br->nids++;
        }
    return true;
}

/* One row per selected method (hot loop only): its figure, measured in this process or
 * combined over the workers' runs, and the failures counted. */
static void take_figures(struct bench_result *br, struct progress *pg)
{
    const struct bench_options *o = br->o;
    size_t done = 0, k = 0;
    int failures = 0;
    /* Tests only: the method named here fails as a measurement can (docs/testing.md). */
    const char *fault = getenv(ENV_BENCH_FAULT);
    for (size_t i = 0; br->hot_loop && i < br->nsel; i++) {
        const struct method *m = br->sel[i];
        struct bench_row *w = &br->rows[br->nrows++];
        struct measurement *r = &w->res;
        w->m = m;
        w->runs = NULL;
        memset(&w->acr, 0, sizeof w->acr);
        reference_summarize(NULL, NULL, 0, REFERENCE_MOVED_RATIO_COUNTER, &w->refv);
        if (!m->available) {
            memset(r, 0, sizeof *r);
            snprintf(r->error, sizeof r->error, "not available: %s", m->why);
            continue;
        }
        struct measure_runs *mr = w->runs = &br->runs[k++];
        if (br->nproc == 1) {
            /* one process: its figure is the figure, nothing to combine */
            progress_say(pg, (double)done / (double)br->nids, -1, "%s", m->id);
            done++;
            measure_method(m, &br->cfg, o->cpus.cpu, o->threads, &mr->proc[0]);
            mr->n = 1;
            *r = mr->proc[0];
            double fig = r->ns_per_call.median;
            across_summarize(&fig, r->ok ? 1 : 0, &w->acr);
        } else {
            measure_combine(mr, br->cfg.noisy_spread, r, &w->acr);
        }
        measure_combine_reference(mr, &w->refv);
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
    br->failures += failures;
}

/* The hot-loop figures of the selected methods (the sparse reads are bench_gap_run's),
 * taken in br->nproc worker processes, or in this one where they cannot run, and the
 * answer from them.  false: out of memory (said). */
static bool bench_run(struct bench_result *br, const struct method_list *ml,
                      struct progress *pg)
{
    const struct bench_options *o = br->o;
    say_sparse_estimate(br, pg);
    if (!alloc_runs(br))
        return false;
    if (br->hot_loop && br->nproc > 1 && br->nids > 0 &&
        !bench_run_workers(o, &br->cfg, br->nproc, br->ids, br->nids, br->runs, pg)) {
        /* Where this binary cannot run itself (under qemu-user, /proc/self/exe is the
         * guest binary, which the host cannot exec), one process is better than none: said. */
        fprintf(stderr, "clockscope bench: the figures are taken in this one process instead\n");
        br->nproc = 1;
        bench_config(o, &br->cfg);
        for (size_t i = 0; i < br->nids; i++)
            br->runs[i].n = 0;
    }
    br->cfg.reference = bench_reference(ml, o); /* in this process (--processes 1) */
    sysinfo_read(&br->si);
    take_figures(br, pg);
    progress_clear(pg);
    if (br->hot_loop)
        answer_from(br->rows, br->nrows, br->answer, sizeof br->answer);
    return true;
}

/* Whether a fastclock.* method was selected, and what served its reads by now. */
static void fastclock_source(struct bench_result *br)
{
    for (size_t i = 0; i < br->nsel && !br->fastclock_selected; i++)
        br->fastclock_selected = strcmp(br->sel[i]->path, "fastclock") == 0;
    if (br->fastclock_selected)
        br->fastclock_on_counter = methods_fastclock_source(
            br->fastclock_counter, sizeof br->fastclock_counter, br->fastclock_why,
            sizeof br->fastclock_why);
}

int cmd_bench(int argc, char **argv)
{
    struct bench_options o;
    parse_args(argc, argv, &o);
    const char *worker = getenv(ENV_BENCH_WORKER);
    static struct method_list ml;
    methods_collect(&ml);
    static struct bench_result br;
    br.o = &o;
    for (size_t i = 0; i < ml.count; i++)
        if (selected(&o, &ml.m[i]))
            br.sel[br.nsel++] = &ml.m[i];
    if (br.nsel == 0)
        usage_error("bench", "no method matches --only/--clock (see 'clockscope bench --list')");
    if (o.list) {
        bench_output_list(&br);
        return 0;
    }
    /* Gap 0 is the hot loop: always without --gap, and when the list names it. */
    br.hot_loop = o.gap_arg == NULL;
    for (int i = 0; i < o.gap.gaps.count; i++)
        br.hot_loop |= o.gap.gaps.item[i].gap_ns == 0;
    bench_config(&o, &br.cfg);
    if (o.threads == 1 && !cpuset_pin(o.cpus.cpu[0])) {
        fprintf(stderr, "clockscope bench: cannot pin to CPU %d: %m\n", o.cpus.cpu[0]);
        return EXIT_FAILED;
    }
    if (worker) { /* its shares of the warm-up and the budget (samples: --samples) */
        bench_worker_share(&br.cfg, atoi(worker));
        br.cfg.reference = bench_reference(&ml, &o);
        return bench_worker_main(br.sel, br.nsel, &br.cfg, o.cpus.cpu, o.threads);
    }
    br.nproc = bench_processes_for(o.processes, &br.cfg);
    bench_share_config(&br.cfg, br.nproc);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct progress pg;
    progress_init(&pg, "bench", o.progress);
    struct json j;
    int rc = EXIT_FAILED;
    if (!bench_run(&br, &ml, &pg))
        goto out;
    bench_output_table(&br, &j);
    if (bench_gap_any_sparse(&o.gap.gaps))
        br.failures += bench_gap_run(br.sel, br.nsel, &o.gap, o.cpus.cpu[0], o.json ? &j : NULL,
                                     &pg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    br.elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    progress_end(&pg);
    fastclock_source(&br);
    rc = !bench_output_end(&br, &j) ? EXIT_FAILED : br.failures ? EXIT_PARTIAL : EXIT_OK;
out:
    for (size_t i = 0; i < br.nids; i++)
        free(br.runs[i].proc);
    return rc;
}
