/* SPDX-License-Identifier: MIT */
/* clockscope ladder: the cost of crossing into the kernel and between CPUs, side by side
 * (docs/ladder.md).  Every measurement runs in a disposable runner (runner.h). */
#include "commands.h"
#include "common/environment.h"
#include "common/clock_ns.h"
#include "common/cli.h"
#include "common/message.h"
#include "common/progress.h"
#include "ladder/ladder_progress.h"
#include "ladder/ladder_run.h"
#include "ladder/rung_measure.h"
#include "measure/method.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Runners a round-trip rung is measured in by default (not --quick, which takes one). */
#define LADDER_TRIP_PROCESSES 3

struct ladder_options {
    bool quick, json, list, progress;
    const char *cpus_arg;
    const char *only[32];
    int nonly;
    double timeout_s;
    int processes;
};

static const char help[] =
    "usage: clockscope ladder [options]\n"
    "\n"
    "The ladder of costs a time read sits on, measured here side by side: an empty call,\n"
    "the vDSO clock_gettime, getppid, the clock_gettime syscall, the counter read; round\n"
    "trips between two threads and two processes, on the same CPU and on two CPUs, through\n"
    "a pipe, an eventfd, a futex, a UNIX socket pair, a spinning shared-memory handoff and\n"
    "one that spins then sleeps; the cache-line handoff between every pair of CPUs; and\n"
    "the polling-server experiment (FlexIPC, Journal of Software 2025): N clients and one\n"
    "server pinned to its own CPU that sleeps in the kernel or polls, with latency,\n"
    "throughput and the CPU time each side burns per request.  Every figure says what it\n"
    "is: a call, a round trip or one way; every thread is pinned; a rung that cannot run\n"
    "here is listed with the reason.\n"
    "\n"
    "options:\n"
    "  --quick          fewer, shorter samples and a short sweep (1-2 s in all; the default\n"
    "                   takes 10-20 s on two CPUs, more with more CPUs: the matrix)\n"
    "  --cpus LIST      the CPUs to use, e.g. 0-3 (default: all this process may use); rungs\n"
    "                   run on the first (and second) of them, the sweep's server on the first\n"
    "  --only GLOBS     only the rungs whose ids match, e.g. 'pipe.*,futex.*'; 'sweep' and\n"
    "                   'cpu_matrix' name the experiment and the matrix\n"
    "  --list           list the rung ids (and 'sweep', 'cpu_matrix') and what each measures\n"
    "  --processes N    runners each rung is measured in, one after the other (default: a\n"
    "                   call as many as the samples allow at the engine's least each: 5; a\n"
    "                   round trip 3; quick 1); the figure is the median over them\n"
    "  --timeout S      kill and report a measurement that takes longer (default 5 s, quick 2 s)\n"
    "  --progress       say what is measured and how long is left on stderr even when it is\n"
    "                   not a terminal (on a terminal it always does)\n"
    "  --json           machine-readable output (schema clockscope.ladder/2: docs/json.md)\n"
    "  --help           this text\n"
    "\n"
    "Each measurement runs in a child process that dies with clockscope (PR_SET_PDEATHSIG),\n"
    "so no thread or process outlives the command.  docs/ladder.md has the method.\n";

static const struct exit_use ladder_exits[] = {
    {EXIT_OK, NULL},
    {EXIT_FAILED, NULL},
    {EXIT_USAGE, "also a CLOCKSCOPE_LADDER_FAULT that does not parse (tests)"},
    {EXIT_PARTIAL, "a measurement failed (timed out or crashed): the others are reported"},
    {EXIT_USES_END, NULL},
};

