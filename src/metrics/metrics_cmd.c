/* SPDX-License-Identifier: MIT */
/* clockscope metrics: the doctor's verdict, the cost of reading the time and warp's backward
 * steps as Prometheus metrics, for node_exporter's textfile collector (docs/metrics.md). */
#include "commands.h"
#include "common/clock_ns.h"
#include "common/cli.h"
#include "common/message.h"
#include "metrics/emit.h"
#include "metrics/gather.h"
#include "metrics/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The warp's share of a full run: long enough to compare every CPU pair a few thousand
 * times, short enough for a timer that runs every minute. */
#define METRICS_WARP_SECONDS 1.0

static const char help[] =
    "usage: clockscope metrics [--textfile-dir DIR] [--quick] [--root DIR]\n"
    "\n"
    "Measures what `doctor` and `warp` measure (the verdict proven by counting syscalls, the\n"
    "cost of each way of reading the time, the findings, the clocksources, backward steps\n"
    "between CPUs in a 1 s warp) and prints it as Prometheus metrics (the text format that\n"
    "node_exporter's textfile collector reads; docs/metrics.md names every metric).\n"
    "\n"
    "  --textfile-dir DIR  write DIR/clockscope.prom instead of printing: a temporary file\n"
    "                      in DIR, synced, renamed over it (a scrape never sees half a file)\n"
    "  --quick             no warp (the proof and the verdict only: well under a second)\n"
    "  --root DIR          the verdict and findings of a facts root (saved by `clockscope\n"
    "                      facts`, a sosreport, unpacked or .tar.xz/.tar.gz): nothing measured\n";

static const struct exit_use metrics_exits[] = {
    {EXIT_OK, "every part measured, the metrics written"},
    {EXIT_FAILED, "the metrics could not be made or written"},
    {EXIT_USAGE, "also a DIR that is not a writable directory, a facts root that cannot be read"},
    {EXIT_PARTIAL, "a part could not be measured: the metrics are still written, with\n"
                   "clockscope_run_success 0 (the verdict is a gauge, not the status)"},
    {EXIT_USES_END, NULL},
};

struct metrics_options {
    const char *textfile_dir, *root;
    bool quick;
};

static const struct cli_option metrics_decl[] = {
    {.name = "textfile-dir", .metavar = "DIR", CLI_STRING_OF(struct metrics_options, textfile_dir)},
    {.name = "quick", CLI_FLAG_OF(struct metrics_options, quick)},
    {.name = "root", .metavar = "DIR", CLI_STRING_OF(struct metrics_options, root)},
    {0},
};

const struct cli_spec metrics_cli = {.cmd = "metrics", .help = help, .options = metrics_decl,
                                     .exits = metrics_exits};

/* Checked before anything is measured, so that a wrong DIR costs no second of warp. */
static void check_textfile_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        usage_error("metrics", "--textfile-dir '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        usage_error("metrics", "--textfile-dir '%s' is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        usage_error("metrics", "--textfile-dir '%s' is not writable: %s", dir, strerror(errno));
}

int cmd_metrics(int argc, char **argv)
{
    struct metrics_options o = {0};
    cli_parse(&metrics_cli, argc, argv, &o);
    if (o.textfile_dir)
        check_textfile_dir(o.textfile_dir);

    static struct metrics_run r;
    if (!metrics_gather(o.root, o.quick ? 0 : METRICS_WARP_SECONDS, &r))
        usage_error("metrics", "%s", r.why);
    struct prom p;
    prom_init(&p);
    metrics_emit(&r, clock_ns_seconds(CLOCK_REALTIME), &p);
    metrics_run_free(&r);
    if (prom_error(&p)) {
        fprintf(stderr, "clockscope metrics: internal error: %s\n", prom_error(&p));
        prom_free(&p);
        return EXIT_FAILED;
    }
    int status = r.success ? EXIT_OK : EXIT_PARTIAL;
    if (!r.success)
        fprintf(stderr, "clockscope metrics: %s\n", r.why);
    if (o.textfile_dir) {
        char why[MSG_WITH_PATH];
        if (!textfile_write(o.textfile_dir, p.text, p.len, why, sizeof why)) {
            fprintf(stderr, "clockscope metrics: %s\n", why);
            status = EXIT_FAILED;
        }
    } else {
        fwrite(p.text, 1, p.len, stdout);
    }
    prom_free(&p);
    return status;
}
