/* SPDX-License-Identifier: MIT */
/* clockscope runtimes: what reading the time costs in Python, Go, Java, Node, Rust and C
 * here, each figure beside its harness, with the path underneath (docs/runtimes.md). */
#include "commands.h"
#include "common/environment.h"
#include "common/cli.h"
#include "common/progress.h"
#include "common/subprocess.h"
#include "facts/sysinfo.h"
#include "runtimes/runtimes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: clockscope runtimes [options] [--json]\n"
    "\n"
    "Times each clock API of every language runtime found here (Python's time.time,\n"
    "Go's time.Now, Java's System.nanoTime, Node's process.hrtime, Rust's Instant::now,\n"
    "and C through libc as the reference) in the runtime's own loop, beside the cost of\n"
    "that loop without the call (the harness: shown, and subtracted; for ctypes, the FFI\n"
    "call of a libc function that does nothing).\n"
    "Each row says which clock it reads, whether through libc (so `clockscope run` can\n"
    "serve it) or the vDSO directly (Go), and whether it enters the kernel here: syscalls\n"
    "per call, counted as the doctor's proof counts them.  The probes are small programs\n"
    "in the runtime's own language, installed with clockscope; compiled ones (Go, Java,\n"
    "Rust) are built once with the runtime's own toolchain and kept in\n"
    "~/.cache/clockscope/probes.  A runtime that is absent, or whose probe fails, hangs\n"
    "or prints anything but the protocol, is one row saying so; the others still report.\n"
    "\n"
    "  --only RUNTIMES  comma-separated: c, python, go, java, node, rust (default: all)\n"
    "  --python PATH   the Python interpreter to measure (default: python3 on PATH)\n"
    "  --go-probe PATH a Go probe already built (CGO_ENABLED=0 go build of probe.go):\n"
    "                  for machines without go, e.g. `clockscope vm --add`\n"
    "  --samples N     timed samples per API and per harness in all (3 to 200; default 15),\n"
    "                  shared among the processes\n"
    "  --processes N   runs of each probe the figures are taken across (default: as many as\n"
    "                  the samples allow at 3 each: 5); each its own process, Python's each\n"
    "                  with its own PYTHONHASHSEED; the figure is the median over them.\n"
    "                  By default, when the reference says the machine's speed moved\n"
    "                  and fewer than 3 ran at its fastest, more (up to as many again);\n"
    "                  with N, exactly N\n"
    "  --timeout S     each probe's (and each build's) time limit (default 120)\n"
    "  --no-count      do not count syscalls ('kernel' unknown)\n"
    "  --progress      say which runtime is measured and how long is left on stderr even\n"
    "                  when it is not a terminal (on a terminal it always does)\n"
    "  --verbose       under each row marked * (or in two levels), what its processes and\n"
    "                  the reference said; by default one summary after the table says it\n"
    "  --json          clockscope.runtimes/2 (docs/json.md)\n"
    "\n"
    "Duration: under 2 s for each of C, Go, Rust, Java and Node (the JVM's start-up\n"
    "included), about 6 s for Python (its loop is slow), on an idle 2-CPU machine; twice\n"
    "that on a busy one; plus the first build of a compiled probe (Go, Java, Rust: up to a\n"
    "minute each, once).\n"
    "Environment: CLOCKSCOPE_PROBES, the directory of the probe sources.\n";

static const struct exit_use runtimes_exits[] = {
    {EXIT_OK, "every runtime found was measured"},
    {EXIT_FAILED, NULL},
    {EXIT_USAGE, NULL},
    {EXIT_PARTIAL, "a runtime's probe failed (said in its row): the others are reported"},
    {EXIT_USES_END, NULL},
};

struct runtimes_options {
    bool json, no_count, progress, verbose;
    const char *only[RUNTIMES_MAX];
    int nonly;
    const char *python, *go_probe;
    int samples, processes;
    double timeout_s;
};

static bool known_runtime(void *opts, const char *value, char *why, size_t whylen)
{
    (void)opts;
    if (runtime_find(value))
        return true;
    cli_not_one_of(why, whylen, value, "c, python, go, java, node, rust");
    return false;
}

