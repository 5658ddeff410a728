/* SPDX-License-Identifier: MIT */
/* A running process (run/run_attach.h).  Every thread is seized and interrupted, and the
 * thread list read again until it is stable (a thread created meanwhile is seized too);
 * no thread may be executing the bytes to write (if one is, all are let go for a
 * millisecond and stopped again, a few times, then run refuses).  The syscalls are run in
 * the thread-group leader; the others stay stopped until every byte is written. */
#include "run/run_attach.h"

#include "arch/inject.h"
#include "run/run_fit.h"
#include "run/run_heal.h"
#include "run/run_page.h"
#include "run/run_reader_abi.h"
#include "run/run_refresher.h"
#include "run/run_trace.h"
#include "run/run_vpatch.h"
#include "vdso/vdso.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096
#define PC_ROUNDS 200

struct stopped {
    pid_t tid[MAX_THREADS];
    /* The signal a thread stands at (its signal-delivery stop), handed over at the detach;
     * 0 for an event or group stop.  inj's is in main_taken instead, with the signals the
     * injected syscalls made it dequeue. */
    int sig[MAX_THREADS];
    int n;
    pid_t inj; /* the thread the syscalls run in: the main thread, unless it has ended */
    struct run_trace_signals main_taken;
};

static bool have(const struct stopped *s, pid_t t)
{
    for (int i = 0; i < s->n; i++)
        if (s->tid[i] == t)
            return true;
    return false;
}

static void let_go(pid_t pid, struct stopped *s)
{
    for (int i = 0; i < s->n; i++) {
        if (s->tid[i] == s->inj)
            run_trace_detach_giving_back(pid, s->inj, &s->main_taken);
        else
            ptrace(PTRACE_DETACH, s->tid[i], NULL, (void *)(long)s->sig[i]);
    }
    s->n = 0;
}

/* The syscalls run in the main thread, or in another if it has ended or stands at a
 * signal (a signal-delivery stop: its signal is handed over at the detach, and would be
 * lost if run died after a step had replaced that stop).  None free: 0. */
static void pick_inj(pid_t pid, struct stopped *s)
{
    s->inj = 0;
    for (int i = 0; i < s->n; i++)
        if (!s->sig[i] && (s->tid[i] == pid || !s->inj))
            s->inj = s->tid[i];
}

/* Seizes and stops every thread of pid not in s yet, until the list is stable.  0, or an
 * errno value with why (then every thread is let go).
 *
 * A thread is stopped at the first ptrace stop after PTRACE_INTERRUPT, whatever its
 * kind: the event stop the interrupt asks for, a group stop (SIGSTOP'ed: it stays so), or a
 * signal-delivery stop when a signal was being taken first (SIGPROF, Go's SIGURG).  The
 * kernel clears the pending interrupt at ANY ptrace stop ("any trap clears pending STOP
 * trap", ptrace_stop()), so resuming a thread from its signal-delivery stop to wait for the
 * event stop lets it run on with none to come: the attach hung, or ran while a thread
 * believed stopped executed the vDSO being written.  That thread stays where it is, its
 * signal handed back by the detach. */
/* PTRACE_SEIZE of thread t; 0, EALREADY with the tracer named in why (another tracer
 * holds it, seen at the moment of the refusal: it may be gone a moment later), or the
 * errno.  TRACESYSGOOD: run_heal's steps stop at syscall stops, told apart from a SIGTRAP
 * by the 0x80 bit.  EPERM while no tracer is seen is tried again for up to 50 ms: another
 * run -p that held the thread may have let it go between our seize and our look at its
 * TracerPid (then the seize succeeds, and the vDSO says it is served already); a policy
 * that forbids ptrace answers EPERM throughout. */
