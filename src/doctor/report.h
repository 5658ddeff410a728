/* SPDX-License-Identifier: MIT */
/* The doctor's output: a terminal screen that leads with the verdict, or JSON
 * (docs/json.md, clockscope.doctor/2). */
#ifndef CLOCKSCOPE_REPORT_H
#define CLOCKSCOPE_REPORT_H

#include "doctor/diagnosis.h"

#include <stdio.h>

void report_text(FILE *out, const struct facts *fs, const struct proof *p,
                 const struct diagnosis *d, bool verbose);
void report_json(FILE *out, const struct facts *fs, const struct proof *p,
                 const struct diagnosis *d, double elapsed_s);
/* The same document on one line (JSON lines), with a "root" field naming the facts root. */
void report_json_line(FILE *out, const char *root, const struct facts *fs,
                      const struct proof *p, const struct diagnosis *d, double elapsed_s);
/* Exit status for a verdict: EXIT_OK, EXIT_SLOW, EXIT_BROKEN, EXIT_UNKNOWN. */
int verdict_exit_status(enum verdict v);

#endif
