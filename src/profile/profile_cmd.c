/* SPDX-License-Identifier: MIT */
/* clockscope profile: how much of a program's CPU goes to reading the time, and through
 * which path (docs/profile.md).  Live: perf record -g, perf script, attribution; offline:
 * saved perf script or perf report text, or a perf.data file. */
#include "commands.h"
#include "common/cli.h"
#include "common/message.h"
#include "common/subprocess.h"
#include "facts/sysinfo.h"
#include "profile/counter_cost.h"
#include "profile/perf_access.h"
#include "profile/perf_run.h"
#include "profile/perf_text.h"
#include "profile/profile_view.h"

#include "profile/count_table.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INPUT_CAP (1u << 30)

struct profile_options {
    bool json, all_cpus, clock_loop, count;
    int pid, frequency, top, call_graph;
    double seconds;
    const char *event, *perf_script, *perf_report, *perf_data;
    const char *command[256]; /* after "--" */
    int ncommand;
};

static const char help[] =
    "usage: clockscope profile [options] -- COMMAND [ARG...]\n"
    "       clockscope profile [options] (--pid PID | --all-cpus | --clock-loop) [--seconds S]\n"
    "       clockscope profile [options] (--perf-script FILE | --perf-report FILE | --perf-data FILE)\n"
    "\n"
    "How much of a program's CPU time goes to reading the time, and through which path:\n"
    "every perf sample is attributed, by its call chain, to the vDSO, the C library's\n"
    "wrappers, libfastclock, a runtime's clock function, time syscalls, the kernel's\n"
    "clocksource read (named), or everything else; with the symbols and call sites that\n"
    "read the time, and notes on where the time really goes.\n"
    "\n"
    "Live (needs perf: Debian's linux-perf):\n"
    "  ... -- COMMAND     run COMMAND under perf record -g until it exits\n"
    "  --pid PID          (or -p PID) sample the running process PID\n"
    "  --all-cpus         (or -a) sample every CPU\n"
    "  --clock-loop       the built-in workload: this process reads CLOCK_MONOTONIC through\n"
    "                     libc in a loop while perf samples it (what `collect --parts\n"
    "                     profile` records: the path one clock_gettime() takes here)\n"
    "  --count            with -- COMMAND: run it as `clockscope run --mode count` too, and\n"
    "                     show its calls and calls/s per clock beside the shares\n"
    "  --seconds S        with --pid, --all-cpus or --clock-loop: how long (default 10; 2\n"
    "                     with --clock-loop)\n"
    "  --frequency HZ     samples per second (default 999)\n"
    "  --event NAME       perf event (default cpu-clock: a timer, works in every VM; on a\n"
    "                     machine with a PMU, cycles also samples where interrupts are off)\n"
    "  --call-graph MODE  fp (default: frame pointers, perf record -g) or dwarf (perf copies\n"
    "                     the stack and unwinds it: callers built without frame pointers,\n"
    "                     an interpreter's C frames; larger data, slower to read)\n"
    "Python, Node and Java: perf names their functions only when the runtime writes\n"
    "/tmp/perf-PID.map (python3 -X perf or PYTHONPERFSUPPORT=1, Python 3.12 or later;\n"
    "node --perf-basic-prof; java -XX:+PreserveFramePointer with -XX:+DumpPerfMapAtExit or\n"
    "perf-map-agent); the profile says which applies to the program it ran.\n"
    "Offline:\n"
    "  --perf-script FILE   saved `perf script` text (- reads stdin)\n"
    "  --perf-report FILE   saved `perf report --stdio` text (- reads stdin): each entry's\n"
    "                       own share, no call chains\n"
    "  --perf-data FILE     a perf.data file, read with perf script\n"
    "Output:\n"
    "  --top N            symbols and call sites shown (default 10)\n"
    "  --json             machine-readable output (schema clockscope.profile/2, docs/json.md)\n"
    "  --help             this text\n"
    "\n"
    "Permissions: kernel.perf_event_paranoid and capabilities are read, never changed; what\n"
    "they allow is said (2: user space only; -a needs 0 or CAP_PERFMON).\n";

