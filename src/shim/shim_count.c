/* SPDX-License-Identifier: MIT */
/* Count mode: calls per clock and per calling function, without changing any answer.
 * Counting is lock-free (atomic adds; callers in an open-addressed table claimed by CAS),
 * so it is safe from any thread and costs a few atomic operations per call.  The table is
 * written at exit (a destructor: programs that leave through _exit() print nothing). */
#include "shim/shim.h"
#include "common/environment.h"
#include "common/fd_write.h"
#include "common/message.h"
#include "common/units.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CALLERS 1024 /* distinct call sites kept; more are counted as "(other)" */

static _Atomic uint64_t clock_calls[SHIM_MAX_CLOCK + 1]; /* last: ids outside 0..15 */
static _Atomic uint64_t other_calls[2];                   /* gettimeofday, time */
static struct {
    _Atomic uintptr_t addr;
    _Atomic uint64_t calls;
} callers[CALLERS];
static _Atomic uint64_t callers_overflow;
static struct timespec started;
static real_clock_gettime_fn now_fn;

static const char *clock_label(int id)
{
    static const char *names[] = {"CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_PROCESS_CPUTIME_ID",
                                  "CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW",
                                  "CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE",
                                  "CLOCK_BOOTTIME", "CLOCK_REALTIME_ALARM", "CLOCK_BOOTTIME_ALARM",
                                  "clock id 10", "CLOCK_TAI"};
    if (id >= 0 && id < (int)(sizeof names / sizeof names[0]))
        return names[id];
    return id == SHIM_MAX_CLOCK ? "other clock ids (CPU clocks of other threads/processes, invalid)"
                                : "clock id 12..15";
}