static const struct cli_option ladder_decl[] = {
    {.name = "quick", CLI_FLAG_OF(struct ladder_options, quick)},
    {.name = "cpus", .metavar = "LIST", CLI_STRING_OF(struct ladder_options, cpus_arg)},
    {.name = "only", .metavar = "GLOBS", CLI_LIST_OF(struct ladder_options, only, nonly)},
    {.name = "list", CLI_FLAG_OF(struct ladder_options, list)},
    {.name = "timeout", .metavar = "S", CLI_SECONDS_OF(struct ladder_options, timeout_s, 0.1, 600)},
    {.name = "processes", .metavar = "N", CLI_UINT_OF(struct ladder_options, processes, 1, ACROSS_MAX)},
    {.name = "json", CLI_FLAG_OF(struct ladder_options, json)},
    {.name = "progress", CLI_FLAG_OF(struct ladder_options, progress)},
    {0},
};

const struct cli_spec ladder_cli = {.cmd = "ladder", .help = help, .options = ladder_decl,
                                    .exits = ladder_exits};

static void make_plan(const struct ladder_options *o, struct ladder_plan *p)
{
    memset(p, 0, sizeof *p);
    p->quick = o->quick;
    struct cpu_list allowed;
    cli_cpus_allowed("ladder", &allowed);
    if (o->cpus_arg)
        cli_parse_cpus("ladder", o->cpus_arg, &allowed, &p->cpus);
    else
        p->cpus = allowed;
    p->cpu_a = p->cpus.cpu[0];
    p->cpu_b = p->cpus.count > 1 ? p->cpus.cpu[1] : p->cpus.cpu[0];
    if (o->quick) {
        measure_config_quick(&p->rung_cfg);
        p->rung_cfg.samples = 9;
        p->rung_cfg.sample_target_ns = 0.2e6;
        p->rung_cfg.budget_ns = 15e6;
        p->rung_cfg.warmup_ns = 0.5e6;
    } else {
        measure_config_default(&p->rung_cfg);
    }
    each_config_init(&p->trip_cfg, o->quick);
    /* A round-trip runner pays its own warm-up (a fresh pair): fewer of them. */
    p->trip_processes = o->processes ? o->processes : o->quick ? 1 : LADDER_TRIP_PROCESSES;
    /* As many runners as the samples allow, each keeping the engine's least (41 / 7: 5;
     * quick 9 / 5: 1), each with its share of the samples and of the warm-up: the rung
     * takes about as long as one runner taking every sample did. */
    p->processes = o->processes ? o->processes : p->rung_cfg.samples / p->rung_cfg.min_samples;
    if (p->processes < 1)
        p->processes = 1;
    if (p->processes > 1) {
        int per = (p->rung_cfg.samples + p->processes - 1) / p->processes;
        p->rung_cfg.samples = per < p->rung_cfg.min_samples ? p->rung_cfg.min_samples : per;
        p->rung_cfg.warmup_ns /= p->processes;
    }
    /* A matrix cell is one more pair of the same threads: shorter samples suffice. */
    measure_config_quick(&p->matrix_cfg);
    p->matrix_cfg.samples = o->quick ? 5 : 11;
    p->matrix_cfg.min_samples = 3;
    p->matrix_cfg.sample_target_ns = o->quick ? 0.1e6 : 0.2e6;
    p->matrix_cfg.warmup_ns = o->quick ? 0.3e6 : 1e6;
    p->matrix_cfg.budget_ns = o->quick ? 3e6 : 10e6;
    p->rung_timeout_s = o->timeout_s > 0 ? o->timeout_s : o->quick ? 2 : 5;
    p->sweep_seconds = o->quick ? 0.04 : 0.25;
}

/* Measurements that were attempted and gave no figure (timed out, crashed). */
static int ladder_failures(const struct ladder_run *r)
{
    int n = 0;
    for (size_t i = 0; i < r->nrungs; i++)
        n += r->selected[i] && r->rungs[i].available && !r->rungs[i].measured;
    for (int i = 0; r->matrix_selected && r->matrix.available && i < r->matrix.n; i++)
        for (int k = 0; k < r->matrix.n; k++)
            n += i != k && !r->matrix.cell[i][k].measured;
    for (int k = 0; r->sweep_selected && k < r->sweep.nrows; k++)
        for (int m = 0; m < SWEEP_MODES; m++)
            n += !r->sweep.row[k].item[m].measured;
    return n;
}