static const struct exit_use profile_exits[] = {
    {EXIT_OK, "profile made (whatever COMMAND's own status)"},
    {EXIT_FAILED, "perf was not permitted or failed"},
    {EXIT_USAGE, "also an input FILE that cannot be read"},
    {EXIT_MISSING_DEPENDENCY, "perf is not installed (the package to install is named)"},
    {EXIT_BAD_INPUT, "the input is not perf's text (the line is named)"},
    {EXIT_NOT_EXECUTABLE, NULL},
    {EXIT_NOT_FOUND, NULL},
    {EXIT_USES_END, NULL},
};

static const char *const call_graph_names[] = {"fp", "dwarf", NULL};

static const struct cli_option profile_decl[] = {
    {.name = "pid", .short_name = 'p', .metavar = "PID",
     CLI_UINT_OF(struct profile_options, pid, 1, INT_MAX)},
    {.name = "all-cpus", .short_name = 'a', CLI_FLAG_OF(struct profile_options, all_cpus)},
    {.name = "clock-loop", CLI_FLAG_OF(struct profile_options, clock_loop)},
    {.name = "count", CLI_FLAG_OF(struct profile_options, count)},
    {.name = "seconds", .metavar = "S", CLI_SECONDS_OF(struct profile_options, seconds, 0.1, 86400)},
    {.name = "frequency", .metavar = "HZ", CLI_UINT_OF(struct profile_options, frequency, 1, 100000)},
    {.name = "event", .metavar = "NAME", CLI_STRING_OF(struct profile_options, event)},
    {.name = "call-graph", .metavar = "MODE",
     CLI_ENUM_OF(struct profile_options, call_graph, call_graph_names)},
    {.name = "perf-script", .metavar = "FILE", CLI_STRING_OF(struct profile_options, perf_script)},
    {.name = "perf-report", .metavar = "FILE", CLI_STRING_OF(struct profile_options, perf_report)},
    {.name = "perf-data", .metavar = "FILE", CLI_STRING_OF(struct profile_options, perf_data)},
    {.name = "top", .metavar = "N", CLI_UINT_OF(struct profile_options, top, 1, TALLY_NAMES)},
    {.name = "json", CLI_FLAG_OF(struct profile_options, json)},
    {0},
};

const struct cli_spec profile_cli = {.cmd = "profile", .help = help, .options = profile_decl,
                                     CLI_ARGS_OF(struct profile_options, command, ncommand),
                                     .args_usage = "-- COMMAND [ARG...]", .exits = profile_exits};

/* A whole input file (or stdin for "-"), at most INPUT_CAP bytes; NULL fills err. */
static char *read_input(const char *path, size_t *len, char *why, size_t whylen)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fd != STDIN_FILENO && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        snprintf(why, whylen, "%s is not a regular file", path);
        close(fd);
        return NULL;
    }
    if (fd != STDIN_FILENO)
        fcntl(fd, F_SETFL, 0);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= INPUT_CAP) {
                snprintf(why, whylen, "%s is larger than %u MiB", path, INPUT_CAP >> 20);
                free(buf);
                buf = NULL;
                break;
            }
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
            free(buf);
            buf = NULL;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (!buf && !why[0])
        snprintf(why, whylen, "out of memory reading %s", path);
    if (fd != STDIN_FILENO)
        close(fd);
    *len = n;
    return buf;
}

static bool profile_offline(const struct profile_options *o, struct tally *t, struct profile_view *v,
                            int *status, char *why, size_t whylen)
{
    if (o->perf_data) {
        v->source = "perf-data";
        v->input = o->perf_data;
        char perf[PATH_MAX];
        if (access(o->perf_data, R_OK) != 0) {
            snprintf(why, whylen, "cannot read %s: %s", o->perf_data, strerror(errno));
            *status = EXIT_USAGE;
            return false;
        }
        if (!perf_find(perf, sizeof perf, why, whylen)) {
            *status = EXIT_MISSING_DEPENDENCY;
            return false;
        }
        return perf_run_script(perf, o->perf_data, t, why, whylen);
    }
    bool script = o->perf_script != NULL;
    v->source = script ? "perf-script" : "perf-report";
    v->input = script ? o->perf_script : o->perf_report;
    size_t len = 0;
    char *buf = read_input(v->input, &len, why, whylen);
    if (!buf) {
        *status = EXIT_USAGE;
        return false;
    }
    char perr[MSG_REASON];
    bool ok = script ? perf_script_parse(buf, len, t, perr, sizeof perr)
                     : perf_report_parse(buf, len, t, perr, sizeof perr);
    if (!ok) {
        snprintf(why, whylen, "%s: %s", v->input, perr);
        *status = EXIT_BAD_INPUT;
    }
    free(buf);
    return ok;
}

