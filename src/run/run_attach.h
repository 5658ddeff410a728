/* SPDX-License-Identifier: MIT */
/* `clockscope run -p PID` and `run --undo PID` (docs/run.md, "A running process"): serve a
 * process that is already running by patching its vDSO as at an exec, every thread stopped
 * meanwhile; and put the vDSO's original bytes back. */
#ifndef CLOCKSCOPE_RUN_ATTACH_H
#define CLOCKSCOPE_RUN_ATTACH_H

#include "run/run_mode.h"

#include <stdbool.h>
#include <sys/types.h>

/* Exit status for run: EXIT_OK done, EXIT_FAILED refused (the message says why; the process
 * runs as it did). */
int run_attach(pid_t pid, const struct run_mode *mode, bool verbose, const char *output);
int run_undo(pid_t pid, bool verbose);

#endif
