/* SPDX-License-Identifier: MIT */
/* The messages of run -p and --undo (run/run_attach_report.h). */
#include "run/run_attach_report.h"

#include "arch/inject.h"
#include "run/run_helper.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

void run_attach_say_cannot(pid_t pid, const char *verb, const char *why)
{
    fprintf(stderr, "clockscope run: cannot %s pid %d: %s\n", verb, (int)pid, why);
}

void run_attach_say_not_served(pid_t pid, const char *why)
{
    fprintf(stderr, "clockscope run: pid %d is not served: %s\n", (int)pid, why);
}

void run_attach_say_refusal(pid_t pid, int err, const char *why)
{
    if (err == EPERM) {
        int scope = run_helper_yama_scope();
        fprintf(stderr, "clockscope run: cannot serve pid %d: ptrace is not permitted (%s): %s\n",
                (int)pid, strerror(err),
                scope == 1 ? "Yama's ptrace_scope is 1 (only a process's ancestors may trace "
                             "it): run -p needs CAP_SYS_PTRACE (root) here"
                : scope >= 2 ? "Yama's ptrace_scope is 2 or 3: only root (2) or nobody (3) may "
                               "attach"
                             : "a seccomp filter or a container's policy forbids it (Yama "
                               "allows it here)");
    } else {
        run_attach_say_cannot(pid, "serve", *why ? why : strerror(err));
    }
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

void run_attach_say_interrupted(pid_t pid, const struct run_stopped *s, const char *verb)
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


void run_attach_served_already(char *why, size_t whylen, uint64_t region, pid_t pid)
{
    snprintf(why, whylen, "its vDSO's clock_gettime already jumps to 0x%llx: it is served already "
             "(clockscope run --undo %d puts the vDSO back)", (unsigned long long)region,
             (int)pid);
}

void run_attach_no_scratch(char *why, size_t whylen)
{
    snprintf(why, whylen, "its vDSO has no bytes past its ELF content where the injected step "
             "could run, or is not this kernel's image");
}

void run_attach_say_serving(pid_t pid, const char *how, bool count)
{
    char who[24];
    snprintf(who, sizeof who, "pid %d", (int)pid);
    run_helper_say_serving(who, how, count, true);
}

void run_attach_say_not_ours(pid_t pid)
{
    run_attach_say_cannot(pid, "undo", "its vDSO differs from this process's beyond the entry "
                          "points run writes: not a vDSO run patched");
}

void run_attach_say_undo_failed(pid_t pid, int err)
{
    fprintf(stderr, "clockscope run: cannot undo pid %d: writing its vDSO: %s\n", (int)pid,
            strerror(err));
}

void run_attach_say_pristine(pid_t pid)
{
    run_attach_say_not_served(pid, "its vDSO is pristine");
}

void run_attach_say_undone(pid_t pid, int patched)
{
    fprintf(stderr, "clockscope run: pid %d: its vDSO's %d entry points are pristine again "
            "(the reader's pages stay mapped, unused; its refresher ends)\n", (int)pid, patched);
}
