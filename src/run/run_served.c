/* SPDX-License-Identifier: MIT */
/* Serving static and Go programs (run/run_served.h).
 *
 * Processes: `run` (R) creates the data page (a memfd) and a lifeline pipe, and forks a
 * child that forks the helper (H) and exits, so that H is nobody's child the program could
 * reap or wait for.  R names H its ptracer (PR_SET_PTRACER: Yama's ptrace_scope=1 lets a
 * process trace only its descendants otherwise), H seizes R (PTRACE_O_TRACEEXEC, and
 * PTRACE_O_EXITKILL so that a helper that dies mid-patch takes the half-patched program with
 * it), R execs the program, which keeps R's PID.  At the exec stop H patches the vDSO,
 * detaches, and refreshes the page until every holder of the lifeline's write end (the
 * program, its forked children) has ended. */
#include "run/run_served.h"

#include "arch/inject.h"
#include "common/elf_probe.h"
#include "common/message.h"
#include "fastclock/fastclock.h"
#include "run/run_helper.h"
#include "run/run_page.h"
#include "run/run_reader_abi.h"
#include "run/run_refresher.h"
#include "run/run_trace.h"
#include "run/run_vpatch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Inherited descriptors go high, clear of the numbers programs expect (socket activation
 * passes its sockets from 3 on). */
#define HIGH_FD 100

const char RUN_KIND_GO[] = "a Go program";

const char *run_served_kind(const char *path)
{
    struct elf_facts f;
    char why[MSG_LINE];
    if (elf_probe(path, &f, why, sizeof why) != ELF_PROBE_OK || !f.elf64_le || f.phnum == 0)
        return NULL;
    if (f.go_buildinfo)
        return RUN_KIND_GO;
    return f.has_interp ? NULL : "statically linked";
}

/* The tracer of this process, from /proc/self/status (0: none). */
static long tracer_pid(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long pid = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "TracerPid: %ld", &pid) == 1)
            break;
    if (f)
        fclose(f);
    return pid;
}

static void seize_refusal(int err, char *why, size_t whylen)
{
    int scope = run_helper_yama_scope();
    if (err == EPERM && scope >= 2)
        snprintf(why, whylen, "ptrace is not permitted: Yama's kernel.yama.ptrace_scope is %d (%s); "
                 "scope 0 or 1 would allow it", scope,
                 scope == 2 ? "only CAP_SYS_PTRACE may trace" : "no process may trace");
    else if (err == EPERM || err == ENOSYS)
        snprintf(why, whylen, "ptrace is not permitted here (%s): a seccomp filter or a container's "
                 "policy forbids it; allowing ptrace would let run serve the program",
                 strerror(err));
    else
        snprintf(why, whylen, "ptrace failed: %s", strerror(err));
}

static bool read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return true;
}

static void write_all(int fd, const void *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf = (const char *)buf + n, len -= (size_t)n;
    }
}

struct helper_args {
    pid_t target;
    const char *path;
    int memfd, lifeline_r, to_helper, from_helper;
    struct run_page_header *page;
    bool verbose, count;
    const struct run_mode *mode;
    const char *output;
};

/* What the helper answers run before the exec: 0, or an errno value with the reason. */
struct helper_reply {
    int err;
    char why[MSG_REASON];
};

static void say(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, fmt, a, b);
    fflush(stderr);
}

/* The helper's first part: says its PID, waits for run's go (run has named it its
 * ptracer), prepares what to serve and seizes run; answers run either way.  Whether to go
 * on to the exec stop. */
static bool helper_seize(const struct helper_args *a)
{
    run_helper_quiet_signals(); /* the program decides what a ^C means; the lifeline ends us */
    run_helper_drop_stdio(false);
    pid_t me = getpid();
    write_all(a->from_helper, &me, sizeof me);
    char go;
    if (!read_all(a->to_helper, &go, 1))
        return false;
    struct helper_reply rep = {0};
    /* What to serve, decided before the program starts: a program left without its vDSO's
     * fast path for nothing would be slower than unserved. */
    if (!a->count && !run_refresher_prepare(a->memfd, a->page, a->mode, rep.why, sizeof rep.why))
        rep.err = EAGAIN;
    if (!rep.err && ptrace(PTRACE_SEIZE, a->target, NULL,
                           (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL |
                                          PTRACE_O_TRACESYSGOOD)) != 0)
        rep.err = errno;
    write_all(a->from_helper, &rep, sizeof rep);
    close(a->from_helper);
    return rep.err == 0;
}

