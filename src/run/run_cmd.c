/* SPDX-License-Identifier: MIT */
/* clockscope run: executes a program with libclockscope-shim.so preloaded (docs/run.md).
 * This process only prepares the environment and calls execv: the program replaces it,
 * so its exit status and signals are the program's own.  A static clockscope binary works
 * too: LD_PRELOAD matters only to the dynamically linked program it executes. */
#include "commands.h"
#include "common/environment.h"
#include "common/cli.h"
#include "common/elf_probe.h"
#include "common/message.h"
#include "common/subprocess.h"
#include "run/run_attach.h"
#include "run/run_cmd_report.h"
#include "run/run_mode.h"
#include "run/run_served.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define SHIM_NAME "libclockscope-shim.so"

static const char help[] =
    "usage: clockscope run [--mode MODE] [--inherit|--no-follow] [--output FILE]\n"
    "                      [--verbose] -- COMMAND [ARG...]\n"
    "       clockscope run [--mode MODE] [--output FILE] [--verbose] -p PID\n"
    "       clockscope run [--verbose] --undo PID\n"
    "\n"
    "Runs an unmodified, dynamically linked program with a preloaded shim that interposes\n"
    "clock_gettime(), gettimeofday() and time().\n"
    "\n"
    "  --mode auto      (default) answer CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME and\n"
    "                   gettimeofday() from libfastclock only where the kernel's path is slow\n"
    "                   (measured at start: it enters the kernel) and the counter is safe\n"
    "  --mode fast      answer them from libfastclock whenever the counter is safe\n"
    "  --mode coarse[=CLOCKS]  answer realtime and/or monotonic (comma list; default both)\n"
    "                   from their *_COARSE twin: tick resolution, no counter needed\n"
    "  --mode count     change nothing; at exit, print calls and calls/s per clock and per\n"
    "                   calling function\n"
    "  --inherit        keep the shim for programs the command executes (default: removed)\n"
    "  --no-follow      serve only COMMAND's first program (a script: its interpreter);\n"
    "                   default: also every program that process execs, as wrappers such\n"
    "                   as pyenv shims, env and #!/usr/bin/env scripts do\n"
    "  --output FILE    count mode: append the table to FILE (a regular file, not a link)\n"
    "                   instead of stderr; without it, a program started with stderr closed\n"
    "                   gets no table\n"
    "  --verbose        the shim says at start what it serves and why (for a patched vDSO:\n"
    "                   what was patched, and at the end how many syscalls its reader made)\n"
    "  -p, --pid PID    serve a running static or Go process (x86_64): every thread stopped,\n"
    "                   its vDSO patched as at an exec, a helper refreshes the line until it\n"
    "                   ends (a dynamic program is refused: start it as run -- COMMAND)\n"
    "  --undo PID       put the vDSO's original entry points back in a process served so\n"
    "                   (the reader's pages stay mapped, unused)\n"
    "                   Both stop every thread a moment, as any ptrace attach does: a thread\n"
    "                   in epoll_wait, epoll_pwait, semtimedop or sigtimedwait gets EINTR\n"
    "                   (run names each one); read, accept, futex, poll, select and sleeps\n"
    "                   are restarted\n"
    "\n"
    "Static and Go programs (no loader, or a runtime that calls the vDSO itself) are served\n"
    "on x86_64 by patching their vDSO's clock entry points at the exec (ptrace; a helper\n"
    "process keeps the shared line fresh): auto, fast and count; not coarse.  Where ptrace\n"
    "is not permitted (Yama, seccomp, a tracer already attached) run says so and runs them\n"
    "unserved.  Cannot reach: set-user-ID, set-group-ID or capability programs (the loader\n"
    "ignores LD_PRELOAD for them), calls made inside libc.  The shim is found next to this\n"
    "binary or in\n"
    "PREFIX/lib/clockscope/ (override: CLOCKSCOPE_SHIM=PATH).\n";

static const struct exit_use run_exits[] = {
    {EXIT_COMMANDS_OWN, NULL},
    {EXIT_OK, "with -p or --undo: done"},
    {EXIT_FAILED, "with -p or --undo: refused (the message says why; the process runs on\n"
                  "as it was)"},
    {EXIT_USAGE, "also an --output FILE that cannot be written"},
    {EXIT_WRAPPER_FAILED, "the shim is missing (where it was looked for is said)"},
    {EXIT_NOT_EXECUTABLE, NULL},
    {EXIT_NOT_FOUND, NULL},
    {EXIT_USES_END, NULL},
};

