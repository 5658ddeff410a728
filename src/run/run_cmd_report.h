/* SPDX-License-Identifier: MIT */
/* What `clockscope run -- COMMAND` says on stderr before its exec (run_cmd.c decides): why
 * COMMAND cannot run, what the shim or the patched vDSO will not reach, and why. */
#ifndef CLOCKSCOPE_RUN_CMD_REPORT_H
#define CLOCKSCOPE_RUN_CMD_REPORT_H

#include <stdbool.h>

/* The shim (named shim) is at none of the places tried. */
void run_say_no_shim(const char *shim, const char *tried);
/* COMMAND is not found in PATH (not_found), or not executable. */
void run_say_unresolved(const char *cmd, bool not_found);
void run_say_not_regular(const char *target);
/* A static or Go program (kind) that the kernel runs in secure-execution mode (secure:
 * "set-user-ID" ...): its exec is not traced. */
void run_say_secure_traced(const char *target, const char *kind, const char *secure);
/* A dynamic program in secure-execution mode: the loader ignores LD_PRELOAD. */
void run_say_secure_preload(const char *target, const char *secure);
/* --verbose: target is a script, followed into the program it execs or not. */
void run_say_script(const char *target, bool follow);
void run_say_out_of_memory(void);
/* Its vDSO is not patched (why); a dynamic Go program is still served through libc. */
void run_say_unserved(const char *target, const char *kind, const char *why, bool is_static);
void run_say_cannot_execute(const char *target, int err);

#endif
