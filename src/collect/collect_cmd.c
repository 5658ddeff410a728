/* SPDX-License-Identifier: MIT */
/* clockscope collect: every part (facts, doctor, bench, warp, ladder; profile on request) run as a child of this
 * binary with --json, gathered into one self-describing bundle (docs/json.md). */
#include "collect/bundle_file.h"
#include "common/environment.h"
#include "common/clock_ns.h"
#include "common/json_read.h"
#include "collect/parts.h"
#include "commands.h"
#include "common/cli.h"
#include "common/version.h"
#include "common/json.h"
#include "common/message.h"
#include "common/subprocess.h"
#include "facts/sysinfo.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>


#define BUNDLE_SCHEMA "clockscope.bundle/1"
#define PART_OUTPUT_CAP (32u << 20)   /* a part's JSON is tens of KB; this is a runaway */

static const char help[] =
    "usage: clockscope collect [-o FILE|-|--json] [--name NAME] [--quick] [--parts LIST]\n"
    "                          [--warp-seconds S] [--timeout S]\n"
    "\n"
    "Runs every part available here (facts, doctor, bench, warp, ladder --quick,\n"
    "runtimes), each as this binary with --json, and writes one bundle: the machine's\n"
    "description, the clockscope version, when and how long, and each part's own JSON\n"
    "document under its name (or its error).  `clockscope report` reads bundles from any\n"
    "number of machines.\n"
    "Progress goes to stderr.  A part that fails is recorded and the others still run.\n"
    "\n"
    "  -o, --output FILE  write the bundle to FILE (replaced atomically), '-' stdout.\n"
    "                     Default: stdout when it is a pipe or a file; on a terminal,\n"
    "                     a new file clockscope-HOST-YYYY-MM-DDTHHMM.json (UTC) here,\n"
    "                     never over an existing one (-2, -3 ... added), named on stderr\n"
    "  --json             the bundle to stdout, even on a terminal (as -o -)\n"
    "  --name NAME        the machine's name in reports (default: the host name)\n"
    "  --quick            bench --quick, a 1 s warp, runtimes --samples 5\n"
    "  --parts LIST       only these parts, comma-separated:\n"
    "                     facts,doctor,bench,warp,ladder,runtimes;\n"
    "                     profile (perf under a clock loop) only when named here\n"
    "  --warp-seconds S   warp's duration (default 2, quick 1; at most 60)\n"
    "  --timeout S        each part's deadline (default: 60 s for facts and warp, 120 s\n"
    "                     for doctor, 180 s for bench, 600 s for runtimes); a part past\n"
    "                     it is killed\n"
    "\n"
    "Schema: clockscope.bundle/1 (docs/json.md).  In a VM:\n"
    "  clockscope vm --arch riscv64 -- collect -o - > riscv64.json\n";

static const struct exit_use collect_exits[] = {
    {EXIT_OK, "every part recorded its document"},
    {EXIT_FAILED, "the bundle could not be written"},
    {EXIT_USAGE, NULL},
    {EXIT_PARTIAL, "the bundle was written, but a part failed (its error is in the bundle)"},
    {EXIT_USES_END, NULL},
};

struct part_run {
    const struct part *part;
    char *out;                  /* its stdout */
    size_t len;
    bool ok;                    /* out is its JSON document */
    char schema[64];
    char error[MSG_REASON];
    struct run_outcome oc;
    double elapsed_s;
    char err_tail[MSG_TEXT];
    char *argv[PART_MAX_ARGS + 1];
    char argbuf[64];
};

/* The program that runs the parts: this very binary (a test may name another). */
static const char *self_program(void)
{
    const char *env = getenv(ENV_COLLECT_SELF);
    if (env && env[0])
        return env;
    if (access("/proc/self/exe", X_OK) == 0)
        return "/proc/self/exe";
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    return execfn ? execfn : "clockscope";
}

/* Trailing whitespace is the document's final newline: not part of the value. */
static void trim_end(struct part_run *r)
{
    while (r->len && (r->out[r->len - 1] == '\n' || r->out[r->len - 1] == ' ' ||
                      r->out[r->len - 1] == '\r' || r->out[r->len - 1] == '\t'))
        r->len--;
}