static int seize_one(pid_t pid, pid_t t, char *why, size_t wl)
{
    for (int tries = 0;; tries++) {
        if (ptrace(PTRACE_SEIZE, t, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD) == 0)
            return 0;
        int err = errno;
        if (err != EPERM || run_trace_thread_is_zombie(pid, t))
            return err;
        if (run_fit_tracer_came(pid, t, why, wl))
            return EALREADY;
        if (tries == 50)
            return err;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

static int seize_new(pid_t pid, struct stopped *s, char *why, size_t wl)
{
    for (bool grew = true; grew;) {
        grew = false;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d) {
            snprintf(why, wl, "no process %d", (int)pid);
            let_go(pid, s);
            return ESRCH;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            pid_t t = (pid_t)atoi(e->d_name);
            if (t <= 0 || have(s, t))
                continue;
            if (s->n == MAX_THREADS) {
                closedir(d);
                snprintf(why, wl, "more than %d threads", MAX_THREADS);
                let_go(pid, s);
                return E2BIG;
            }
            int err = seize_one(pid, t, why, wl);
            if (err) {
                if (err == ESRCH || (err == EPERM && run_trace_thread_is_zombie(pid, t)))
                    continue; /* it ended (a main thread that called pthread_exit, too) */
                closedir(d);
                let_go(pid, s);
                return err;
            }
            ptrace(PTRACE_INTERRUPT, t, NULL, NULL);
            int st = 0;
            pid_t w = run_trace_wait(t, &st, 10000);
            if (w == 0) {
                /* Interrupted but never stopped (a thread in uninterruptible sleep): say
                 * which, never hang. */
                char state[160];
                run_trace_thread_state(pid, t, state, sizeof state);
                closedir(d);
                snprintf(why, wl, "%s did not stop within 10 s of PTRACE_INTERRUPT", state);
                ptrace(PTRACE_DETACH, t, NULL, NULL);
                let_go(pid, s);
                return ETIMEDOUT;
            }
            if (w < 0 || !WIFSTOPPED(st))
                continue; /* it exited */
            s->tid[s->n] = t, s->sig[s->n] = (st >> 16) == 0 ? WSTOPSIG(st) : 0;
            s->n++;
            grew = true;
        }
        closedir(d);
    }
    if (s->n == 0) {
        snprintf(why, wl, "no thread of it could be stopped (it has ended?)");
        return ESRCH;
    }
    pick_inj(pid, s);
    return 0;
}

static int stop_all(pid_t pid, struct stopped *s, char *why, size_t wl)
{
    s->n = 0, s->inj = 0;
    s->main_taken.n = 0, s->main_taken.stepped = false;
    return seize_new(pid, s, why, wl);
}

/* The number of bytes run writes at a site: its jump's length (which may depend on the
 * site's alignment). */
static size_t site_len(const struct run_vpatch_site *site)
{
    uint8_t jump[32];
    return arch_inject_abs_jump(jump, sizeof jump, site->offset, 0);
}

/* An address range no stopped thread may stand in: bytes about to be written, or code
 * whose result must not come after the writes. */
struct avoid {
    uint64_t lo, hi;
    bool soft; /* given up after half the rounds */
};

static bool avoided(uint64_t pc, const struct avoid *a, size_t n, bool strict)
{
    for (size_t i = 0; i < n; i++)
        if (pc >= a[i].lo && pc < a[i].hi && (strict || !a[i].soft))
            return true;
    return false;
}

static int index_of(const struct stopped *s, pid_t t)
{
    for (int i = 0; i < s->n; i++)
        if (s->tid[i] == t)
            return i;
    return -1;
}

/* The threads rerun[0..n) run on for 0.2 ms as if untraced: a signal they stop at is
 * delivered at once (a traced thread stops at every signal; under a storm of them it would
 * otherwise run nothing but its handlers between two rounds). */
static void run_on(struct stopped *s, const int *rerun, int n)
{
    for (int k = 0; k < n; k++) {
        int i = rerun[k];
        ptrace(PTRACE_CONT, s->tid[i], NULL, (void *)(long)s->sig[i]);
        s->sig[i] = 0;
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000000000L + now.tv_nsec - t0.tv_nsec > 200000)
            break;
        int st;
        pid_t w = waitpid(-1, &st, __WALL | WNOHANG);
        if (w <= 0) {
            nanosleep(&(struct timespec){0, 20000}, NULL);
            continue;
        }
        if (index_of(s, w) < 0 || !WIFSTOPPED(st))
            continue; /* an exit: the interrupt below finds it gone */
        ptrace(PTRACE_CONT, w, NULL, (void *)(long)((st >> 16) == 0 ? WSTOPSIG(st) : 0));
    }
}

