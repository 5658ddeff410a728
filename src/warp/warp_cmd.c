/* SPDX-License-Identifier: MIT */
/* clockscope warp: does time ever go backwards between CPUs, does the counter tick at the
 * rate the platform states, and how fine does each clock really step. */
#include "commands.h"
#include "common/clock_ns.h"
#include "arch/arch.h"
#include "common/cli.h"
#include "common/message.h"
#include "common/progress.h"
#include "measure/batch.h"
#include "warp/warp_fault.h"
#include "warp/warp_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One shared record for every CPU: beyond this many the test measures its contention. */
#define WARP_MAX_CPUS 256
/* Share of the run spent on the resolution reads (the rest goes to the cross-CPU test). */
#define RESOLUTION_SHARE 0.1
/* Floor of a method's cross-CPU test when the budget is overrun (a slow machine). */
#define MIN_WARP_SECONDS 0.002

static const char help[] =
    "usage: clockscope warp [options]\n"
    "\n"
    "Checks that time never goes backwards between CPUs, for every way of reading it that\n"
    "yields a timestamp (clock_gettime clocks, gettimeofday, raw counters under each\n"
    "ordering): one thread per CPU reads and publishes in sequence, and each read is\n"
    "compared with the one published before it (docs/warp.md).  Also measures the counter's rate against\n"
    "CLOCK_MONOTONIC_RAW (error in ppm from the stated frequency), MONOTONIC's NTP slew,\n"
    "REALTIME steps, and each clock's smallest step and stalls.\n"
    "\n"
    "options:\n"
    "  --seconds S   duration of the whole run (default 5: about 6 s in all with the kernel\n"
    "                log read), shared among the methods\n"
    "  --cpus LIST   CPUs to use, e.g. 0-3 or 0,2 (default: every CPU this process may use)\n"
    "  --only GLOBS  only ids matching these comma-separated globs, e.g. 'counter.*'; without\n"
    "                it: counter.*, libc.* (no CPU-time clocks), vdso and syscall\n"
    "                clock_gettime.monotonic, and any other provider's methods\n"
    "  --progress    say what is checked and how long is left on stderr even when it is not\n"
    "                a terminal (on a terminal it always does)\n"
    "  --json        machine-readable output (schema: docs/json.md)\n"
    "  --help        this text\n";

static const struct exit_use warp_exits[] = {
    {EXIT_OK, "every method that must be monotonic was (unordered counter reads may warp:\n"
              "shown, not judged; nor are CPU-time clocks; REALTIME-based clocks are excused\n"
              "when REALTIME was stepped during the run)"},
    {EXIT_FAILED, NULL},
    {EXIT_USAGE, NULL},
    {EXIT_BROKEN, "a method that must be monotonic went backwards"},
    {EXIT_PARTIAL, "a thread could not run: the other methods are reported"},
    {EXIT_USES_END, NULL},
};

static const struct cli_option warp_decl[] = {
    {.name = "seconds", .metavar = "S", CLI_SECONDS_OF(struct warp_options, seconds, 0.05, 3600)},
    {.name = "cpus", .metavar = "LIST", CLI_STRING_OF(struct warp_options, cpus_arg)},
    {.name = "only", .metavar = "GLOBS", CLI_LIST_OF(struct warp_options, patterns, npatterns)},
    {.name = "json", CLI_FLAG_OF(struct warp_options, json)},
    {.name = "progress", CLI_FLAG_OF(struct warp_options, progress)},
    {0},
};

const struct cli_spec warp_cli = {.cmd = "warp", .help = help, .options = warp_decl,
                                  .exits = warp_exits};

static void parse_args(int argc, char **argv, struct warp_options *o)
{
    struct cpu_list allowed;
    cli_cpus_allowed("warp", &allowed);
    memset(o, 0, sizeof *o);
    o->seconds = 5;
    cli_parse(&warp_cli, argc, argv, o);
    if (o->cpus_arg)
        cli_parse_cpus("warp", o->cpus_arg, &allowed, &o->cpus);
    else
        o->cpus = allowed;
    if (o->cpus.count > WARP_MAX_CPUS)
        usage_error("warp", "%d CPUs: at most %d at once (choose with --cpus)", o->cpus.count,
                    WARP_MAX_CPUS);
}

/* The run has a deadline: what is left is known. */
static void progress(struct progress *pg, size_t i, size_t n, const char *what, const char *id,
                     double deadline)
{
    double left = deadline - clock_ns_seconds(CLOCK_MONOTONIC_RAW);
    progress_say(pg, (double)(i - 1) / (double)n, left > 0 ? left : 0, "%s of %s (%zu of %zu)",
                 what, id, i, n);
}

/* The methods to check (selected and available here) into r->results, and the counters
 * whose rate is bracketed into r->rates.  Returns how many methods are compared across
 * CPUs (a per-thread clock is not). */
static size_t select_methods(struct warp_run *r, struct method_list *ml)
{
    size_t nwarp = 0;
    for (size_t i = 0; i < ml->count; i++)
        if (warp_selected(r->o, &ml->m[i]) && ml->m[i].available) {
            r->results[r->nresults++].m = &ml->m[i];
            nwarp += !warp_per_thread_clock(&ml->m[i]);
        }
    for (size_t i = 0; i < ml->count; i++)
        if (ml->m[i].unit == UNIT_TICKS && ml->m[i].read && ml->m[i].available)
            r->rates[r->nrates++].m = &ml->m[i];
    return nwarp;
}

/* The cross-CPU check of every method that has a common timeline, each given an equal
 * share of the time left before deadline (nwarp of them). */