static bool wanted(const struct ladder_options *o, const char *id)
{
    return o->nonly == 0 || cli_matches_any(o->only, o->nonly, id);
}

int cmd_ladder(int argc, char **argv)
{
    struct ladder_options o = {0};
    cli_parse(&ladder_cli, argc, argv, &o);
    static struct ladder_run r;
    make_plan(&o, &r.plan);

    const char *fault = getenv(ENV_LADDER_FAULT);
    char err[MSG_LINE];
    if (fault && !ladder_faults_parse(fault, strlen(fault), &r.plan.faults, err, sizeof err)) {
        fprintf(stderr, "clockscope ladder: CLOCKSCOPE_LADDER_FAULT: %s\n", err);
        return EXIT_USAGE;
    }
    r.nrungs = rungs_build(r.defs, RUNGS_MAX);
    size_t nsel = 0;
    for (size_t i = 0; i < r.nrungs; i++)
        nsel += r.selected[i] = wanted(&o, r.defs[i].id);
    r.sweep_selected = wanted(&o, "sweep");
    r.matrix_selected = wanted(&o, "cpu_matrix");
    if (nsel == 0 && !r.sweep_selected && !r.matrix_selected)
        usage_error("ladder", "no rung matches --only (the ids are in docs/ladder.md)");
    if (o.list) {
        for (size_t i = 0; i < r.nrungs; i++)
            if (r.selected[i])
                printf("%-32s %s: %s\n", r.defs[i].id, ladder_rung_unit(&r.defs[i]),
                   r.defs[i].description);
        if (r.sweep_selected)
            printf("%-32s round_trip: the polling-server experiment, N clients and one server\n", "sweep");
        if (r.matrix_selected)
            printf("%-32s one_way: the cache-line handoff between every pair of CPUs\n", "cpu_matrix");
        return 0;
    }

    double t0 = clock_ns_monotonic_s();
    sysinfo_read(&r.machine);
    static struct method_list ml;
    methods_collect(&ml);
    struct progress pg;
    progress_init(&pg, "ladder", o.progress);
    /* each step weighed by what it is expected to take (ladder_progress.h) */
    struct ladder_progress lp = {.pg = &pg};
    lp.w.total_s = ladder_plan_expected_s(&r.plan, r.defs, r.selected, r.nrungs,
                                          r.matrix_selected, r.sweep_selected, &lp.w.waits_s);
    for (size_t i = 0; i < r.nrungs; i++)
        if (r.selected[i]) {
            ladder_progress_step(&lp, ladder_rung_expected_s(&r.defs[i], &r.plan), 0,
                                 "rung %s", r.defs[i].id);
            rung_measure(&r.defs[i], &r.plan, &ml, &r.rungs[i]);
        } else {
            r.rungs[i].def = &r.defs[i];
        }
    if (r.matrix_selected)
        matrix_measure(&r.plan, &r.matrix, &lp);
    if (r.sweep_selected)
        sweep_measure(&r.plan, &r.sweep, &lp);
    progress_end(&pg);
    struct sysinfo end;
    sysinfo_read(&end);
    r.loadavg_end = end.loadavg_1m;
    r.elapsed_s = clock_ns_monotonic_s() - t0;

    if (o.json)
        ladder_print_json(stdout, &r);
    else
        ladder_print_text(stdout, &r);
    int failed = ladder_failures(&r);
    if (failed)
        fprintf(stderr, "clockscope ladder: %d measurement%s failed (timed out or crashed): "
                        "%s\n", failed, failed == 1 ? "" : "s",
                o.json ? "see \"error\" in the JSON" : "see FAILED above");
    return failed ? EXIT_PARTIAL : EXIT_OK;
}