/* Stops every thread with no PC in an avoided range and one thread free to run the steps.
 * A thread found in a range (or, when no thread is free, the main thread) runs on alone
 * for 0.2 ms and is stopped again, the others staying stopped: a thread reading the time
 * without pause is in the vDSO or the reader a good part of the time, and all threads
 * being outside at once grows unlikely with their number.  Threads it creates meanwhile
 * are seized too.  0 or an errno value. */
static int stop_outside(pid_t pid, struct stopped *s, const struct avoid *a, size_t na,
                        char *why, size_t wl)
{
    int e = stop_all(pid, s, why, wl);
    if (e)
        return e;
    if (!run_fit_to_touch(pid, why, wl)) {
        let_go(pid, s);
        return ECANCELED;
    }
    static int rerun[MAX_THREADS];
    for (int round = 0; round < PC_ROUNDS; round++) {
        int n = 0;
        for (int i = 0; i < s->n; i++) {
            struct arch_regs r;
            if (!arch_inject_get_regs(s->tid[i], &r) &&
                avoided(arch_inject_pc(&r), a, na, round < PC_ROUNDS / 2))
                rerun[n++] = i;
        }
        if (n == 0 && s->inj)
            return 0;
        if (n == 0) {
            for (int i = 0; i < s->n; i++)
                if (s->tid[i] == pid || n == 0)
                    rerun[0] = i, n = 1;
        }
        run_on(s, rerun, n);
        for (int k = n - 1; k >= 0; k--) {
            int i = rerun[k];
            pid_t t = s->tid[i];
            ptrace(PTRACE_INTERRUPT, t, NULL, NULL);
            int st = 0;
            pid_t w = run_trace_wait(t, &st, 10000);
            if (w == 0) {
                run_trace_thread_state(pid, t, why, wl);
                strncat(why, " did not stop within 10 s of PTRACE_INTERRUPT", wl - strlen(why) - 1);
                let_go(pid, s);
                return ETIMEDOUT;
            }
            if (w < 0 || !WIFSTOPPED(st)) { /* it ended: off the list */
                s->tid[i] = s->tid[s->n - 1], s->sig[i] = s->sig[s->n - 1];
                s->n--;
                continue;
            }
            s->sig[i] = (st >> 16) == 0 ? WSTOPSIG(st) : 0;
        }
        if ((e = seize_new(pid, s, why, wl)))
            return e;
    }
    let_go(pid, s);
    snprintf(why, wl, "a thread was inside the bytes to write, or no thread was free to run "
             "the syscalls, after %d rounds", PC_ROUNDS);
    return EBUSY;
}

/* The ranges of the target's vDSO no thread may stand in while it is written: every site's
 * bytes and the scratch bytes (a thread there may be on the self-healing way home of a run
 * killed mid-attach).  Their number. */
static size_t vdso_avoid(const struct run_vpatch_target *t, uint64_t scratch, size_t scratch_len,
                         struct avoid *a)
{
    size_t n = 0;
    for (size_t k = 0; k < t->nsites; k++)
        a[n++] = (struct avoid){t->base + t->sites[k].offset,
                                t->base + t->sites[k].offset + site_len(&t->sites[k]), false};
    if (scratch_len)
        a[n++] = (struct avoid){t->base + scratch, t->base + scratch + scratch_len, false};
    return n;
}

