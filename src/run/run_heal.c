/* SPDX-License-Identifier: MIT */
/* run -p's injected syscalls (run/run_heal.h).  The order of every write is what makes a
 * kill of the tracer harmless at any instant:
 *   1. the stub and its data (the home registers and mask) into the vDSO's scratch bytes:
 *      no thread runs there yet;
 *   2. the first step's registers: from now on the thread, let go, runs the step and the
 *      stub's way home, which sets the saved mask (a no-op until 3);
 *   3. the mask blocked;
 *   ... steps: stopped at the syscall's entry and exit, registers set for the next one;
 *   4. the mask put back; 5. the home registers; 6. the scratch bytes put back (no thread
 *      runs there any more). */
#include "run/run_heal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#define BIT(sig) (1ull << ((sig) - 1))

uint64_t run_heal_sync_signals(void)
{
    return BIT(SIGSEGV) | BIT(SIGBUS) | BIT(SIGILL) | BIT(SIGFPE) | BIT(SIGTRAP) | BIT(SIGSYS);
}

int run_heal_begin(struct run_heal *h, pid_t tid, uint64_t at, const uint8_t *pristine,
                   size_t room, struct run_trace_signals *taken, char *why, size_t whylen)
{
    memset(h, 0, sizeof *h);
    h->tid = tid, h->at = at, h->taken = taken;
    int e = arch_inject_get_regs(tid, &h->saved);
    if (e) {
        snprintf(why, whylen, "cannot read the registers: %s", strerror(e));
        return e;
    }
    if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof h->mask, &h->mask) != 0) {
        e = errno;
        snprintf(why, whylen, "cannot read the signal mask: %s", strerror(e));
        return e;
    }
    arch_inject_home_regs(&h->home, &h->saved);
    uint8_t stub[RUN_HEAL_ROOM];
    size_t off = 0;
    h->len = arch_inject_heal_stub(stub, room < sizeof stub ? room : sizeof stub, at, &h->home,
                                   h->mask, &off);
    if (h->len == 0) {
        snprintf(why, whylen, "its vDSO has no room for the injected step (%zu bytes past its "
                 "ELF content)", room);
        return ENOSPC;
    }
    h->step_pc = at + off;
    memcpy(h->pristine, pristine, h->len);
    if ((e = run_trace_write(tid, at, stub, h->len))) {
        snprintf(why, whylen, "cannot write into its vDSO through /proc/%d/mem: %s (a kernel in "
                 "lockdown mode, or an LSM, may forbid it)", (int)tid, strerror(e));
        run_trace_write(tid, at, h->pristine, h->len);
        return e;
    }
    h->armed = true;
    return 0;
}

/* Whether a signal-delivery stop is a fault of the step: a synchronous signal the kernel
 * raised (si_code > 0) while the thread was at the stub. */
static bool step_faulted(const struct run_heal *h, const siginfo_t *si)
{
    if (si->si_code <= 0 || !(run_heal_sync_signals() & BIT(si->si_signo)))
        return false;
    struct arch_regs r;
    if (arch_inject_get_regs(h->tid, &r))
        return true;
    uint64_t pc = arch_inject_pc(&r);
    return pc >= h->at && pc < h->at + h->len + 16;
}

int run_heal_syscall(struct run_heal *h, long nr, const long args[6], long *ret, char *why,
                     size_t whylen)
{
    struct arch_regs regs;
    arch_inject_syscall_regs(&regs, &h->saved, h->step_pc, nr, args);
    h->stepped = true;
    int e = arch_inject_set_regs(h->tid, &regs);
    if (e) {
        snprintf(why, whylen, "cannot set the registers: %s", strerror(e));
        return e;
    }
    if (!h->masked) {
        uint64_t block = ~run_heal_sync_signals() | (h->mask & run_heal_sync_signals());
        if (ptrace(PTRACE_SETSIGMASK, h->tid, (void *)sizeof block, &block) != 0) {
            e = errno;
            snprintf(why, whylen, "cannot block the thread's signals: %s", strerror(e));
            return e;
        }
        h->masked = true;
    }
    bool entered = false;
    for (int others = 0;;) {
        if (ptrace(PTRACE_SYSCALL, h->tid, NULL, NULL) != 0) {
            e = errno;
            snprintf(why, whylen, "cannot resume the thread: %s", strerror(e));
            return e;
        }
        int st;
        /* mmap, openat, mprotect, close, munmap: none blocks, but a loaded machine may keep
         * the thread off its CPU a long time. */
        pid_t w = run_trace_wait(h->tid, &st, 30000);
        if (w == 0) {
            snprintf(why, whylen, "the injected syscall did not complete within 30 s");
            return ETIMEDOUT;
        }
        if (w != h->tid || !WIFSTOPPED(st)) {
            snprintf(why, whylen, "the program ended while a syscall was run in it");
            return ESRCH;
        }
        if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
            if (!entered) {
                entered = true;
                continue;
            }
            struct arch_regs after;
            if ((e = arch_inject_get_regs(h->tid, &after))) {
                snprintf(why, whylen, "cannot read the registers after the syscall: %s", strerror(e));
                return e;
            }
            *ret = arch_inject_syscall_result(&after);
            return 0;
        }
        if (++others > 64) {
            snprintf(why, whylen, "the thread stopped %d times without running the syscall", others);
            return EAGAIN;
        }
        siginfo_t si;
        if ((st >> 16) != 0 || ptrace(PTRACE_GETSIGINFO, h->tid, NULL, &si) != 0)
            continue; /* an event or group stop: resumed again */
        if (step_faulted(h, &si)) {
            /* Left at this stop: the detach, with no signal, cancels it. */
            snprintf(why, whylen, "the injected syscall faulted (signal %d, code %d)", si.si_signo,
                     si.si_code);
            return EFAULT;
        }
        /* A signal the mask let through (SIGSTOP, or a synchronous one sent by kill):
         * cancelled by the next resume, given back after the detach. */
        if (h->taken->n == RUN_TRACE_MAX_SIGNALS) {
            snprintf(why, whylen, "more than %d signals were sent to the thread during the attach",
                     h->taken->n);
            return EAGAIN;
        }
        h->taken->info[h->taken->n++] = si;
    }
}

int run_heal_end(struct run_heal *h)
{
    int e = 0;
    /* If the mask cannot be put back, the registers stay at the stub: let go, the thread
     * puts its mask back itself on the stub's way home. */
    if (h->masked && ptrace(PTRACE_SETSIGMASK, h->tid, (void *)sizeof h->mask, &h->mask) != 0)
        e = errno;
    /* After a step: the home registers (the thread stands at a syscall stop, where no
     * restart happens on the way out), or, when it never left its first stop (the mask
     * could not be set), the saved ones, from which the kernel restarts as usual. */
    if (!e && h->stepped)
        e = arch_inject_set_regs(h->tid, h->masked ? &h->home : &h->saved);
    if (!e && h->armed)
        e = run_trace_write(h->tid, h->at, h->pristine, h->len);
    h->masked = h->armed = h->stepped = false;
    return e;
}
