/* SPDX-License-Identifier: MIT */
/* ptrace mechanics for serving a program through its vDSO: the tracee's memory through
 * /proc/PID/mem, its auxiliary vector and vDSO mapping, and one syscall run inside it. */
#ifndef CLOCKSCOPE_RUN_TRACE_H
#define CLOCKSCOPE_RUN_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/mem: the kernel writes with FOLL_FORCE, so a read-only private mapping (the
 * vDSO's text) gets a private copy of the page.  0 or an errno value. */
int run_trace_read(pid_t pid, uint64_t addr, void *buf, size_t len);
int run_trace_write(pid_t pid, uint64_t addr, const void *buf, size_t len);
/* One entry of /proc/PID/auxv (AT_SYSINFO_EHDR: the vDSO): 0, ENOENT when the vector has
 * no such entry, ESRCH when it cannot be read (the process has ended), or an errno value. */
int run_trace_auxv(pid_t pid, unsigned long type, uint64_t *value);
/* The [vdso] mapping from /proc/PID/maps. */
bool run_trace_vdso_range(pid_t pid, uint64_t *start, uint64_t *end);
/* waitpid(pid, st, __WALL), but giving up after timeout_ms (a thread that never stops:
 * run says so rather than hang).  pid, or 0 on timeout, or -1 with errno. */
pid_t run_trace_wait(pid_t pid, int *st, int timeout_ms);
/* A live thread of process pid, for /proc/TID/{auxv,maps,mem} and the injected syscalls:
 * pid itself unless its main thread has ended (pthread_exit: a zombie whose memory,
 * auxiliary vector and maps read empty while the other threads run on), else the first
 * other thread that is not a zombie; 0 if none. */
pid_t run_trace_live_thread(pid_t pid);
/* Whether thread tid of pid has ended (a zombie: ptrace refuses it, and it needs no stop). */
bool run_trace_thread_is_zombie(pid_t pid, pid_t tid);
/* A thread's state letter and name from /proc/PID/task/TID/stat, for messages. */
void run_trace_thread_state(pid_t pid, pid_t tid, char *out, size_t len);
/* Signals a stopped thread dequeued while syscalls were run in it: each single step goes
 * back to user mode through the signal code, which takes the next pending signal first,
 * and the step that must run the syscall cannot deliver it.  Kept, with their siginfo, to
 * be given back at the end (run_trace_give_back): none is lost. */
#define RUN_TRACE_MAX_SIGNALS 256
struct run_trace_signals {
    bool stepped; /* a step ran: the thread now stands at the step's SIGTRAP */
    int n;
    siginfo_t info[RUN_TRACE_MAX_SIGNALS];
};
/* Runs syscall nr(args) in the stopped tracee, whose syscall instruction the caller has put
 * at pc: registers saved, set, single-stepped until the step's own SIGTRAP, result read,
 * registers restored (orig_rax included: a syscall it was stopped in is restarted as the
 * kernel would have).  Signals dequeued meanwhile go to *taken.  0 and the syscall's return
 * value in *ret, or an errno value (why says what failed). */
int run_trace_syscall(pid_t pid, uint64_t pc, long nr, const long args[6], long *ret,
                      struct run_trace_signals *taken, char *why, size_t whylen);
/* Detaches tid, which is in a signal-delivery stop (its own, or the SIGTRAP of the last
 * step) or another ptrace stop, and gives back the signals in *taken: the first through
 * the detach itself with its siginfo (PTRACE_SETSIGINFO: a fault keeps its address), the
 * others queued again (rt_tgsigqueueinfo where the kernel allows their si_code, else tgkill).
 * The caller must be its tracer. */
void run_trace_detach_giving_back(pid_t pid, pid_t tid, struct run_trace_signals *taken);

#endif