/* The name of a syscall that returns EINTR at a ptrace stop, for the notice below. */
static const char *eintr_name(long nr)
{
    static const struct {
        long nr;
        const char *name;
    } names[] = {
#ifdef SYS_epoll_wait
        {SYS_epoll_wait, "epoll_wait"},
#endif
        {SYS_epoll_pwait, "epoll_pwait"}, {SYS_epoll_pwait2, "epoll_pwait2"},
        {SYS_semtimedop, "semtimedop"},   {SYS_rt_sigtimedwait, "sigtimedwait"},
        {SYS_io_getevents, "io_getevents"}, {SYS_io_pgetevents, "io_pgetevents"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].nr == nr)
            return names[i].name;
    return NULL;
}

/* Says which stopped threads were in a call the stop made return EINTR (the kernel does so
 * for any ptrace stop: strace -p and gdb too): the program sees -1 EINTR there, which a
 * service written for signals handles, and its operator should know of. */
static void say_interrupted(pid_t pid, const struct stopped *s, const char *verb)
{
    for (int i = 0; i < s->n; i++) {
        struct arch_regs r;
        if (arch_inject_get_regs(s->tid[i], &r))
            continue;
        long nr = arch_inject_eintr_syscall(&r);
        if (nr < 0)
            continue;
        const char *name = eintr_name(nr);
        char nr_name[32];
        snprintf(nr_name, sizeof nr_name, "syscall %ld", nr);
        fprintf(stderr, "clockscope run: pid %d: thread %d's %s returned EINTR when run stopped "
                "it %s (any ptrace attach does so)\n", (int)pid, (int)s->tid[i],
                name ? name : nr_name, verb);
    }
}

static void say_refusal(pid_t pid, int err, const char *why)
{
    if (err == EPERM) {
        int scope = -1;
        FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
        if (f) {
            if (fscanf(f, "%d", &scope) != 1)
                scope = -1;
            fclose(f);
        }
        fprintf(stderr, "clockscope run: cannot serve pid %d: ptrace is not permitted (%s): %s\n",
                (int)pid, strerror(err),
                scope == 1 ? "Yama's ptrace_scope is 1 (only a process's ancestors may trace "
                             "it): run -p needs CAP_SYS_PTRACE (root) here"
                : scope >= 2 ? "Yama's ptrace_scope is 2 or 3: only root (2) or nobody (3) may "
                               "attach"
                             : "a seccomp filter or a container's policy forbids it (Yama "
                               "allows it here)");
    } else {
        fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid,
                *why ? why : strerror(err));
    }
}

/* The scratch bytes of the target's vDSO (run_vpatch_scratch) and what they hold in a
 * pristine image: this process's own vDSO, the same kernel's image, whose bytes there are
 * zeros.  NULL when the images differ in size or there is no room. */
static const uint8_t *scratch_of(const struct run_vpatch_target *t, uint64_t *off, size_t *room)
{
    const struct vdso_live *mine = vdso_live();
    if (!t->image || !mine->present || mine->size != t->size ||
        !run_vpatch_scratch(mine->base, mine->size, off, room))
        return NULL;
    return (const uint8_t *)mine->base + *off;
}

/* The memfd run_vpatch made in the target becomes the data pages' home: opened through
 * /proc/PID/fd/N (the tracer may: root across users, and from outside the target's PID
 * namespace, where the target could not open anything of the helper's), the helper's pages
 * moved into it.  This helper's own memfd is then unused. */
struct adopt_ctx {
    struct run_page_header *page;
    bool line;
};

static bool adopt(pid_t pid, long fd_in_target, void *ctx, char *why, size_t wl)
{
    const struct adopt_ctx *ac = ctx;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%ld", (int)pid, fd_in_target);
    int to = open(path, O_RDWR | O_CLOEXEC);
    if (to < 0) {
        snprintf(why, wl, "cannot open its new memfd (%s): %s", path, strerror(errno));
        return false;
    }
    bool ok = run_refresher_move(to, ac->page, ac->line, why, wl);
    close(to);
    return ok;
}

