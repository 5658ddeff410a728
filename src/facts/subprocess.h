/* Runs a helper program (journalctl, systemd-detect-virt) with a deadline: its stdout is
 * captured, stderr discarded, and a helper that outlives the deadline is killed. */
#ifndef CLOCKSCOPE_SUBPROCESS_H
#define CLOCKSCOPE_SUBPROCESS_H

#include <stdbool.h>
#include <stddef.h>

/* Returns false when the program could not run, failed, or timed out (why says which).
 * *out is malloc'ed (NUL-terminated), at most cap bytes; caller frees. */
bool run_capture(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                 char *why, size_t whylen);
/* Whether an executable of that name is on PATH. */
bool program_on_path(const char *name);

#endif