/* The shim: $CLOCKSCOPE_SHIM, next to this binary, or ../lib/clockscope/ from it. */
static bool find_shim(char *out, size_t len, char *tried, size_t tlen)
{
    const char *env = getenv(ENV_SHIM);
    if (env && *env) {
        snprintf(tried, tlen, "%s (CLOCKSCOPE_SHIM)", env);
        if (access(env, R_OK) != 0)
            return false;
        return realpath(env, out) != NULL || (snprintf(out, len, "%s", env), true);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(tried, tlen, "/proc/self/exe unreadable");
        return false;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char a[PATH_MAX + 64], b[PATH_MAX + 64];
    snprintf(a, sizeof a, "%s/" SHIM_NAME, exe);
    snprintf(b, sizeof b, "%s/../lib/clockscope/" SHIM_NAME, exe);
    snprintf(tried, tlen, "%s, %s", a, b);
    const char *found = access(a, R_OK) == 0 ? a : access(b, R_OK) == 0 ? b : NULL;
    if (!found)
        return false;
    if (!realpath(found, out) && (size_t)snprintf(out, len, "%.*s", (int)(len - 1), found) >= len)
        return false;
    return true;
}

/* PATH lookup as execvp does it; 0, EXIT_NOT_FOUND or EXIT_NOT_EXECUTABLE. */
static int resolve(const char *cmd, char *out, size_t len)
{
    int e = subprocess_find_program(cmd, out, len);
    return e == 0 ? 0 : e == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
}

/* A "#!" script: by default the shim follows it into the program it execs (shim_env.c). */
static bool is_script(const char *path)
{
    char magic[2] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(magic, 1, 2, f);
    fclose(f);
    return n == 2 && magic[0] == '#' && magic[1] == '!';
}

/* Whether the kernel will run path in secure-execution mode (AT_SECURE), where the loader
 * ignores LD_PRELOAD: a set-user-ID or set-group-ID file that changes our IDs, or a file
 * with capabilities, on a mount that honours them. */
static const char *secure_exec_reason(const char *path)
{
    struct stat st;
    struct statvfs vfs;
    if (stat(path, &st) != 0 || (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
        return NULL;
    if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
        return "set-user-ID";
    if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())
        return "set-group-ID";
    /* Capabilities make it secure only for a caller that gains some: not for root. */
    if (geteuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
        return "given file capabilities";
    return NULL;
}

/* --output FILE, checked before exec so that a mistake is said at once (exit 2) rather
 * than losing the table at exit: it must be a regular file or a new one in an existing,
 * writable directory, and not a link (the shim opens it O_NOFOLLOW).  It becomes absolute:
 * the program may change its working directory before the shim writes. */
static void check_output(const char *path, char *abs, size_t len)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode))
            usage_error("run", "--output '%s' is a symbolic link: name the file itself", path);
        if (!S_ISREG(st.st_mode))
            usage_error("run", "--output '%s' is %s, not a regular file", path,
                        S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                        : S_ISCHR(st.st_mode) ? "a character device" : "a special file");
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        usage_error("run", "--output '%s': %s", path, strerror(errno));
    close(fd);
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    char real[PATH_MAX];
    if (!realpath(dir, real) || (size_t)snprintf(abs, len, "%s/%s",
                                                 strcmp(real, "/") ? real : "", base) >= len)
        usage_error("run", "--output '%s': cannot resolve its directory", path);
}

/* A 64-bit ELF executable without PT_INTERP is static: the shim cannot reach it. */
static bool elf_is_static(const char *path)
{
    struct elf_facts f;
    char why[MSG_LINE];
    return elf_probe(path, &f, why, sizeof why) == ELF_PROBE_OK && f.elf64_le && f.phnum > 0 &&
           !f.has_interp;
}

struct run_options {
    const char *mode_arg, *output;
    bool inherit, verbose, no_follow;
    int pid, undo;
    struct run_mode mode;
};

/* --mode MODE: parsed into run_options.mode as it is read. */
static bool mode_valid(void *opts, const char *value, char *why, size_t whylen)
{
    return run_parse_mode(value, &((struct run_options *)opts)->mode, why, whylen);
}

static const struct cli_option run_decl[] = {
    {.name = "mode", .metavar = "MODE", .check = mode_valid,
     CLI_STRING_OF(struct run_options, mode_arg)},
    {.name = "inherit", CLI_FLAG_OF(struct run_options, inherit)},
    {.name = "no-follow", CLI_FLAG_OF(struct run_options, no_follow)},
    {.name = "output", .metavar = "FILE", CLI_STRING_OF(struct run_options, output)},
    {.name = "verbose", CLI_FLAG_OF(struct run_options, verbose)},
    {.name = "pid", .short_name = 'p', .metavar = "PID", .excludes = "undo",
     CLI_UINT_OF(struct run_options, pid, 1, 4194304)},
    {.name = "undo", .metavar = "PID", CLI_UINT_OF(struct run_options, undo, 1, 4194304)},
    {0},
};

static const char *const run_instead_of_command[] = {"pid", "undo", NULL};
const struct cli_spec run_cli = {.cmd = "run", .help = help, .options = run_decl,
                                 .args = CLI_COMMAND, .args_usage = "-- COMMAND [ARG...]",
                                 .command_unless = run_instead_of_command, .exits = run_exits};

