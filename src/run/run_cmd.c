/* clockscope run: executes a program with libclockscope-shim.so preloaded (docs/run.md).
 * This process only prepares the environment and calls execv: the program replaces it,
 * so its exit status and signals are the program's own.  A static clockscope binary works
 * too: LD_PRELOAD matters only to the dynamically linked program it executes. */
#include "commands.h"
#include "common/cli.h"
#include "common/elf_probe.h"
#include "common/subprocess.h"
#include "run/run_mode.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHIM_NAME "libclockscope-shim.so"
#define EXIT_NOT_FOUND 127
#define EXIT_CANNOT_RUN 126

static const char help[] =
    "usage: clockscope run [--mode MODE] [--inherit|--no-follow] [--output FILE] [--verbose] -- COMMAND [ARG...]\n"
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
    "  --no-follow      a script COMMAND: serve only its interpreter (default: also the\n"
    "                   program the script execs, as wrappers such as pyenv shims do)\n"
    "  --output FILE    count mode: append the table to FILE instead of stderr\n"
    "  --verbose        the shim says at start what it serves and why\n"
    "\n"
    "Cannot reach: static binaries, Go programs (Go's runtime calls the vDSO itself), calls\n"
    "made inside libc.  The shim is found next to this binary or in PREFIX/lib/clockscope/\n"
    "(override: CLOCKSCOPE_SHIM=PATH).\n"
    "\n"
    "Exit status: the command's own; 127 command not found; 126 not executable; 2 bad usage;\n"
    "1 shim missing.\n";

/* The shim: $CLOCKSCOPE_SHIM, next to this binary, or ../lib/clockscope/ from it. */
static bool find_shim(char *out, size_t len, char *tried, size_t tlen)
{
    const char *env = getenv("CLOCKSCOPE_SHIM");
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

/* PATH lookup as execvp does it; 0, EXIT_NOT_FOUND or EXIT_CANNOT_RUN. */
static int resolve(const char *cmd, char *out, size_t len)
{
    int e = program_find(cmd, out, len);
    return e == 0 ? 0 : e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
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

/* A 64-bit ELF executable without PT_INTERP is static: the shim cannot reach it. */
static bool elf_is_static(const char *path)
{
    struct elf_facts f;
    char why[160];
    return elf_probe(path, &f, why, sizeof why) == ELF_PROBE_OK && f.elf64_le && f.phnum > 0 &&
           !f.has_interp;
}

int cmd_run(int argc, char **argv)
{
    struct run_mode mode;
    char err[160];
    run_parse_mode("auto", &mode, err, sizeof err);
    bool inherit = false, verbose = false, follow = true;
    const char *output = NULL;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            return 0;
        }
        if (strcmp(a, "--mode") == 0 || strncmp(a, "--mode=", 7) == 0) {
            const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                usage_error("run", "--mode needs a value (auto, fast, coarse[=CLOCKS], count)");
            if (!run_parse_mode(v, &mode, err, sizeof err))
                usage_error("run", "%s", err);
        } else if (strcmp(a, "--output") == 0) {
            if (i + 1 >= argc || !*argv[i + 1])
                usage_error("run", "--output needs a file name");
            output = argv[++i];
        } else if (strcmp(a, "--inherit") == 0) {
            inherit = true;
        } else if (strcmp(a, "--no-follow") == 0) {
            follow = false;
        } else if (strcmp(a, "--verbose") == 0) {
            verbose = true;
        } else if (a[0] == '-') {
            usage_error("run", "unknown option '%s'", a);
        } else {
            break; /* the command, without a "--" before it */
        }
    }
    if (i >= argc)
        usage_error("run", "no command given (clockscope run [options] -- COMMAND [ARG...])");
    if (output && strcmp(mode.name, "count") != 0)
        usage_error("run", "--output is for --mode count");

    char shim[PATH_MAX], tried[2 * PATH_MAX + 160];
    if (!find_shim(shim, sizeof shim, tried, sizeof tried)) {
        fprintf(stderr, "clockscope run: cannot find " SHIM_NAME " (looked at %s); build it "
                "with 'make' or set CLOCKSCOPE_SHIM\n", tried);
        return 1;
    }
    char target[PATH_MAX];
    int r = resolve(argv[i], target, sizeof target);
    if (r) {
        fprintf(stderr, "clockscope run: %s: %s\n", argv[i],
                r == EXIT_NOT_FOUND ? "command not found" : "permission denied (not executable)");
        return r;
    }
    if (elf_is_static(target))
        fprintf(stderr, "clockscope run: warning: %s is statically linked: the shim cannot "
                "reach it, it runs unchanged\n", target);
    /* Wrappers (pyenv and conda shims, `#!/usr/bin/env python3`) exec the real program in
     * the same process: the shim follows that process through scripts, and only it. */
    bool follow_script = follow && !inherit && is_script(target);
    if (verbose && is_script(target) && !inherit)
        fprintf(stderr, "clockscope run: %s is a script: %s\n", target,
                follow ? "the shim also serves the program it execs (--no-follow: only the "
                         "script's interpreter)"
                       : "the shim serves only its interpreter (--no-follow)");

    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(shim) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(len);
    if (!preload) {
        fprintf(stderr, "clockscope run: out of memory\n");
        return 1;
    }
    snprintf(preload, len, "%s%s%s", shim, old && *old ? ":" : "", old ? old : "");
    char mask[16];
    snprintf(mask, sizeof mask, "%u", mode.coarse_mask);
    setenv("LD_PRELOAD", preload, 1);
    setenv("CLOCKSCOPE_RUN_MODE", mode.name, 1);
    setenv("CLOCKSCOPE_RUN_COARSE", mask, 1);
    setenv("CLOCKSCOPE_RUN_INHERIT", inherit ? "1" : "0", 1);
    setenv("CLOCKSCOPE_RUN_VERBOSE", verbose ? "1" : "0", 1);
    if (follow_script) {
        char pid[24];
        snprintf(pid, sizeof pid, "%ld", (long)getpid()); /* execv keeps it */
        setenv("CLOCKSCOPE_RUN_FOLLOW_PID", pid, 1);
    } else {
        unsetenv("CLOCKSCOPE_RUN_FOLLOW_PID");
    }
    if (output)
        setenv("CLOCKSCOPE_RUN_OUTPUT", output, 1);
    else
        unsetenv("CLOCKSCOPE_RUN_OUTPUT");
    fflush(NULL);
    execv(target, argv + i);
    int e = errno;
    fprintf(stderr, "clockscope run: cannot execute %s: %s\n", target, strerror(e));
    return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