int run_attach(pid_t pid, const struct run_mode *mode, bool verbose, const char *output)
{
    char why[400] = "";
    if (!arch_inject_supported(why, sizeof why) || !arch_inject_attach_supported(why, sizeof why) ||
        !run_fit_to_serve(pid, true, why, sizeof why) || !run_fit_to_touch(pid, why, sizeof why)) {
        fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid, why);
        return 1;
    }
    bool count = mode->kind == RUN_MODE_COUNT;
    if (!run_mode_vdso_servable(mode, false, why, sizeof why)) {
        fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid, why);
        return 1;
    }
    int memfd = memfd_create("clockscope-run-page", MFD_CLOEXEC);
    struct run_page_header *page = MAP_FAILED;
    if (memfd >= 0 && ftruncate(memfd, RUN_MEMFD_SIZE) == 0)
        page = mmap(NULL, RUN_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, RUN_PAGE_SIZE);
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int report[2];
    if (page == MAP_FAILED || pidfd < 0 || pipe2(report, O_CLOEXEC) != 0) {
        fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid,
                pidfd < 0 ? "no such process" : strerror(errno));
        return 1;
    }
    run_page_init(page, count);
    fflush(NULL);
    /* The helper: a grandchild, so that it outlives this command as the refresher. */
    pid_t mid = fork();
    if (mid == 0) {
        if (fork() != 0)
            _exit(0);
        close(report[0]);
        static const int quiet[] = {SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};
        for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
            signal(quiet[i], SIG_IGN);
        int status = 1;
        if (!count && !run_refresher_prepare(memfd, page, mode, why, sizeof why)) {
            fprintf(stderr, "clockscope run: pid %d is not served: %s\n", (int)pid, why);
            write(report[1], &status, sizeof status);
            _exit(0);
        }
        static struct stopped s;
        struct run_vpatch_target t;
        char how[400] = "";
        pid_t at = run_trace_live_thread(pid);
        enum run_vpatch_result res = run_vpatch_read(at ? at : pid, &t, how, sizeof how);
        uint64_t scratch = 0, region = 0;
        size_t room = 0;
        const uint8_t *pristine = scratch_of(&t, &scratch, &room);
        int e = EINVAL;
        if (res == RUN_VPATCH_OK && run_vpatch_region_of(&t, &region)) {
            snprintf(how, sizeof how, "its vDSO's clock_gettime already jumps to 0x%llx: it is "
                     "served already (clockscope run --undo %d puts the vDSO back)",
                     (unsigned long long)region, (int)pid);
            res = RUN_VPATCH_ALREADY;
        } else if (res == RUN_VPATCH_OK && !pristine) {
            snprintf(how, sizeof how, "its vDSO has no bytes past its ELF content where the "
                     "injected step could run, or is not this kernel's image");
            res = RUN_VPATCH_UNKNOWN_LAYOUT;
        } else if (res == RUN_VPATCH_OK) {
            struct avoid avoid[RUN_ENTRIES + 1];
            size_t na = vdso_avoid(&t, scratch, room, avoid);
            e = stop_outside(pid, &s, avoid, na, why, sizeof why);
        }
        uint64_t base = t.base;
        free(t.image);
        if (res != RUN_VPATCH_OK) {
            fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid, how);
        } else if (e) {
            say_refusal(pid, e, why);
        } else {
            struct adopt_ctx ac = {.page = page, .line = !count};
            const struct run_vpatch_share share = {.adopt = adopt, .ctx = &ac};
            say_interrupted(pid, &s, "to serve the process");
            struct run_heal heal;
            e = run_heal_begin(&heal, s.inj, base + scratch, pristine, room, &s.main_taken, why,
                               sizeof why);
            if (e) {
                snprintf(how, sizeof how, "%s", why);
                res = RUN_VPATCH_TRACE_FAILED;
            } else {
                struct run_process_page first;
                bool known = run_page_process(pid, page, &first);
                res = run_vpatch(s.inj, -1, &share, known ? &first : NULL, how, sizeof how,
                                 &s.main_taken, &heal);
            }
            run_heal_end(&heal);
            let_go(pid, &s);
            if (res == RUN_VPATCH_OK) {
                close(memfd); /* the pages live in the target's memfd (adopt) */
                status = 0;
                if (verbose)
                    fprintf(stderr, "clockscope run: pid %d: %s; %s%s%s (refresher: pid %d)\n",
                            (int)pid, how, count ? "every call counted (and answered by the syscall)"
                                                 : "served by fastclock's line",
                            count ? "" : ", ", count ? "" : run_refresher_start_said(), (int)getpid());
            } else {
                fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid, how);
            }
        }
        fflush(stderr);
        write(report[1], &status, sizeof status);
        close(report[1]);
        if (status)
            _exit(0);
        /* Run returns now: its caller's output must not stay open in the refresher (a
         * caller reading it to EOF would wait for the process to end), except for count
         * mode's table when it goes to stderr. */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0), dup2(null, 1);
            if (!count || output)
                dup2(null, 2);
            close(null);
        }
        char comm[64] = "";
        snprintf(comm, sizeof comm, "pid %d", (int)pid);
        struct run_refresher r = {.page = page, .lifeline = pidfd, .count = count,
                                  .verbose = verbose && count && !output, .output = output,
                                  .path = comm, .pid = pid};
        run_refresher_loop(&r);
        _exit(0);
    }
    close(report[1]);
    int st, status = 1;
    if (mid > 0)
        while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
            ;
    if (mid < 0 || read(report[0], &status, sizeof status) != (ssize_t)sizeof status)
        status = 1;
    return status;
}

