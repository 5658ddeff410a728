/* SPDX-License-Identifier: MIT */
/* What `clockscope metrics` measures, in-process: the doctor's facts, live proof and verdict
 * (or a facts root's verdict, nothing measured), and optionally a short warp. */
#ifndef CLOCKSCOPE_METRICS_GATHER_H
#define CLOCKSCOPE_METRICS_GATHER_H

#include "common/message.h"
#include "doctor/diagnosis.h"
#include "facts/facts.h"

#include <stdbool.h>
#include <stdint.h>

#define METRICS_WARP_MAX 64

struct metrics_warp_method {
    char id[64];
    uint64_t backward_steps;
    bool must_be_monotonic;
};

struct metrics_run {
    struct facts fs;
    struct proof p;
    struct diagnosis d;
    bool warp_ran;
    int warp_failures;       /* methods whose cross-CPU test could not run */
    int warp_violations;     /* methods that must be monotonic and went backwards */
    int nwarp;
    struct metrics_warp_method warp[METRICS_WARP_MAX];
    double warp_seconds;
    double duration_s;       /* the whole run */
    bool success;
    char why[MSG_WITH_PATH]; /* when !success */
};

/* root: a facts root (NULL: this machine, with the proof).  warp_seconds 0: no warp.
 * Returns false (why filled) when the root cannot be read: bad usage. */
bool metrics_gather(const char *root, double warp_seconds, struct metrics_run *r);
void metrics_run_free(struct metrics_run *r);

#endif