static void cross_cpu_checks(struct warp_run *r, struct progress *pg, size_t step,
                             size_t nsteps, size_t nwarp, double deadline)
{
    size_t warp_left = nwarp;
    for (size_t i = 0; i < r->nresults; i++) {
        struct method_result *mr = &r->results[i];
        if (warp_per_thread_clock(mr->m)) {
            snprintf(mr->error, sizeof mr->error,
                     "per-thread clock: no common timeline across threads, not compared");
            continue;
        }
        progress(pg, ++step, nsteps, "the cross-CPU check", mr->m->id, deadline);
        mr->ran = true;
        /* Each method gets an equal share of what is left, so that thread start-up and the
         * resolution phase's overshoot do not push the run past --seconds. */
        double left = deadline - clock_ns_seconds(CLOCK_MONOTONIC_RAW);
        double warp_each = left / (double)warp_left--;
        if (warp_each < MIN_WARP_SECONDS)
            warp_each = MIN_WARP_SECONDS;
        mr->cross_ok = warp_collect(mr->m, r->o->cpus.cpu, r->o->cpus.count, warp_each, &mr->c,
                                    mr->error, sizeof mr->error);
        if (mr->cross_ok)
            warp_summarize(&mr->c.matrix, &mr->s);
        else
            r->failures++;
    }
}

void warp_run_all(struct warp_run *r, struct method_list *ml)
{
    struct warp_options *o = r->o;
    struct progress pg;
    progress_init(&pg, "warp", o->progress);
    pg.on &= !o->quiet;
    size_t nwarp = select_methods(r, ml);
    double res_each = r->nresults ? o->seconds * RESOLUTION_SHARE / (double)r->nresults : 0;

    /* The main thread stays on the first CPU: rate brackets must read one CPU's counter. */
    cpuset_pin(o->cpus.cpu[0]);
    r->stated_hz = arch_counter_stated_hz(r->stated_source, sizeof r->stated_source);
    if (arch_kernel_logs_counter_calibration())
        kernel_log_tsc_claim(&r->kernel);
    struct clock_sample drift_start, drift_end;
    clock_sample_take(&drift_start);
    for (size_t i = 0; i < r->nrates; i++)
        r->rates[i].have_start = bracket_read(r->rates[i].m, &r->rates[i].start);
    double started = clock_ns_seconds(CLOCK_MONOTONIC_RAW);
    double deadline = started + o->seconds;

    size_t step = 0, nsteps = r->nresults + nwarp;
    for (size_t i = 0; i < r->nresults; i++) {
        struct method_result *mr = &r->results[i];
        progress(&pg, ++step, nsteps, "resolution", mr->m->id, deadline);
        resolution_collect(mr->m, res_each, &mr->res);
        struct timespec ts;
        mr->getres_ns = mr->m->clock && clock_getres(mr->m->clock_id, &ts) == 0
                            ? (double)clock_ns_of(&ts) : NAN;
    }
    cross_cpu_checks(r, &pg, step, nsteps, nwarp, deadline);
    progress_end(&pg);
    clock_sample_take(&drift_end);
    for (size_t i = 0; i < r->nrates; i++) {
        struct rate_entry *e = &r->rates[i];
        e->have_end = bracket_read(e->m, &e->end);
        e->rate_ok = e->have_start && e->have_end &&
                     counter_rate_between(&e->start, &e->end, &e->rate);
    }
    clock_drift_between(&drift_start, &drift_end, &r->drift);
    r->elapsed_s = clock_ns_seconds(CLOCK_MONOTONIC_RAW) - started;

    for (size_t i = 0; i < r->nresults; i++) {
        struct method_result *mr = &r->results[i];
        mr->ns_per_unit = warp_ns_per_unit(r, mr->m);
        if (mr->cross_ok && mr->s.backward_steps &&
            warp_must_be_monotonic(mr->m, r->drift.realtime_stepped))
            r->judged_backward++;
    }
}

int cmd_warp(int argc, char **argv)
{
    static struct warp_options o;
    parse_args(argc, argv, &o);
    static struct method_list ml;
    methods_collect(&ml);
    const char *fault_spec = getenv(WARP_FAULT_ENV);
    if (fault_spec && *fault_spec) {
        struct warp_fault fault;
        char err[MSG_LINE];
        if (!warp_fault_parse(fault_spec, &fault, err, sizeof err))
            usage_error("warp", "%s: %s", WARP_FAULT_ENV, err);
        warp_fault_apply(&fault, &ml);
        fprintf(stderr, "clockscope warp: %s=%s: injecting a fault into every clock read "
                        "(a test, not a measurement)\n", WARP_FAULT_ENV, fault_spec);
    }
    size_t nsel = 0;
    for (size_t i = 0; i < ml.count; i++)
        nsel += warp_selected(&o, &ml.m[i]);
    if (!nsel)
        usage_error("warp", "no method matches --only (warp takes methods that return a "
                            "timestamp in ns or ticks; see 'clockscope bench --list')");

    struct warp_run r = {.o = &o};
    r.results = calloc(ml.count, sizeof *r.results);
    r.rates = calloc(ml.count, sizeof *r.rates);
    if (!r.results || !r.rates) {
        fprintf(stderr, "clockscope warp: out of memory\n");
        return EXIT_FAILED;
    }
    sysinfo_read(&r.si);
    warp_run_all(&r, &ml);
    if (o.json)
        warp_print_json(&r, &ml);
    else
        warp_print_text(&r, &ml);
    for (size_t i = 0; i < r.nresults; i++)
        if (r.results[i].cross_ok)
            warp_collected_free(&r.results[i].c);
    free(r.results);
    free(r.rates);
    return r.judged_backward ? EXIT_BROKEN : r.failures ? EXIT_PARTIAL : EXIT_OK;
}