/* --count: COMMAND becomes `THIS_BINARY run --mode count --output FILE -- COMMAND`. */
struct count_run {
    char dir[PATH_MAX], file[PATH_MAX + 16], self[PATH_MAX];
    char *argv[256 + 8];
    struct count_table table;
};

static bool count_wrap(struct count_run *c, char **command, char *why, size_t whylen)
{
    ssize_t n = readlink("/proc/self/exe", c->self, sizeof c->self - 1);
    if (n <= 0) {
        snprintf(why, whylen, "--count: cannot find this program (/proc/self/exe): %s", strerror(errno));
        return false;
    }
    c->self[n] = 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(c->dir, sizeof c->dir, "%s/clockscope-count.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(c->dir)) {
        snprintf(why, whylen, "cannot make a temporary directory %.400s: %s", c->dir, strerror(errno));
        return false;
    }
    snprintf(c->file, sizeof c->file, "%s/count.txt", c->dir);
    int k = 0;
    char *head[] = {c->self, "run", "--mode", "count", "--output", c->file, "--"};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        c->argv[k++] = head[i];
    for (int i = 0; command[i] && k < (int)(sizeof c->argv / sizeof c->argv[0]) - 1; i++)
        c->argv[k++] = command[i];
    c->argv[k] = NULL;
    return true;
}

/* Reads the tables back (a note when there are none) and removes the directory. */
static const struct count_table *count_read(struct count_run *c, struct profile_view *v)
{
    char err[MSG_REASON] = "";
    size_t len = 0;
    char *text = read_input(c->file, &len, err, sizeof err);
    bool ok = text && count_table_parse(text, len, &c->table, err, sizeof err);
    free(text);
    unlink(c->file);
    rmdir(c->dir);
    if (!ok) {
        profile_note(v, "--count: no count table (%s): the program left through _exit(), or "
                     "could not be served by the shim (static, set-user-ID; docs/run.md).", err);
        return NULL;
    }
    int calls = 0;
    for (int p = 0; p < c->table.nprocs; p++)
        calls += c->table.procs[p].ncalls;
    if (calls == 0)
        profile_note(v, "--count: no clock call went through the C library (the shim counts only "
                     "those): the program reads the time by raw syscalls, or is static or Go.");
    return &c->table;
}

static bool profile_live(const struct profile_options *o, char **command, struct tally *t,
                         struct profile_view *v, struct sysinfo *si, int *status, char *err,
                         size_t errlen)
{
    v->live = true;
    v->source = "live";
    v->target = command ? TARGET_COMMAND : o->pid ? TARGET_PID : o->clock_loop ? TARGET_CLOCK_LOOP
                                                                             : TARGET_ALL;
    v->command = command;
    v->pid = o->pid;
    v->seconds = o->seconds;
    char perf[PATH_MAX];
    if (!perf_find(perf, sizeof perf, err, errlen)) {
        *status = EXIT_MISSING_DEPENDENCY;
        return false;
    }
    struct perf_access a;
    struct perf_plan plan;
    perf_access_read(&a);
    perf_plan_for(&a, v->target, &plan);
    if (!plan.allowed) {
        snprintf(err, errlen, "%s", plan.why);
        return false;
    }
    if (command) {
        /* Said before perf starts: perf's own message for a missing program is a data
         * file it cannot read. */
        char path[PATH_MAX];
        int e = subprocess_find_program(command[0], path, sizeof path);
        if (e != 0) {
            snprintf(err, errlen, "%s: %s", command[0], e == ENOENT ? "command not found"
                                                                  : "not executable");
            *status = e == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
            return false;
        }
    }
    /* Python, Node, Java: whether perf will be able to name the program's functions. */
    extern char **environ;
    if (command) {
        char path[PATH_MAX];
        runtime_hint_for(command, subprocess_find_program(command[0], path, sizeof path) == 0
                                      ? path : NULL, environ, &v->runtime);
    } else if (o->pid) {
        runtime_hint_for_pid(o->pid, &v->runtime);
    }
    v->dwarf = o->call_graph == 1;
    sysinfo_read(si);
    v->machine = si;
    struct perf_run_options ro = {.target = v->target, .command = command, .pid = o->pid,
                                  .seconds = o->seconds, .frequency = o->frequency,
                                  .event = o->event, .user_only = plan.user_only,
                                  .command_stdout_to_stderr = o->json, .dwarf = v->dwarf};
    static struct count_run count;
    if (o->count) {
        if (!count_wrap(&count, command, err, errlen))
            return false;
        ro.command = count.argv;
    }
    struct perf_run_result rr;
    bool ok = perf_run_live(&ro, t, &rr, err, errlen);
    if (o->count)
        v->counts = count_read(&count, v);
    v->command_status = rr.command_status;
    v->elapsed_s = rr.elapsed_s;
    if (ok && plan.why[0])
        profile_note(v, "%s", plan.why);
    char advice[MSG_REASON];
    runtime_hint_advice(&v->runtime, v->dwarf, advice, sizeof advice);
    if (ok && advice[0])
        profile_note(v, "%s", advice);
    return ok;
}

