/* SPDX-License-Identifier: MIT */
/* The injected syscalls of run -p, safe against run's death at any instant (docs/run.md,
 * "What live serving guarantees").  The syscall runs from a stub in bytes of the tracee's
 * vDSO that never execute (arch_inject_heal_stub): a thread let go in the middle of a step,
 * because its tracer was killed, finishes the step, puts back its signal mask and registers
 * and jumps back to where it was.  The thread is stopped at the syscall's entry and exit
 * (PTRACE_SYSCALL with PTRACE_O_TRACESYSGOOD), never at a signal: a tracee let go at a
 * syscall stop takes no signal, where one let go at a single step's SIGTRAP dies of it.
 * Its signals are blocked while it is in the tracer's hands (PTRACE_SETSIGMASK), except
 * the synchronous ones (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS): a fault in a step
 * is seen as a signal the tracer cancels, and the kernel, which resets the action of a
 * blocked signal it forces, finds them as the program left them. */
#ifndef CLOCKSCOPE_RUN_HEAL_H
#define CLOCKSCOPE_RUN_HEAL_H

#include "arch/inject.h"
#include "run/run_trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RUN_HEAL_ROOM 256 /* the stub's bytes at most */

struct run_heal {
    pid_t tid;
    uint64_t at;                    /* the stub's address: scratch bytes of the vDSO */
    size_t len;                     /* the stub's length */
    uint8_t pristine[RUN_HEAL_ROOM]; /* those bytes as they were */
    uint64_t step_pc;
    struct arch_regs saved, home;
    uint64_t mask;                  /* the thread's signal mask */
    bool stepped;                   /* the registers were set for a step */
    bool masked;                    /* PTRACE_SETSIGMASK done */
    bool armed;                     /* the stub is written */
    struct run_trace_signals *taken; /* asynchronous signals taken meanwhile, to give back */
};

/* Signals a stopped tracee may be left to dequeue during the steps: the synchronous ones,
 * which a fault in a step raises. */
uint64_t run_heal_sync_signals(void);

/* Reads tid's registers and mask and writes the stub at `at` (room bytes of the vDSO that
 * never execute; run_heal_end writes `pristine` back there: what a pristine image holds,
 * whatever a run killed mid-attach left).  tid must be in a ptrace stop that is not a
 * signal-delivery stop.  0 or an errno value with why. */
int run_heal_begin(struct run_heal *h, pid_t tid, uint64_t at, const uint8_t *pristine,
                   size_t room, struct run_trace_signals *taken, char *why, size_t whylen);
/* Runs nr(args) in the thread from the stub; 0 and its return value in *ret, or an errno
 * value with why (EFAULT: the step faulted; the signal is cancelled). */
int run_heal_syscall(struct run_heal *h, long nr, const long args[6], long *ret, char *why,
                     size_t whylen);
/* The thread back as it was, in this order: its mask, then its registers (the home ones:
 * a syscall it was interrupted in restarted), then the stub's bytes.  It stays stopped for
 * the detach.  0 or an errno value. */
int run_heal_end(struct run_heal *h);

#endif
