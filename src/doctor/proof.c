/* SPDX-License-Identifier: MIT */
#include "doctor/proof.h"
#include "common/clock_ns.h"
#include "common/subprocess.h"
#include "common/units.h"

#include "arch/arch.h"
#include "common/cpuset.h"
#include "measure/engine.h"
#include "measure/method.h"
#include "measure/time_filter.h"
#include "vdso/vdso.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *proof_call_name(enum proof_call c)
{
    static const char *const names[PC_COUNT] = {
        "clock_gettime(CLOCK_MONOTONIC)", "clock_gettime(CLOCK_REALTIME)", "gettimeofday",
        "syscall(SYS_clock_gettime) (control)",
        "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) (control: never in the vDSO)"};
    return names[c];
}

const char *proof_call_method(enum proof_call c)
{
    static const char *const ids[PC_COUNT] = {
        "libc.clock_gettime.monotonic", "libc.clock_gettime.realtime", "libc.gettimeofday",
        "syscall.clock_gettime.monotonic", "libc.clock_gettime.process_cputime_id"};
    return ids[c];
}

static volatile long trapped;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    int saved = errno;
    trapped++;
    long r = syscall(si->si_syscall, arch_ucontext_syscall_arg(uc, 0),
                     arch_ucontext_syscall_arg(uc, 1), (long)TIME_FILTER_MAGIC);
    arch_ucontext_set_return(uc, r == -1 ? -errno : r);
    errno = saved;
}

static int install_filter(void)
{
    struct sock_filter f[TIME_FILTER_MAX];
    int n = time_filter_build(f, SECCOMP_RET_TRAP);
    struct sock_fprog prog = {(unsigned short)n, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        return errno;
    return 0;
}

struct child_report {
    int setup_errno;
    long syscalls[PC_COUNT];
    long errors[PC_COUNT];
    long backwards;
};

static void child_count(long calls, struct child_report *rep)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0 || (rep->setup_errno = install_filter()) != 0) {
        if (!rep->setup_errno)
            rep->setup_errno = errno;
        return;
    }
    struct timespec ts;
    struct timeval tv;
    uint64_t last = 0;
    for (int c = 0; c < PC_COUNT; c++) {
        trapped = 0;
        for (long i = 0; i < calls; i++) {
            int r = 0;
            switch (c) {
            case PC_MONOTONIC:
                r = clock_gettime(CLOCK_MONOTONIC, &ts);
                if (r == 0 && clock_ns_of(&ts) < last)
                    rep->backwards++;
                last = clock_ns_of(&ts);
                break;
            case PC_REALTIME:
                r = clock_gettime(CLOCK_REALTIME, &ts);
                break;
            case PC_GETTIMEOFDAY:
                r = gettimeofday(&tv, NULL);
                break;
            case PC_CPUTIME:
                r = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
                break;
            default:
                r = (int)syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
                break;
            }
            if (r != 0)
                rep->errors[c]++;
        }
        rep->syscalls[c] = trapped;
    }
}

/* The counting child's deadline, from what calls cost on this machine right now: under
 * emulation (a riscv64 TCG guest on a loaded host) a trapped call can take a thousand
 * times what it takes on hardware, so no fixed deadline fits both.  The child makes
 * PC_COUNT * PROOF_CALLS calls, each at worst a SIGSYS: the signal's delivery, the
 * handler's own syscall and the return, about SIGSYS_COST syscalls' worth.  The deadline
 * is ten times that estimate, at least 2 s, at most 10 minutes: reached only by a child
 * that is stuck. */
#define SIGSYS_COST 8.0
double proof_child_deadline_s(double libc_call_ns, double syscall_ns)
{
    double estimate_s = PC_COUNT * (double)PROOF_CALLS * (libc_call_ns + SIGSYS_COST * syscall_ns) / 1e9;
    double deadline = 1.0 + 10.0 * estimate_s;
    return deadline < 2.0 ? 2.0 : deadline > 600.0 ? 600.0 : deadline;
}

/* The median of five batches of eight calls: a raw clock_gettime syscall, and libc's. */
static void probe_call_costs(double *libc_ns, double *syscall_ns)
{
    double libc[5], sys[5];
    struct timespec ts;
    for (int b = 0; b < 5; b++) {
        double t0 = (double)clock_ns_read(CLOCK_MONOTONIC);
        for (int i = 0; i < 8; i++)
            syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        double t1 = (double)clock_ns_read(CLOCK_MONOTONIC);
        for (int i = 0; i < 8; i++)
            clock_gettime(CLOCK_MONOTONIC, &ts);
        double t2 = (double)clock_ns_read(CLOCK_MONOTONIC);
        sys[b] = (t1 - t0) / 8;
        libc[b] = (t2 - t1) / 8;
    }
    for (int i = 1; i < 5; i++) /* insertion sort, both arrays */
        for (int k = i; k > 0; k--) {
            if (sys[k] < sys[k - 1]) {
                double t = sys[k]; sys[k] = sys[k - 1]; sys[k - 1] = t;
            }
            if (libc[k] < libc[k - 1]) {
                double t = libc[k]; libc[k] = libc[k - 1]; libc[k - 1] = t;
            }
        }
    *libc_ns = libc[2];
    *syscall_ns = sys[2];
}

