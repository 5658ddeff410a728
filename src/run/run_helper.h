/* SPDX-License-Identifier: MIT */
/* What the helper of `clockscope run -- COMMAND` (run_served.c) and of `run -p PID`
 * (run_attach.c) share: the data page it serves from, its start as a grandchild of run,
 * its quiet signals and detached output, and its report of what it serves. */
#ifndef CLOCKSCOPE_RUN_HELPER_H
#define CLOCKSCOPE_RUN_HELPER_H

#include "run/run_reader_abi.h"

#include <stdbool.h>
#include <sys/types.h>

/* A memfd of RUN_MEMFD_SIZE bytes made with memfd_create's flags, or -1 with errno
 * (nothing left open). */
int run_helper_memfd(unsigned flags);

/* The header page of that memfd, mapped shared; MAP_FAILED with errno. */
struct run_page_header *run_helper_map(int memfd);

/* Forks the helper as a grandchild, so that it is nobody's child the program could reap or
 * wait for and it outlives run as the refresher: the child forks it and exits, this process
 * waits for the child.  The helper runs fn(ctx), which does not return.  Output is flushed
 * first.  The child's PID (reaped), or -1 with errno when the fork failed. */
pid_t run_helper_spawn(void (*fn)(void *ctx), void *ctx);

/* The terminal's signals and SIGPIPE ignored: the program decides what a ^C means, the
 * end of the program (or of the pipe to run) ends the helper. */
void run_helper_quiet_signals(void);

/* Standard input and output (and with also_stderr standard error) on /dev/null: nothing of
 * run's caller stays open in the helper. */
void run_helper_drop_stdio(bool also_stderr);

/* Yama's kernel.yama.ptrace_scope, or -1 where there is none. */
int run_helper_yama_scope(void);

/* --verbose once the vDSO is patched: "clockscope run: WHO: HOW; what is served (refresher:
 * pid N)".  served: whether fastclock's line answers any clock (count mode: unused). */
void run_helper_say_serving(const char *who, const char *how, bool count, bool served);

#endif
