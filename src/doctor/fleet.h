/* SPDX-License-Identifier: MIT */
/* The doctor over many facts roots (`doctor --root A --root B ...`, `--roots DIR`): one
 * result per root, a bad root gives its own error and the others still run, then a
 * summary.  Roots may be sosreport archives (facts/archive.h). */
#ifndef CLOCKSCOPE_DOCTOR_FLEET_H
#define CLOCKSCOPE_DOCTOR_FLEET_H

#include "doctor/diagnosis.h"
#include "facts/facts.h"

#include <stdbool.h>
#include <stddef.h>

/* Runs the doctor on every root (and every directory or archive in roots_dir, when not
 * NULL, in name order), printing JSON lines (json) or one text line per root, then the
 * summary.  Returns the exit status: EXIT_OK every root judged, EXIT_PARTIAL some root could
 * not be read; a roots_dir that cannot be listed is bad usage (EXIT_USAGE, usage_error). */
int fleet_run(const char *const *roots, int nroots, const char *roots_dir, bool json);

#endif