/* The reader answers CLOCK_MONOTONIC_COARSE and CLOCK_REALTIME_COARSE with their fine
 * twins; the kernel's coarse clocks are the fine ones at the last tick, up to a tick
 * behind.  With every thread stopped, the undo waits until the kernel's coarse clocks have
 * passed the fine clocks of now, above every value served before the stop: a thread that
 * reads the kernel's coarse clock after the undo gets no less.  At most one tick
 * (1-10 ms), bounded at 100 ms.  No thread is stopped inside the reader (stop_outside),
 * where it would finish a read after the detach, with the fine clock of then. */
static void coarse_catch_up(void)
{
    static const clockid_t pair[][2] = {{CLOCK_MONOTONIC, CLOCK_MONOTONIC_COARSE},
                                        {CLOCK_REALTIME, CLOCK_REALTIME_COARSE}};
    enum { N = sizeof pair / sizeof pair[0] };
    struct timespec fine[N];
    for (size_t i = 0; i < N; i++) /* both first: one tick serves both */
        clock_gettime(pair[i][0], &fine[i]);
    for (size_t i = 0; i < N; i++) {
        for (int waited = 0; waited < 1000; waited++) {
            struct timespec coarse;
            clock_gettime(pair[i][1], &coarse);
            if (coarse.tv_sec > fine[i].tv_sec ||
                (coarse.tv_sec == fine[i].tv_sec && coarse.tv_nsec >= fine[i].tv_nsec))
                break;
            nanosleep(&(struct timespec){0, 100000}, NULL);
        }
    }
}