/* -p PID and --undo PID: no COMMAND, no shim. */
static int run_pid(const struct run_options *o, const struct run_mode *mode, const char *output)
{
    if (o->inherit || o->no_follow)
        usage_error("run", "--inherit and --no-follow are for a COMMAND, not --pid/--undo");
    char abs[PATH_MAX + NAME_MAX + 2];
    if (output) {
        check_output(output, abs, sizeof abs);
        output = abs;
    }
    return o->pid ? run_attach((pid_t)o->pid, mode, o->verbose, output)
                  : run_undo((pid_t)o->undo, o->verbose);
}

/* The shim's environment: LD_PRELOAD with the shim first, and its CLOCKSCOPE_RUN_*
 * settings.  False when out of memory. */
static bool set_shim_env(const char *shim, const struct run_mode *mode, const struct run_options *o,
                         bool follow_exec, const char *output)
{
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(shim) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(len);
    if (!preload)
        return false;
    snprintf(preload, len, "%s%s%s", shim, old && *old ? ":" : "", old ? old : "");
    char mask[16];
    snprintf(mask, sizeof mask, "%u", mode->coarse_mask);
    setenv("LD_PRELOAD", preload, 1);
    setenv(ENV_RUN_MODE, run_mode_name(mode->kind), 1);
    setenv(ENV_RUN_COARSE, mask, 1);
    setenv(ENV_RUN_INHERIT, o->inherit ? "1" : "0", 1);
    setenv(ENV_RUN_VERBOSE, o->verbose ? "1" : "0", 1);
    if (follow_exec) {
        char pid[24];
        snprintf(pid, sizeof pid, "%ld", (long)getpid()); /* execv keeps it */
        setenv(ENV_RUN_FOLLOW_PID, pid, 1);
    } else {
        unsetenv(ENV_RUN_FOLLOW_PID);
    }
    if (output)
        setenv(ENV_RUN_OUTPUT, output, 1);
    else
        unsetenv(ENV_RUN_OUTPUT);
    return true;
}

/* The executable COMMAND names, in target: 0, or the exit status when there is none. */
static int find_target(const char *cmd, char *target, size_t len)
{
    int r = resolve(cmd, target, len);
    if (r) {
        run_say_unresolved(cmd, r == EXIT_NOT_FOUND);
        return r;
    }
    struct stat target_st;
    if (stat(target, &target_st) != 0 || !S_ISREG(target_st.st_mode)) {
        /* execve would refuse it anyway; probing it first must not block on a FIFO. */
        run_say_not_regular(target);
        return EXIT_NOT_EXECUTABLE;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    struct run_options o = {0};
    char err[MSG_LINE];
    run_parse_mode("auto", &o.mode, err, sizeof err);
    int i = cli_parse(&run_cli, argc, argv, &o);
    const struct run_mode mode = o.mode;
    bool inherit = o.inherit, verbose = o.verbose;
    const char *output = o.output;
    bool follow = !o.no_follow;
    if (output && mode.kind != RUN_MODE_COUNT)
        usage_error("run", "--output is for --mode count");
    if (o.pid || o.undo)
        return run_pid(&o, &mode, output);

    char shim[PATH_MAX], tried[2 * PATH_MAX + 160];
    if (!find_shim(shim, sizeof shim, tried, sizeof tried)) {
        run_say_no_shim(SHIM_NAME, tried);
        return EXIT_WRAPPER_FAILED;
    }
    char target[PATH_MAX];
    int r = find_target(argv[i], target, sizeof target);
    if (r)
        return r;
    char output_abs[PATH_MAX + NAME_MAX + 2];
    if (output) {
        check_output(output, output_abs, sizeof output_abs);
        output = output_abs;
    }
    /* Static and Go programs: the helper patches their vDSO at the exec (run_served.c). */
    const char *kind = run_served_kind(target);
    const char *secure = secure_exec_reason(target);
    if (kind && secure) {
        run_say_secure_traced(target, kind, secure);
        kind = NULL;
    } else if (secure && !elf_is_static(target))
        run_say_secure_preload(target, secure_exec_reason(target));
    /* Wrappers (pyenv and conda shims, `env`, `#!/usr/bin/env python3`) exec the real program
     * in the same process: the shim follows that process through every exec, and only it. */
    bool follow_exec = follow && !inherit;
    if (verbose && is_script(target) && !inherit)
        run_say_script(target, follow);

    if (!set_shim_env(shim, &mode, &o, follow_exec, output)) {
        run_say_out_of_memory();
        return EXIT_WRAPPER_FAILED;
    }
    if (kind) {
        char why[MSG_REASON];
        /* On success the helper waits for the exec: nothing else may come between. */
        if (!run_served_start(target, kind, &mode, verbose, output, why, sizeof why))
            run_say_unserved(target, kind, why, elf_is_static(target));
    }
    fflush(NULL);
    execv(target, argv + i);
    int e = errno;
    run_say_cannot_execute(target, e);
    return e == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
}