static void run_part(struct part_run *r, const struct collect_config *cfg, const char *program)
{
    part_argv(r->part, cfg, program, r->argv, r->argbuf, sizeof r->argbuf);
    double timeout = cfg->timeout_s > 0 ? cfg->timeout_s : r->part->timeout_s;
    char why[MSG_LINE];
    double t0 = clock_ns_monotonic_s();
    bool started = run_capture_all(r->argv, (int)(timeout * 1000), PART_OUTPUT_CAP, &r->out,
                                   &r->len, r->err_tail, sizeof r->err_tail, &r->oc, why,
                                   sizeof why);
    r->elapsed_s = clock_ns_monotonic_s() - t0;
    if (!started) {
        snprintf(r->error, sizeof r->error, "could not start: %s", why);
        return;
    }
    trim_end(r);
    char check[MSG_LINE];
    if (r->oc.timed_out)
        snprintf(r->error, sizeof r->error, "did not finish within %g s (killed)", timeout);
    else if (r->oc.signal)
        snprintf(r->error, sizeof r->error, "killed by signal %d (%s)", r->oc.signal,
                 strsignal(r->oc.signal));
    else if (r->oc.exit_status == 127 && r->len == 0)
        snprintf(r->error, sizeof r->error, "could not run %s", program);
    else if (r->len == 0)
        snprintf(r->error, sizeof r->error, "exit status %d, no output", r->oc.exit_status);
    else if (r->oc.truncated)
        snprintf(r->error, sizeof r->error, "wrote more than %u bytes", PART_OUTPUT_CAP);
    else if (!json_check(r->out, r->len, r->schema, sizeof r->schema, check, sizeof check))
        snprintf(r->error, sizeof r->error, "exit status %d, output %s", r->oc.exit_status,
                 check);   /* check: "not JSON: what at byte N" */
    else if (strncmp(r->schema, "clockscope.", 11) != 0)
        snprintf(r->error, sizeof r->error,
                 "exit status %d, output is JSON without a clockscope schema",
                 r->oc.exit_status);
    else
        r->ok = true;
}

static void machine_json(struct json *j, const char *name)
{
    struct sysinfo s;
    sysinfo_read(&s);
    struct utsname u;
    const char *host = uname(&u) == 0 ? u.nodename : "";
    char fallback[MSG_LINE];
    if (!name) {
        /* A VM guest has no host name ("(none)"): its arch and hypervisor name it. */
        if (host[0] && strcmp(host, "(none)") != 0 && strcmp(host, "localhost") != 0) {
            name = host;
        } else {
            snprintf(fallback, sizeof fallback, "%s-%s", s.arch,
                     s.emulation.kind[0] ? s.emulation.kind :
                     s.virtualization[0] ? s.virtualization : "unknown");
            name = fallback;
        }
    }
    json_begin_object(j);
    json_kv_string(j, "name", name);
    json_kv_string(j, "hostname", host);
    json_kv_string(j, "arch", s.arch);
    json_kv_string(j, "cpu_model", s.cpu_model[0] ? s.cpu_model : NULL);
    json_kv_string(j, "kernel", s.kernel[0] ? s.kernel : NULL);
    json_kv_string(j, "clocksource", s.clocksource[0] ? s.clocksource : NULL);
    json_kv_string(j, "available_clocksource",
                   s.available_clocksource[0] ? s.available_clocksource : NULL);
    json_kv_string(j, "virtualization", s.virtualization[0] ? s.virtualization : NULL);
    json_kv_string(j, "virtualization_source",
                   s.virtualization_source[0] ? s.virtualization_source : NULL);
    emulation_json(j, &s.emulation);
    json_kv_int(j, "cpus_online", s.cpus_online);
    if (s.loadavg_1m >= 0)
        json_kv_double(j, "loadavg_1m", s.loadavg_1m);
    else
        json_kv_null(j, "loadavg_1m");
    json_end_object(j);
}

static void runs_json(struct json *j, const struct part_run *runs, size_t n)
{
    json_begin_object(j);
    for (size_t i = 0; i < n; i++) {
        const struct part_run *r = &runs[i];
        json_key(j, r->part->name);
        json_begin_object(j);
        json_key(j, "argv");
        json_begin_array(j);
        json_string(j, "clockscope");
        for (int a = 1; r->argv[a]; a++)
            json_string(j, r->argv[a]);
        json_end_array(j);
        json_kv_bool(j, "ok", r->ok);
        json_kv_string(j, "schema", r->ok ? r->schema : NULL);
        if (r->oc.exit_status >= 0)
            json_kv_int(j, "exit_status", r->oc.exit_status);
        else
            json_kv_null(j, "exit_status");
        if (r->oc.signal)
            json_kv_int(j, "signal", r->oc.signal);
        else
            json_kv_null(j, "signal");
        json_kv_bool(j, "timed_out", r->oc.timed_out);
        json_kv_double(j, "elapsed_s", r->elapsed_s);
        json_kv_string(j, "stderr_tail", r->err_tail);
        json_end_object(j);
    }
    json_end_object(j);
}

