/* SPDX-License-Identifier: MIT */
/* A running process (run/run_attach.h).  Every thread is seized and interrupted, and the
 * thread list read again until it is stable (a thread created meanwhile is seized too);
 * no thread may be executing the bytes to write (if one is, all are let go for a
 * millisecond and stopped again, a few times, then run refuses).  The syscalls are run in
 * the thread-group leader; the others stay stopped until every byte is written. */
#include "run/run_attach.h"

#include "arch/inject.h"
#include "common/elf_probe.h"
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
#define PC_RETRIES 50

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

/* Seizes and stops every thread of pid.  0, or an errno value with why.
 *
 * A thread is stopped at the first ptrace stop after PTRACE_INTERRUPT, whatever its
 * kind: the event stop the interrupt asks for, a group stop (SIGSTOP'ed: it stays so), or a
 * signal-delivery stop when a signal was being taken first (SIGPROF, Go's SIGURG).  The
 * kernel clears the pending interrupt at ANY ptrace stop ("any trap clears pending STOP
 * trap", ptrace_stop()), so resuming a thread from its signal-delivery stop to wait for the
 * event stop lets it run on with none to come: the attach hung, or ran while a thread
 * believed stopped executed the vDSO being written.  That thread stays where it is, its
 * signal handed back by the detach. */
static int stop_all(pid_t pid, struct stopped *s, char *why, size_t wl)
{
    s->n = 0, s->inj = 0;
    s->main_taken.n = 0, s->main_taken.stepped = false;
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
            if (ptrace(PTRACE_SEIZE, t, NULL, NULL) != 0) {
                int err = errno;
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
    /* The syscalls run in the main thread, or in another if it has ended.  A signal it
     * stands at goes with those its steps will take (run_trace_syscall). */
    int k = 0;
    for (int i = 0; i < s->n; i++)
        if (s->tid[i] == pid)
            k = i;
    s->inj = s->tid[k];
    if (s->sig[k]) {
        siginfo_t si;
        if (ptrace(PTRACE_GETSIGINFO, s->inj, NULL, &si) == 0)
            s->main_taken.info[s->main_taken.n++] = si;
        s->sig[k] = 0;
    }
    return 0;
}

/* The number of bytes run writes at a site: its jump's length (which may depend on the
 * site's alignment). */
static size_t site_len(const struct run_vpatch_site *site)
{
    uint8_t jump[32];
    return arch_inject_abs_jump(jump, sizeof jump, site->offset, 0);
}

/* Stops everything with no thread's PC inside a site's bytes.  0 or an errno value. */
static int stop_outside(pid_t pid, struct stopped *s, const struct run_vpatch_target *t,
                        char *why, size_t wl)
{
    for (int attempt = 0; attempt < PC_RETRIES; attempt++) {
        int e = stop_all(pid, s, why, wl);
        if (e)
            return e;
        bool inside = false;
        for (int i = 0; i < s->n && !inside; i++) {
            struct arch_regs r;
            if (arch_inject_get_regs(s->tid[i], &r))
                continue;
            uint64_t pc = arch_inject_pc(&r);
            for (size_t k = 0; k < t->nsites; k++)
                if (pc >= t->base + t->sites[k].offset &&
                    pc < t->base + t->sites[k].offset + site_len(&t->sites[k]))
                    inside = true;
        }
        if (!inside)
            return 0;
        let_go(pid, s);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    snprintf(why, wl, "a thread was inside the bytes to write at each of %d tries", PC_RETRIES);
    return EBUSY;
}

/* Whether -p can be offered on this arch.  The injected syscalls restore the registers
 * ptrace's general register set holds; on x86_64 that includes orig_rax, which a thread
 * stopped inside a syscall needs to restart it.  aarch64 and riscv64 keep the interrupted
 * syscall's first argument (orig_x0, orig_a0) and number outside that set: a restarted
 * futex or read would get the injected syscall's argument.  The exec path (run -- CMD) is
 * not concerned: its thread stands at the exec's syscall-exit stop, nothing to restart. */
static bool attach_on_this_arch(char *why, size_t wl)
{
#if defined(__x86_64__)
    (void)why, (void)wl;
    return true;
#else
    snprintf(why, wl, "run -p and --undo are done on x86_64 only: here an interrupted "
             "syscall's first argument is not restored after the injected ones "
             "(run -- COMMAND serves static and Go programs at their start)");
    return false;
#endif
}

/* What the process is, before anything is done to it: one that exists, is this user's
 * (or run is root), has no tracer already and is not a dynamic program the shim serves
 * better.  true, or false with the refusal in why. */
static bool fit_to_serve(pid_t pid, bool attach, char *why, size_t wl)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(why, wl, "no process %d", (int)pid);
        return false;
    }
    long tracer = 0, tgid = -1;
    unsigned long ruid = 0, euid = 0;
    bool have_uid = false;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Tgid:", 5))
            tgid = atol(line + 5);
        else if (!strncmp(line, "TracerPid:", 10))
            tracer = atol(line + 10);
        else if (sscanf(line, "Uid: %lu %lu", &ruid, &euid) == 2)
            have_uid = true;
    }
    fclose(f);
    if (tgid != pid) {
        snprintf(why, wl, "%d is a thread of process %ld: give the process's pid", (int)pid, tgid);
        return false;
    }
    uid_t me = geteuid();
    if (me != 0 && have_uid && (ruid != me || euid != me)) {
        snprintf(why, wl, "it belongs to another user (uid %lu): run -p serves only your own "
                 "processes (root, with ptrace allowed, may serve any)", euid);
        return false;
    }
    if (tracer) {
        char comm[64] = "?";
        snprintf(path, sizeof path, "/proc/%ld/comm", tracer);
        FILE *c = fopen(path, "re");
        if (c) {
            if (fgets(comm, sizeof comm, c))
                comm[strcspn(comm, "\n")] = 0;
            fclose(c);
        }
        snprintf(why, wl, "it is being traced by pid %ld (%s): a process has one tracer; "
                 "detach that one (gdb: detach; strace: end it), then run -p", tracer, comm);
        return false;
    }
    if (!attach)
        return true;
    pid_t at = run_trace_live_thread(pid);
    snprintf(path, sizeof path, "/proc/%d/exe", (int)(at ? at : pid));
    struct elf_facts ef;
    char ewhy[200];
    if (elf_probe(path, &ef, ewhy, sizeof ewhy) == ELF_PROBE_OK && ef.has_interp && !ef.go_buildinfo) {
        snprintf(why, wl, "it is a dynamically linked program (not Go): its clock reads go "
                 "through libc, which run's shim serves; start it as `clockscope run -- "
                 "COMMAND` instead (run -p patches the vDSO of static and Go programs only)");
        return false;
    }
    return true;
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