int run_undo(pid_t pid, bool verbose)
{
    char why[400] = "";
    if (!arch_inject_supported(why, sizeof why) || !arch_inject_attach_supported(why, sizeof why) ||
        !run_fit_to_serve(pid, false, why, sizeof why)) {
        fprintf(stderr, "clockscope run: cannot undo pid %d: %s\n", (int)pid, why);
        return 1;
    }
    const struct vdso_live *mine = vdso_live();
    struct run_vpatch_target t;
    char how[400] = "";
    pid_t at = run_trace_live_thread(pid);
    if (run_vpatch_read(at ? at : pid, &t, how, sizeof how) != RUN_VPATCH_OK) {
        fprintf(stderr, "clockscope run: cannot undo pid %d: %s\n", (int)pid, how);
        return 1;
    }
    /* The pristine bytes are this process's own vDSO (the same kernel image): the two
     * must agree everywhere but at the patched entry points. */
    int patched = 0;
    uint64_t scratch = 0;
    size_t room = 0;
    const uint8_t *pristine = scratch_of(&t, &scratch, &room);
    bool same = mine->present && mine->size == t.size;
    for (size_t off = 0; same && off < t.size; off++) {
        bool in_site = pristine && off >= scratch; /* a run killed mid-attach may leave its step */
        for (size_t k = 0; k < t.nsites; k++)
            in_site |= off >= t.sites[k].offset && off < t.sites[k].offset + site_len(&t.sites[k]);
        if (!in_site && t.image[off] != ((const uint8_t *)mine->base)[off])
            same = false;
    }
    bool scratch_dirty = pristine && memcmp(t.image + scratch, pristine, room) != 0;
    for (size_t k = 0; same && k < t.nsites; k++)
        if (memcmp(t.image + t.sites[k].offset, (const uint8_t *)mine->base + t.sites[k].offset,
                   site_len(&t.sites[k])))
            patched++;
    if (!same) {
        fprintf(stderr, "clockscope run: cannot undo pid %d: its vDSO differs from this "
                "process's beyond the entry points run writes: not a vDSO run patched\n", (int)pid);
        free(t.image);
        return 1;
    }
    if (!patched && !scratch_dirty) {
        fprintf(stderr, "clockscope run: pid %d is not served: its vDSO is pristine\n", (int)pid);
        free(t.image);
        return 1;
    }
    static struct stopped s;
    /* And the reader: a thread stopped inside it would finish its read after the undo,
     * above the kernel's coarse clocks the catch-up below waits for.  Soft: a thread that
     * never leaves it (one that takes signals without pause runs its handlers and little
     * else) does not make the undo fail; its one read may then lie up to a tick above the
     * coarse clock it reads next (docs/run.md). */
    struct avoid avoid[RUN_ENTRIES + 2];
    size_t na = vdso_avoid(&t, scratch, pristine ? room : 0, avoid);
    uint64_t region = 0;
    if (run_vpatch_region_of(&t, &region))
        avoid[na++] = (struct avoid){region, region + RUN_READER_CODE_SIZE, true};
    int e = stop_outside(pid, &s, avoid, na, why, sizeof why);
    if (e) {
        say_refusal(pid, e, why);
        free(t.image);
        return 1;
    }
    say_interrupted(pid, &s, "to undo");
    coarse_catch_up();
    for (size_t k = 0; k < t.nsites && !e; k++)
        e = run_trace_write(s.inj, t.base + t.sites[k].offset,
                            (const uint8_t *)mine->base + t.sites[k].offset, site_len(&t.sites[k]));
    if (!e && scratch_dirty)
        e = run_trace_write(s.inj, t.base + scratch, pristine, room);
    /* Tell the refresher of that region (the header page is shared with it) to end. */
    struct run_page_header h;
    if (!e && region &&
        !run_trace_read(s.inj, region + RUN_HEADER_OFFSET, &h, sizeof h) && h.magic == RUN_PAGE_MAGIC) {
        uint32_t flags = h.flags | RUN_FLAG_UNDONE;
        run_trace_write(s.inj, region + RUN_HEADER_OFFSET + offsetof(struct run_page_header, flags),
                        &flags, sizeof flags);
    }
    let_go(pid, &s);
    free(t.image);
    if (e) {
        fprintf(stderr, "clockscope run: cannot undo pid %d: writing its vDSO: %s\n", (int)pid,
                strerror(e));
        return 1;
    }
    if (verbose)
        fprintf(stderr, "clockscope run: pid %d: its vDSO's %d entry points are pristine again "
                "(the reader's pages stay mapped, unused; its refresher ends)\n",
                (int)pid, patched);
    return 0;
}