static void bundle_json(FILE *out, const char *name, const struct collect_config *cfg,
                        const struct part_run *runs, size_t n, const char *started,
                        double duration_s)
{
    struct json j;
    json_init(&j, out, 1);
    json_begin_object(&j);
    json_kv_string(&j, "schema", BUNDLE_SCHEMA);
    json_key(&j, "machine");
    machine_json(&j, name);
    json_key(&j, "clockscope");
    json_begin_object(&j);
    json_kv_string(&j, "version", clockscope_version());
    json_end_object(&j);
    json_kv_string(&j, "started", started);
    json_kv_double(&j, "duration_s", duration_s);
    json_key(&j, "config");
    json_begin_object(&j);
    json_kv_bool(&j, "quick", cfg->quick);
    json_kv_double(&j, "warp_seconds", cfg->warp_seconds);
    json_end_object(&j);
    json_key(&j, "parts");
    json_begin_object(&j);
    for (size_t i = 0; i < n; i++) {
        json_key(&j, runs[i].part->name);
        if (runs[i].ok) {
            json_raw(&j, runs[i].out, runs[i].len);
        } else {
            json_begin_object(&j);
            json_kv_string(&j, "error", runs[i].error);
            json_end_object(&j);
        }
    }
    json_end_object(&j);
    json_key(&j, "runs");
    runs_json(&j, runs, n);
    json_end_object(&j);
    json_finish(&j);
}

/* Standard fds that are closed would be reused by our pipes (and stay close-on-exec in
 * the child): put /dev/null there.  Returns whether stdout was open. */
static bool standard_fds_open(void)
{
    bool stdout_open = true;
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1)
            continue;
        if (fd == 1)
            stdout_open = false;
        int n = open("/dev/null", O_RDWR);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
    return stdout_open;
}

struct collect_options {
    const char *output, *name;
    bool quick, json;
    const char *parts[16];
    int nparts;
    double warp_seconds, timeout_s;
};

/* --parts: each item names a part of the table (parts.c). */
static bool known_part(void *opts, const char *name, char *why, size_t whylen)
{
    (void)opts;
    if (part_find(name))
        return true;
    char known[MSG_LINE] = "";
    for (size_t i = 0; i < collect_nparts; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 collect_parts[i].name);
    snprintf(why, whylen, "unknown part '%s' (parts: %s)", name, known);
    return false;
}

/* --name: shown in reports as the machine's name. */
static bool name_length(void *opts, const char *name, char *why, size_t whylen)
{
    (void)opts;
    if (strlen(name) <= 100)
        return true;
    snprintf(why, whylen, "'%.20s...' is longer than 100 characters", name);
    return false;
}

static const struct cli_option collect_decl[] = {
    {.name = "output", .short_name = 'o', .metavar = "FILE",
     CLI_STRING_OF(struct collect_options, output)},
    {.name = "name", .metavar = "NAME", .check = name_length,
     CLI_STRING_OF(struct collect_options, name)},
    {.name = "quick", CLI_FLAG_OF(struct collect_options, quick)},
    {.name = "json", .excludes = "output", CLI_FLAG_OF(struct collect_options, json)},
    {.name = "parts", .metavar = "LIST", .check = known_part,
     CLI_LIST_OF(struct collect_options, parts, nparts)},
    {.name = "warp-seconds", .metavar = "S",
     CLI_SECONDS_OF(struct collect_options, warp_seconds, 0.1, 60)},
    {.name = "timeout", .metavar = "S", CLI_SECONDS_OF(struct collect_options, timeout_s, 0.1, 3600)},
    {0},
};

const struct cli_spec collect_cli = {.cmd = "collect", .help = help, .options = collect_decl,
                                     .exits = collect_exits};

/* The stem of the new file a bundle goes to when stdout is a terminal: the machine's
 * name (--name, else the host name) and the time. */
static void terminal_stem(char *stem, size_t stemlen, const char *name)
{
    char host[256] = "";
    if (name)
        snprintf(host, sizeof host, "%s", name);
    else if (gethostname(host, sizeof host - 1) != 0)
        host[0] = 0;
    bundle_default_stem(stem, stemlen, host, time(NULL));
}

/* Marks the parts to run: those --parts names, or without it every part not kept for
 * when it is asked for.  Returns how many. */
static size_t select_parts(bool *selected, const struct collect_options *o)
{
    for (size_t i = 0; i < collect_nparts; i++)
        selected[i] = o->nparts == 0 && !part_on_request(&collect_parts[i]);
    for (int k = 0; k < o->nparts; k++)
        selected[part_find(o->parts[k]) - collect_parts] = true;
    size_t total = 0;
    for (size_t i = 0; i < collect_nparts; i++)
        total += selected[i];
    return total;
}

static void free_runs(struct part_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(runs[i].out);
}

/* Runs the selected parts one after another into runs[], with a progress line each;
 * a stop signal ends us by that signal without a bundle.  Returns how many ran. */
