/* SPDX-License-Identifier: MIT */
/* `clockscope run` for programs the shim cannot reach, static and Go ones (docs/run.md,
 * "Static and Go programs"): a helper process traces this one through its exec, patches
 * the new program's vDSO (run_vpatch.c), detaches, and stays as the refresher of the data
 * page (run_refresher.c) until the program and its children have ended. */
#ifndef CLOCKSCOPE_RUN_SERVED_H
#define CLOCKSCOPE_RUN_SERVED_H

#include "run/run_mode.h"

#include <stdbool.h>

/* The kind run_served_kind() gives a Go program, as one object so that callers compare
 * pointers, not wording. */
extern const char RUN_KIND_GO[];
/* Why the program at path needs its vDSO patched ("statically linked", "a Go program"), or
 * NULL when the shim reaches it. */
const char *run_served_kind(const char *path);

/* Prepares serving path, whose kind is `kind`: on true a helper is attached to this process
 * and the caller must execv the program next (nothing else in between).  On false the
 * program is not served, `why` says why and what would allow it (the caller prints it and
 * runs the program as it is). */
bool run_served_start(const char *path, const char *kind, const struct run_mode *mode,
                      bool verbose, const char *output, char *why, size_t whylen);

#endif