static void count_caller(const void *caller)
{
    uintptr_t a = (uintptr_t)caller;
    size_t h = (size_t)((a >> 2) * 0x9E3779B97F4A7C15ull >> 54) % CALLERS;
    for (size_t i = 0; i < CALLERS; i++) {
        size_t k = (h + i) % CALLERS;
        uintptr_t cur = atomic_load_explicit(&callers[k].addr, memory_order_relaxed);
        if (cur == 0) {
            uintptr_t expected = 0;
            if (atomic_compare_exchange_strong(&callers[k].addr, &expected, a) || expected == a) {
                atomic_fetch_add_explicit(&callers[k].calls, 1, memory_order_relaxed);
                return;
            }
            cur = expected;
        }
        if (cur == a) {
            atomic_fetch_add_explicit(&callers[k].calls, 1, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&callers_overflow, 1, memory_order_relaxed);
}

/* A private copy of stderr taken at start: many programs close stderr in an atexit
 * handler (coreutils' close_stdout), which runs before this library's destructor.  -1 when
 * the program started with stderr closed (`2>&-`): then fd 2 is whatever file the program
 * opens next, its own data, and the table is never written there (docs/run.md). */
static int report_fd = -1;

void shim_count_start(void)
{
    report_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10);
    now_fn = (real_clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    if (now_fn)
        now_fn(CLOCK_MONOTONIC, &started);
}

void shim_count_clock(clockid_t id, const void *caller)
{
    int slot = id >= 0 && id < SHIM_MAX_CLOCK ? (int)id : SHIM_MAX_CLOCK;
    atomic_fetch_add_explicit(&clock_calls[slot], 1, memory_order_relaxed);
    count_caller(caller);
}

void shim_count_call(int which, const void *caller)
{
    atomic_fetch_add_explicit(&other_calls[which], 1, memory_order_relaxed);
    count_caller(caller);
}

void shim_count_after_fork(void)
{
    /* The child reports its own calls only. */
    for (int i = 0; i <= SHIM_MAX_CLOCK; i++)
        atomic_store(&clock_calls[i], 0);
    atomic_store(&other_calls[0], 0);
    atomic_store(&other_calls[1], 0);
    for (int i = 0; i < CALLERS; i++)
        atomic_store(&callers[i].calls, 0);
    atomic_store(&callers_overflow, 0);
    if (now_fn)
        now_fn(CLOCK_MONOTONIC, &started);
}

struct row {
    char name[256];
    uint64_t calls;
};

static int by_calls(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : strcmp(x->name, y->name);
}

static void caller_name(uintptr_t addr, char *out, size_t len)
{
    Dl_info info;
    if (dladdr((void *)addr, &info) && info.dli_fname) {
        const char *mod = strrchr(info.dli_fname, '/');
        mod = mod ? mod + 1 : info.dli_fname;
        if (info.dli_sname)
            snprintf(out, len, "%s (%s)", info.dli_sname, mod);
        else
            snprintf(out, len, "%s+0x%lx (no symbol)", mod,
                     (unsigned long)(addr - (uintptr_t)info.dli_fbase));
    } else {
        snprintf(out, len, "0x%lx (unknown module)", (unsigned long)addr);
    }
}

static void print_rate(FILE *f, uint64_t calls, double secs, const char *what)
{
    double r = secs > 0 ? (double)calls / secs : 0;
    fprintf(f, "  %12llu  %12s  %s\n", (unsigned long long)calls, RATE_TEXT(r), what);
}

/* "clockscope run: <what><path>: <why>" on the private stderr, if there is one. */
static void say(int fd, const char *what, const char *path, const char *why)
{
    if (fd < 0)
        return;
    char line[4400];
    int n = snprintf(line, sizeof line, "clockscope run: %s%s: %s\n", what, path, why);
    if (n > 0)
        fd_write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Where the table goes: --output's file (appended: forked children add their own), else
 * the private copy of stderr; -1: nowhere.  Never fd 2 itself, never through a link, never
 * into a FIFO or device (`run` checked the file before exec; this is the check at the
 * moment of writing). */
static int output_fd(const char *path)
{
    if (!path || !*path)
        return report_fd;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        say(report_fd, "cannot write the count table to ", path,
            errno == ELOOP ? "a symbolic link: not followed" : strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        say(report_fd, "cannot write the count table to ", path, "not a regular file");
        return -1;
    }
    return fd;
}

static bool any_calls(void)
{
    for (int i = 0; i <= SHIM_MAX_CLOCK; i++)
        if (atomic_load(&clock_calls[i]))
            return true;
    return atomic_load(&other_calls[0]) || atomic_load(&other_calls[1]);
}

void shim_count_report(void)
{
    /* A wrapper script's subshells (run follows the script into the program it execs):
     * without a single call they are noise, not part of the answer. */
    if (shim_env_in_wrapper_child() && !any_calls())
        return;
    struct timespec end = started;
    if (now_fn)
        now_fn(CLOCK_MONOTONIC, &end);
    double secs = (double)(end.tv_sec - started.tv_sec) + (end.tv_nsec - started.tv_nsec) * 1e-9;
    const char *path = getenv(ENV_RUN_OUTPUT);
    int out_fd = output_fd(path);
    if (out_fd < 0)
        return;
    char exe[256] = "?";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        exe[n] = 0;
    /* One buffered block per process, so that reports of forked children do not interleave. */
    char *buf = NULL;
    size_t buflen = 0;
    FILE *m = open_memstream(&buf, &buflen);
    if (!m) {
        if (out_fd != report_fd)
            close(out_fd);
        return;
    }
    fprintf(m, "clockscope run --mode count: pid %d (%s), %.3f s\n", (int)getpid(), exe, secs);
    fprintf(m, "  %12s  %12s  %s\n", "calls", "calls/s", "call");
    for (int i = 0; i <= SHIM_MAX_CLOCK; i++) {
        uint64_t c = atomic_load(&clock_calls[i]);
        if (c) {
            char what[MSG_LINE];
            snprintf(what, sizeof what, "clock_gettime(%s)", clock_label(i));
            print_rate(m, c, secs, what);
        }
    }
    if (atomic_load(&other_calls[0]))
        print_rate(m, atomic_load(&other_calls[0]), secs, "gettimeofday()");
    if (atomic_load(&other_calls[1]))
        print_rate(m, atomic_load(&other_calls[1]), secs, "time()");

    static struct row rows[CALLERS + 1];
    size_t nrows = 0;
    for (int i = 0; i < CALLERS; i++) {
        uint64_t c = atomic_load(&callers[i].calls);
        uintptr_t a = atomic_load(&callers[i].addr);
        if (!c || !a)
            continue;
        char name[256];
        caller_name(a, name, sizeof name);
        size_t j = 0;
        while (j < nrows && strcmp(rows[j].name, name) != 0)
            j++;
        if (j == nrows) {
            snprintf(rows[nrows].name, sizeof rows[nrows].name, "%s", name);
            rows[nrows++].calls = 0;
        }
        rows[j].calls += c;
    }
    if (atomic_load(&callers_overflow)) {
        snprintf(rows[nrows].name, sizeof rows[nrows].name, "(other call sites)");
        rows[nrows++].calls = atomic_load(&callers_overflow);
    }
    qsort(rows, nrows, sizeof rows[0], by_calls);
    if (nrows) {
        fprintf(m, "  %12s  %12s  %s\n", "calls", "calls/s", "calling function (module)");
        for (size_t i = 0; i < nrows; i++)
            print_rate(m, rows[i].calls, secs, rows[i].name);
    }
    fclose(m);
    int err = fd_write_all(out_fd, buf, buflen);
    free(buf);
    if (out_fd != report_fd) {
        if (close(out_fd) != 0 && !err)
            err = errno;
        if (err)
            say(report_fd, "cannot write the count table to ", path, strerror(err));
    }
}