int run_attach(pid_t pid, const struct run_mode *mode, bool verbose, const char *output)
{
    char why[400] = "";
    if (!arch_inject_supported(why, sizeof why) || !attach_on_this_arch(why, sizeof why) ||
        !fit_to_serve(pid, true, why, sizeof why)) {
        fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid, why);
        return 1;
    }
    bool count = !strcmp(mode->name, "count");
    if (!strcmp(mode->name, "coarse")) {
        fprintf(stderr, "clockscope run: cannot serve pid %d: --mode coarse is not offered "
                "through the vDSO\n", (int)pid);
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
    page->magic = RUN_PAGE_MAGIC, page->version = RUN_PAGE_VERSION;
    page->flags = count ? RUN_FLAG_COUNT : 0;
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
        int e = res == RUN_VPATCH_OK ? stop_outside(pid, &s, &t, why, sizeof why) : EINVAL;
        free(t.image);
        if (res != RUN_VPATCH_OK) {
            fprintf(stderr, "clockscope run: cannot serve pid %d: %s\n", (int)pid, how);
        } else if (e) {
            say_refusal(pid, e, why);
        } else {
            char path[64];
            snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)getpid(), memfd);
            res = run_vpatch(s.inj, -1, path, how, sizeof how, &s.main_taken);
            let_go(pid, &s);
            if (res == RUN_VPATCH_OK) {
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

int run_undo(pid_t pid, bool verbose)
{
    char why[400] = "";
    if (!arch_inject_supported(why, sizeof why) || !attach_on_this_arch(why, sizeof why) ||
        !fit_to_serve(pid, false, why, sizeof why)) {
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
    bool same = mine->present && mine->size == t.size;
    for (size_t off = 0; same && off < t.size; off++) {
        bool in_site = false;
        for (size_t k = 0; k < t.nsites; k++)
            in_site |= off >= t.sites[k].offset && off < t.sites[k].offset + site_len(&t.sites[k]);
        if (!in_site && t.image[off] != ((const uint8_t *)mine->base)[off])
            same = false;
    }
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
    if (!patched) {
        fprintf(stderr, "clockscope run: pid %d is not served: its vDSO is pristine\n", (int)pid);
        free(t.image);
        return 1;
    }
    static struct stopped s;
    int e = stop_outside(pid, &s, &t, why, sizeof why);
    if (e) {
        say_refusal(pid, e, why);
        free(t.image);
        return 1;
    }
    for (size_t k = 0; k < t.nsites && !e; k++)
        e = run_trace_write(s.inj, t.base + t.sites[k].offset,
                            (const uint8_t *)mine->base + t.sites[k].offset, site_len(&t.sites[k]));
    /* Tell the refresher of that region (the header page is shared with it) to end. */
    uint64_t region;
    struct run_page_header h;
    if (!e && run_vpatch_region_of(&t, &region) &&
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