/* The helper: seize, wait for the exec stop, patch, detach, refresh.  Never returns. */
static _Noreturn void helper_main(const struct helper_args *a)
{
    if (!helper_seize(a))
        _exit(0);
    char how[MSG_REASON] = "";
    enum run_vpatch_result res = RUN_VPATCH_TRACE_FAILED;
    for (;;) {
        int st;
        pid_t w = waitpid(a->target, &st, __WALL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
            _exit(0); /* ended before its exec: run said why (it could not execute it) */
        if (!WIFSTOPPED(st))
            continue;
        int event = st >> 16;
        if (event == PTRACE_EVENT_EXEC) {
            /* Inside execve still: the kernel stores its return value into the registers
             * after this stop, over whatever is set now.  Go on to its syscall-exit stop,
             * where registers set stay set. */
            ptrace(PTRACE_SYSCALL, a->target, NULL, NULL);
            continue;
        }
        if (event == 0 && WSTOPSIG(st) == (SIGTRAP | 0x80)) {
            static struct run_trace_signals taken;
            /* Its namespace, so that its first read need not learn it. */
            struct run_process_page first;
            bool known = run_page_process(a->target, a->page, &first);
            res = run_vpatch(a->target, a->memfd, NULL, known ? &first : NULL, how, sizeof how,
                             &taken, NULL);
            run_trace_detach_giving_back(a->target, a->target, &taken);
            break;
        }
        if (event == PTRACE_EVENT_STOP) {
            ptrace(PTRACE_LISTEN, a->target, NULL, NULL); /* a group stop: stay stopped */
            continue;
        }
        /* A signal on its way to run before the exec: deliver it. */
        ptrace(PTRACE_CONT, a->target, NULL, (void *)(long)WSTOPSIG(st));
    }
    close(a->memfd);
    if (res != RUN_VPATCH_OK) {
        say("clockscope run: %s runs unserved: %s\n", a->path, how);
        _exit(0);
    }
    if (a->verbose) {
        char who[32 + PATH_MAX];
        snprintf(who, sizeof who, "pid %d (%s)", (int)a->target, a->path);
        run_helper_say_serving(who, how, a->count, a->page->serve_mask != 0);
    }
    struct run_refresher r = {.page = a->page, .lifeline = a->lifeline_r, .count = a->count, .verbose = a->verbose,
                              .output = a->output, .path = a->path, .pid = a->target};
    run_refresher_loop(&r);
    _exit(0);
}

static int to_high_fd(int fd, bool cloexec)
{
    int h = fcntl(fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, HIGH_FD);
    close(fd);
    return h;
}

/* What run and its helper share: the data page and three pipes (the lifeline, run to the
 * helper, the helper to run). */
struct served_fds {
    int memfd, life[2], to_h[2], from_h[2];
    struct run_page_header *page;
};

/* Makes them, the memfd high and inherited by the program.  False with why, and nothing
 * left open or mapped. */
static bool served_open(struct served_fds *f, char *why, size_t whylen)
{
    f->life[0] = f->life[1] = f->to_h[0] = f->to_h[1] = -1;
    f->page = MAP_FAILED;
    f->memfd = run_helper_memfd(0);
    if (f->memfd < 0) {
        snprintf(why, whylen, "cannot create the data page (memfd_create): %s", strerror(errno));
        return false;
    }
    f->memfd = to_high_fd(f->memfd, false);
    f->page = f->memfd < 0 ? MAP_FAILED : run_helper_map(f->memfd);
    if (f->memfd < 0 || f->page == MAP_FAILED) {
        snprintf(why, whylen, "cannot set up the data page: %s", strerror(errno));
        goto fail;
    }
    if (pipe2(f->life, O_CLOEXEC) != 0 || pipe2(f->to_h, O_CLOEXEC) != 0 ||
        pipe2(f->from_h, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        goto fail;
    }
    return true;
fail:
    if (f->page != MAP_FAILED)
        munmap(f->page, RUN_PAGE_SIZE);
    const int opened[] = {f->memfd, f->life[0], f->life[1], f->to_h[0], f->to_h[1]};
    for (size_t i = 0; i < sizeof opened / sizeof *opened; i++)
        if (opened[i] >= 0)
            close(opened[i]);
    return false;
}

/* The helper process: run's ends of the pipes closed, then helper_main. */
struct served_child {
    struct helper_args a;
    int run_fds[3];
};

static void served_child(void *ctx)
{
    const struct served_child *c = ctx;
    close(c->run_fds[0]), close(c->run_fds[1]), close(c->run_fds[2]);
    helper_main(&c->a);
}

bool run_served_start(const char *path, const char *kind, const struct run_mode *mode,
                      bool verbose, const char *output, char *why, size_t whylen)
{
    (void)kind;
    if (!arch_inject_supported(why, whylen))
        return false;
    bool count = mode->kind == RUN_MODE_COUNT;
    if (!run_mode_vdso_servable(mode, true, why, whylen))
        return false;
    long tracer = tracer_pid();
    if (tracer > 0) {
        snprintf(why, whylen, "run is itself being traced (by pid %ld, a debugger or strace): a "
                 "process has one tracer; run it without the tracer to serve the program",
                 tracer);
        return false;
    }
    struct served_fds f;
    if (!served_open(&f, why, whylen))
        return false;
    run_page_init(f.page, count);
    /* The write end goes to the program (not close-on-exec), high. */
    int life_w = to_high_fd(f.life[1], false);
    const struct served_child c = {
        .a = {.target = getpid(), .path = path, .memfd = f.memfd, .lifeline_r = f.life[0],
              .to_helper = f.to_h[0], .from_helper = f.from_h[1], .page = f.page,
              .verbose = verbose, .count = count, .mode = mode, .output = output},
        .run_fds = {life_w, f.to_h[1], f.from_h[0]}};
    pid_t mid = run_helper_spawn(served_child, (void *)&c);
    int spawn_errno = errno;
    close(f.life[0]), close(f.to_h[0]), close(f.from_h[1]);
    pid_t helper = 0;
    static struct helper_reply rep;
    rep.err = EIO;
    bool ok = mid > 0 && read_all(f.from_h[0], &helper, sizeof helper);
    if (ok) {
        prctl(PR_SET_PTRACER, (unsigned long)helper, 0, 0, 0); /* EINVAL without Yama: fine */
        write_all(f.to_h[1], "g", 1);
        ok = read_all(f.from_h[0], &rep, sizeof rep) && rep.err == 0;
    }
    close(f.to_h[1]), close(f.from_h[0]);
    munmap(f.page, RUN_PAGE_SIZE);
    if (!ok) {
        if (mid < 0)
            snprintf(why, whylen, "fork: %s", strerror(spawn_errno));
        else if (rep.err == EAGAIN)
            snprintf(why, whylen, "%s", rep.why);
        else
            seize_refusal(rep.err, why, whylen);
        close(f.memfd), close(life_w);
        return false;
    }
    /* memfd and life_w stay open into the program: the helper injects the memfd's close. */
    return true;
}