/* Reads the child's report from fd until it is whole or deadline_s has passed.  Returns
 * whether it is whole. */
static bool read_child_report(int fd, double deadline_s, struct child_report *rep)
{
    const int64_t deadline_ms = (int64_t)(deadline_s * 1000);
    size_t got = 0;
    struct pollfd pf = {fd, POLLIN, 0};
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (got < sizeof *rep) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t waited_ms = (int64_t)(now.tv_sec - start.tv_sec) * 1000 +
                            (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited_ms >= deadline_ms)
            break;
        int r = poll(&pf, 1, (int)(deadline_ms - waited_ms));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        ssize_t n = read(fd, (char *)rep + got, sizeof *rep - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got == sizeof *rep;
}

/* Takes the child's counts into p when they can be trusted; otherwise says why not in
 * p->count_why. */
static void take_counts(struct proof *p, const struct child_report *rep)
{
    if (rep->setup_errno) {
        snprintf(p->count_why, sizeof p->count_why,
                 "seccomp filters are not available here (%s)%s", strerror(rep->setup_errno),
                 rep->setup_errno == EINVAL ? ": qemu-user and kernels without "
                                              "CONFIG_SECCOMP_FILTER refuse them" : "");
        return;
    }
    for (int c = 0; c < PC_COUNT; c++) {
        p->syscalls[c] = rep->syscalls[c];
        p->call_errors[c] = rep->errors[c];
    }
    p->backwards = rep->backwards;
    if (rep->errors[PC_CONTROL] || rep->errors[PC_CPUTIME]) {
        /* The handler's emulation itself failed (a register layout this arch's
         * arch_ucontext_* got wrong): no call's result can be trusted, so neither can a
         * "broken" verdict drawn from them. */
        snprintf(p->count_why, sizeof p->count_why,
                 "the emulated control calls failed (%ld raw, %ld CPU-time of %d): the SIGSYS "
                 "emulation does not work here, so the counts are not trusted",
                 rep->errors[PC_CONTROL], rep->errors[PC_CPUTIME], PROOF_CALLS);
        return;
    }
    if (rep->syscalls[PC_CONTROL] != PROOF_CALLS) {
        snprintf(p->count_why, sizeof p->count_why,
                 "the control loop of %d raw syscalls counted %ld: the filter does not see "
                 "syscalls here, so the counts are not trusted", PROOF_CALLS,
                 rep->syscalls[PC_CONTROL]);
        return;
    }
    if (rep->syscalls[PC_CPUTIME] < PROOF_CALLS) {
        snprintf(p->count_why, sizeof p->count_why,
                 "%d calls of clock_gettime(CLOCK_PROCESS_CPUTIME_ID), which always enter the "
                 "kernel, counted %ld syscalls: the count misses library syscalls here",
                 PROOF_CALLS, rep->syscalls[PC_CPUTIME]);
        return;
    }
    p->counted = true;
}

static void count_syscalls(struct proof *p)
{
    p->calls = PROOF_CALLS;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(p->count_why, sizeof p->count_why, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(p->count_why, sizeof p->count_why, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        subprocess_die_with_parent(parent);
        close(fds[0]);
        struct child_report rep;
        memset(&rep, 0, sizeof rep);
        child_count(PROOF_CALLS, &rep);
        ssize_t w = write(fds[1], &rep, sizeof rep);
        _exit(w == (ssize_t)sizeof rep ? 0 : 1);
    }
    close(fds[1]);
    /* The child runs on its own; meanwhile the parent measures this machine's call costs
     * (both share the CPUs, which only makes the estimate larger). */
    double libc_ns, syscall_ns;
    probe_call_costs(&libc_ns, &syscall_ns);
    p->probe_syscall_ns = syscall_ns;
    p->count_deadline_s = proof_child_deadline_s(libc_ns, syscall_ns);
    struct child_report rep;
    bool whole = read_child_report(fds[0], p->count_deadline_s, &rep);
    close(fds[0]);
    if (!whole)
        kill(pid, SIGKILL);
    int status;
    subprocess_reap(pid, &status);
    if (!whole) {
        if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
            snprintf(p->count_why, sizeof p->count_why,
                     "the counting child died of %s", strsignal(WTERMSIG(status)));
        else
            snprintf(p->count_why, sizeof p->count_why, "the counting child did not report in "
                     "%.1f s (the deadline for this machine, where a raw syscall costs %s)",
                     p->count_deadline_s, NS_TEXT(p->probe_syscall_ns));
        return;
    }
    take_counts(p, &rep);
}

static void time_methods(struct proof *p)
{
    static struct method_list list; /* large: keep it off the stack */
    methods_collect(&list);
    const char *ids[PROOF_MAX_TIMINGS];
    int n = 0;
    ids[n++] = "libc.clock_gettime.monotonic";
    ids[n++] = "libc.clock_gettime.realtime";
    ids[n++] = "syscall.clock_gettime.monotonic";
    ids[n++] = "libc.clock_gettime.monotonic_coarse";
    ids[n++] = "ref.empty_call"; /* what a trapping counter read is judged against */
    const struct counter_method *counters;
    size_t nc = arch_counters(&counters);
    char first_counter[64] = "", cycle_counter[64] = "";
    if (nc > 0)
        snprintf(first_counter, sizeof first_counter, "counter.%s", counters[0].name);
    for (size_t i = 1; i < nc; i++)
        if (strcmp(counters[i].name, "rdcycle") == 0)
            snprintf(cycle_counter, sizeof cycle_counter, "counter.%s", counters[i].name);
    if (first_counter[0])
        ids[n++] = first_counter;
    if (cycle_counter[0])
        ids[n++] = cycle_counter;

    struct measure_config cfg;
    measure_config_quick(&cfg);
    cfg.sample_target_ns = 0.2e6;
    cfg.samples = 11;
    cfg.min_samples = 5;
    cfg.warmup_ns = 0.5e6;
    cfg.budget_ns = 15e6;
    struct cpu_list allowed;
    int cpu = -1;
    if (cpuset_allowed(&allowed) && allowed.count > 0) {
        cpu = allowed.cpu[allowed.count - 1];
        cpuset_pin(cpu);
    }
    static struct measurement m;
    for (int i = 0; i < n && p->ntimings < PROOF_MAX_TIMINGS; i++) {
        struct proof_timing *t = &p->timing[p->ntimings++];
        snprintf(t->id, sizeof t->id, "%s", ids[i]);
        const struct method *meth = methods_find(&list, ids[i]);
        if (!meth) {
            snprintf(t->why, sizeof t->why, "no such method here");
            continue;
        }
        if (!meth->available) {
            snprintf(t->why, sizeof t->why, "%s", meth->why);
            continue;
        }
        int cpus[1] = {cpu < 0 ? 0 : cpu};
        if (!measure_method(meth, &cfg, cpus, 1, &m) || !m.ok) {
            snprintf(t->why, sizeof t->why, "%s", m.error[0] ? m.error : "measurement failed");
            continue;
        }
        t->ok = true;
        t->ns_per_call = m.ns_per_call.median;
        t->min_ns = m.ns_per_call.min > 0 ? m.ns_per_call.min : 0;
        t->spread = m.ns_per_call.median > 0
                        ? (m.ns_per_call.p90 - m.ns_per_call.p10) / m.ns_per_call.median : 0;
        t->noisy = m.noisy;
        t->cost = m.ns_per_call;
    }
}

static long resolution_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_getres(id, &ts) != 0)
        return -1;
    return (long)clock_ns_of(&ts);
}

const struct proof_timing *proof_timing_find(const struct proof *p, const char *id)
{
    for (int i = 0; i < p->ntimings; i++)
        if (strcmp(p->timing[i].id, id) == 0)
            return p->timing[i].ok ? &p->timing[i] : NULL;
    return NULL;
}

void proof_run(struct proof *p)
{
    memset(p, 0, sizeof *p);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    p->ran = true;
    const struct vdso_live *v = vdso_live();
    p->vdso_present = v->present && v->parsed && v->clock_gettime;
    if (!p->vdso_present)
        snprintf(p->vdso_why, sizeof p->vdso_why, "%s",
                 v->why[0] ? v->why : "the vDSO has no clock_gettime");
    count_syscalls(p);
    time_methods(p);
    p->res_ns_monotonic = resolution_ns(CLOCK_MONOTONIC);
    p->res_ns_monotonic_coarse = resolution_ns(CLOCK_MONOTONIC_COARSE);
    p->res_ns_realtime_coarse = resolution_ns(CLOCK_REALTIME_COARSE);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    p->elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}