static size_t run_selected(struct part_run *runs, const bool *selected, size_t total,
                           const struct collect_config *cfg, size_t *failed)
{
    const char *program = self_program();
    size_t n = 0;
    for (size_t i = 0; i < collect_nparts; i++) {
        if (!selected[i])
            continue;
        struct part_run *r = &runs[n++];
        r->part = &collect_parts[i];
        fprintf(stderr, "clockscope collect: [%zu/%zu] %s (%s) ...", n, total, r->part->name,
                r->part->what);
        fflush(stderr);
        run_part(r, cfg, program);
        if (subprocess_stop_signal()) {
            fprintf(stderr, " stopped by signal %d (%s)\n", subprocess_stop_signal(),
                    strsignal(subprocess_stop_signal()));
            free_runs(runs, n);
            subprocess_end_by_signal(subprocess_stop_signal());
        }
        if (r->ok) {
            fprintf(stderr, " ok, %.1f s\n", r->elapsed_s);
        } else {
            (*failed)++;
            fprintf(stderr, " FAILED after %.1f s: %s\n", r->elapsed_s, r->error);
        }
    }
    return n;
}

/* Writes the bundle of runs to output ("-" stdout), or with output NULL to a new file
 * named from stem, and says where on stderr.  Returns the exit status. */
static int write_bundle(const char *output, const char *stem, const char *name,
                        const struct collect_config *cfg, struct part_run *runs, size_t n,
                        size_t failed, const char *started, double t0)
{
    char err[MSG_LINE] = "the bundle could not be assembled in memory", written_to[MSG_REASON] = "";
    char *data = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&data, &len);
    if (!mem) {
        fprintf(stderr, "clockscope collect: out of memory\n");
        return EXIT_FAILED;
    }
    bundle_json(mem, name, cfg, runs, n, started, clock_ns_monotonic_s() - t0);
    bool written = fclose(mem) == 0 &&
                   (output ? bundle_write(output, data, len, err, sizeof err)
                           : bundle_write_new(stem, data, len, written_to, sizeof written_to,
                                              err, sizeof err));
    if (output && strcmp(output, "-") != 0)
        snprintf(written_to, sizeof written_to, "%s", output);
    free(data);
    free_runs(runs, n);
    if (!written) {
        fprintf(stderr, "clockscope collect: %s\n", err);
        return EXIT_FAILED;
    }
    fprintf(stderr, "clockscope collect: %zu of %zu parts recorded in %.1f s%s%s\n", n - failed,
            n, clock_ns_monotonic_s() - t0, written_to[0] ? ", bundle written to " : "",
            written_to);
    return failed ? EXIT_PARTIAL : EXIT_OK;
}

int cmd_collect(int argc, char **argv)
{
    struct collect_options o = {0};
    cli_parse(&collect_cli, argc, argv, &o);
    /* Thousands of lines of JSON are no use on a terminal: there, unless -o says otherwise,
     * the bundle goes to a new file named after the machine and the time (output NULL). */
    const char *output = o.output ? o.output : o.json || !isatty(STDOUT_FILENO) ? "-" : NULL;
    char stem[200] = "";
    if (!output)
        terminal_stem(stem, sizeof stem, o.name);
    struct collect_config cfg = {o.quick, o.warp_seconds, o.timeout_s};
    bool selected[16];
    size_t total = select_parts(selected, &o);
    char err[MSG_LINE];
    if (cfg.warp_seconds == 0)
        cfg.warp_seconds = cfg.quick ? 1 : 2;
    bool stdout_open = standard_fds_open();
    if (output && strcmp(output, "-") == 0 && !stdout_open) {
        fprintf(stderr, "clockscope collect: stdout is closed: nowhere to write the bundle\n");
        return EXIT_FAILED;
    }
    if (!bundle_target_ok(output ? output : stem, err, sizeof err)) {
        fprintf(stderr, "clockscope collect: %s\n", err);
        return EXIT_FAILED;
    }
    if (!output)
        fprintf(stderr, "clockscope collect: stdout is a terminal: the bundle goes to a new "
                "file %s.json in this directory when done (-o - for stdout)\n", stem);
    /* A reader of our stdout that goes away must not kill us before we say so. */
    signal(SIGPIPE, SIG_IGN);
    /* SIGINT/SIGTERM/SIGHUP go to the part running, which cleans up after itself; then we
     * end by that signal without a bundle.  SIGKILL: each part dies with us (PDEATHSIG). */
    subprocess_forward_signals();

    char started[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    double t0 = clock_ns_monotonic_s();
    static struct part_run runs[16];
    size_t failed = 0;
    size_t n = run_selected(runs, selected, total, &cfg, &failed);
    if (subprocess_stop_signal()) /* after the last part: no bundle either */
        subprocess_end_by_signal(subprocess_stop_signal());
    return write_bundle(output, stem, o.name, &cfg, runs, n, failed, started, t0);
}