static const struct cli_option decl[] = {
    {.name = "json", CLI_FLAG_OF(struct runtimes_options, json)},
    {.name = "only", .metavar = "RUNTIMES", .check = known_runtime,
     CLI_LIST_OF(struct runtimes_options, only, nonly)},
    {.name = "python", .metavar = "PATH", CLI_STRING_OF(struct runtimes_options, python)},
    {.name = "go-probe", .metavar = "PATH", CLI_STRING_OF(struct runtimes_options, go_probe)},
    {.name = "samples", .metavar = "N",
     CLI_UINT_OF(struct runtimes_options, samples, PROBE_MIN_SAMPLES, PROBE_MAX_SAMPLES)},
    {.name = "processes", .metavar = "N",
     CLI_UINT_OF(struct runtimes_options, processes, 1, ACROSS_MAX)},
    {.name = "timeout", .metavar = "S", CLI_SECONDS_OF(struct runtimes_options, timeout_s, 1, 3600)},
    {.name = "no-count", CLI_FLAG_OF(struct runtimes_options, no_count)},
    {.name = "progress", CLI_FLAG_OF(struct runtimes_options, progress)},
    {.name = "verbose", CLI_FLAG_OF(struct runtimes_options, verbose)},
    {0},
};

const struct cli_spec runtimes_cli = {.cmd = "runtimes", .help = help, .options = decl,
                                      .exits = runtimes_exits};

static bool selected(const struct runtimes_options *o, const char *name)
{
    for (int i = 0; i < o->nonly; i++)
        if (strcmp(o->only[i], name) == 0)
            return true;
    return o->nonly == 0;
}

int cmd_runtimes(int argc, char **argv)
{
    const char *probe = getenv(ENV_RUNTIMES_PROBE);
    if (probe && strcmp(probe, "c") == 0)
        return runtimes_probe_c_main(argc, argv);
    struct runtimes_options o = {.samples = 15, .timeout_s = 120};
    cli_parse(&runtimes_cli, argc, argv, &o);

    static struct runtimes_config cfg;
    cfg.python = o.python;
    cfg.go_probe = o.go_probe;
    /* As many processes as the samples allow with the protocol's least each (15 / 3: 5),
     * so that the run takes about as long as one probe run taking every sample did. */
    cfg.processes = o.processes ? o.processes : o.samples / PROBE_MIN_SAMPLES;
    cfg.processes_given = o.processes != 0;
    if (cfg.processes < 1)
        cfg.processes = 1;
    cfg.samples = (o.samples + cfg.processes - 1) / cfg.processes;
    if (cfg.samples < PROBE_MIN_SAMPLES)
        cfg.samples = PROBE_MIN_SAMPLES;
    cfg.sample_us = 2000;
    cfg.timeout_ms = (int)(o.timeout_s * 1000);
    cfg.count = !o.no_count;
    runtimes_locate(&cfg);
    /* A stop signal reaches the probe or build running (which then ends); the cache's
     * half-built directory is removed as for any failed build, then we end by it. */
    subprocess_forward_signals();

    struct sysinfo si;
    sysinfo_read(&si);
    static struct runtimes_result res;
    if (cfg.count)
        runtimes_check_count(&cfg, &res);
    else
        snprintf(res.count_why, sizeof res.count_why, "--no-count");
    struct progress pg;
    progress_init(&pg, "runtimes", o.progress);
    struct progress_work work = {0};
    for (size_t i = 0; i < runtime_ndefs; i++)
        if (selected(&o, runtime_defs[i].name))
            work.total_s += runtime_defs[i].expected_s;
    for (size_t i = 0; i < runtime_ndefs && !subprocess_stop_signal(); i++)
        if (selected(&o, runtime_defs[i].name)) {
            progress_say_work(&pg, &work, "%s (%d probe processes)", runtime_defs[i].name,
                              cfg.processes);
            runtimes_measure(&runtime_defs[i], &cfg, &res);
            work.done_s += runtime_defs[i].expected_s;
        }
    progress_end(&pg);
    if (subprocess_stop_signal())
        subprocess_end_by_signal(subprocess_stop_signal());
    if (o.json)
        runtimes_print_json(&si, &res, &cfg);
    else
        runtimes_print_table(&si, &res, o.verbose);
    for (int i = 0; i < res.nrows; i++)
        if (res.rows[i].state == RT_FAILED)
            return EXIT_PARTIAL;
    return EXIT_OK;
}