int cmd_profile(int argc, char **argv)
{
    struct profile_options o = {.frequency = 999, .top = 10, .event = "cpu-clock"};
    cli_parse(&profile_cli, argc, argv, &o);
    char *command_argv[257];
    for (int i = 0; i < o.ncommand; i++)
        command_argv[i] = (char *)o.command[i];
    command_argv[o.ncommand] = NULL;
    char **command = o.ncommand ? command_argv : NULL;
    int targets = (command != NULL) + (o.pid != 0) + o.all_cpus + o.clock_loop + (o.perf_script != NULL) +
                  (o.perf_report != NULL) + (o.perf_data != NULL);
    if (targets == 0)
        usage_error("profile", "nothing to profile: give -- COMMAND, --pid PID, --all-cpus, "
                    "--clock-loop, --perf-script FILE, --perf-report FILE or --perf-data FILE");
    if (targets > 1)
        usage_error("profile", "give one of -- COMMAND, --pid, --all-cpus, --clock-loop, "
                    "--perf-script, --perf-report, --perf-data");
    bool live = command || o.pid || o.all_cpus || o.clock_loop;
    bool seconds_given = o.seconds > 0;
    if (seconds_given && !(o.pid || o.all_cpus || o.clock_loop))
        usage_error("profile", "--seconds goes only with --pid, --all-cpus or --clock-loop (a "
                    "COMMAND runs until it exits)");
    if (o.count && !command)
        usage_error("profile", "--count goes only with -- COMMAND");
    if (!live && strcmp(o.event, "cpu-clock") != 0)
        usage_error("profile", "--event goes only with a live profile");
    if (!live && o.call_graph != 0)
        usage_error("profile", "--call-graph goes only with a live profile (perf record's)");
    if (!seconds_given)
        o.seconds = o.clock_loop ? 2 : 10;

    static struct tally t; /* tens of KB */
    struct profile_view v = {.t = &t, .top = o.top, .command_status = -1, .elapsed_s = -1,
                             .counter_ns = -1};
    struct sysinfo si;
    char err[MSG_PARAGRAPH] = "";
    int status = EXIT_FAILED;
    /* SIGTERM and SIGHUP (a `timeout`, a closed terminal) stop perf and its workload and
     * remove the temporary files; then we end by that signal (perf_run.c). */
    if (live)
        subprocess_forward_signals();
    bool ok = live ? profile_live(&o, command, &t, &v, &si, &status, err, sizeof err)
                   : profile_offline(&o, &t, &v, &status, err, sizeof err);
    if (subprocess_stop_signal()) {
        fprintf(stderr, "clockscope profile: %s\n", err[0] ? err : "stopped");
        subprocess_end_by_signal(subprocess_stop_signal());
    }
    if (!ok) {
        fprintf(stderr, "clockscope profile: %s\n", err);
        return status;
    }
    tally_sort(&t);
    /* A live profile whose vDSO reads without the kernel: what one counter read costs
     * here says whether that share is a trap (profile_notes). */
    if (live && tally_percent(&t, CAT_VDSO) >= 1.0 &&
        !profile_counter_cost(v.counter_id, sizeof v.counter_id, &v.counter_ns))
        v.counter_ns = -1;
    profile_notes(&v);
    if (o.json)
        profile_print_json(stdout, &v);
    else
        profile_print_table(stdout, &v);
    return EXIT_OK;
}
