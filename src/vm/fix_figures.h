/* SPDX-License-Identifier: MIT */
/* vm --apply-fix's before and after figures: read from the guest doctor's JSON, written
 * as JSON or as a row of the text report. */
#ifndef CLOCKSCOPE_VM_FIX_FIGURES_H
#define CLOCKSCOPE_VM_FIX_FIGURES_H

#include "common/json.h"
#include "common/json_read.h"
#include "common/message.h"

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/* What the doctor measured: the verdict, libc clock_gettime(CLOCK_MONOTONIC)'s cost, and
 * the syscalls 1000 such calls made (its seccomp proof). */
struct fix_figures {
    bool have;
    char verdict[32];
    double ns_per_call;             /* < 0: not measured */
    double syscalls_per_1000_calls; /* < 0: not counted */
    char why[MSG_REASON];           /* when !have */
};

/* The doctor's JSON (schema clockscope.doctor/...) text[0..n) into f, its tree into *root;
 * false (f->why says why, *root NULL) when it is not that. */
bool fix_figures_read(const char *text, size_t n, struct json_node **root, struct fix_figures *f);

/* "key": f as an object, or null when f has no figures. */
void fix_figures_json(struct json *j, const char *key, const struct fix_figures *f);

/* f's row of the text report (verdict, ns per call, syscalls per 1000 calls), or its why,
 * to out. */
void fix_figures_print(FILE *out, const char *label, const struct fix_figures *f);

#endif
