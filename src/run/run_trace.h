/* SPDX-License-Identifier: MIT */
/* ptrace mechanics for serving a program through its vDSO: the tracee's memory through
 * /proc/PID/mem, its auxiliary vector and vDSO mapping, and one syscall run inside it. */
#ifndef CLOCKSCOPE_RUN_TRACE_H
#define CLOCKSCOPE_RUN_TRACE_H

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
/* A thread's state letter and name from /proc/PID/task/TID/stat, for messages. */
void run_trace_thread_state(pid_t pid, pid_t tid, char *out, size_t len);
/* Runs syscall nr(args) in the stopped tracee, whose syscall instruction the caller has put
 * at pc: registers saved, set, one single step, result read, registers restored.  A signal
 * that arrives meanwhile is kept in *pending_sig (to be delivered at detach).  0 and the
 * syscall's return value in *ret, or an errno value of ptrace (why says what failed). */
int run_trace_syscall(pid_t pid, uint64_t pc, long nr, const long args[6], long *ret,
                      int *pending_sig, char *why, size_t wl);

#endif
