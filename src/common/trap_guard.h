/* SPDX-License-Identifier: MIT */
/* Runs one counter read with SIGILL/SIGSEGV caught, so that a read the kernel or firmware
 * does not permit (riscv rdcycle with perf_user_access=1, for instance) is reported instead
 * of killing the process.  Not thread-safe: call only from one thread at probe time. */
#ifndef CLOCKSCOPE_TRAP_GUARD_H
#define CLOCKSCOPE_TRAP_GUARD_H

#include <stdbool.h>
#include <stdint.h>

/* Returns true if read() completed; otherwise *signo is the signal it raised. */
bool trap_guard_read(uint64_t (*read)(void), uint64_t *value, int *signo);

#endif
