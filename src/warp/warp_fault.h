/* SPDX-License-Identifier: MIT */
/* Fault injection for `clockscope warp`: makes the clocks warp reads go wrong on cue, so
 * that the command's whole path (collector, analysis, judgement, exit status, JSON) can be
 * tested on a machine whose clocks are healthy (docs/warp.md, "Fault injection").
 *
 *   CLOCKSCOPE_WARP_FAULT=behind:CPU:N     reads on CPU number CPU run N units behind
 *                                          (a counter offset between CPUs)
 *   CLOCKSCOPE_WARP_FAULT=back:N:EVERY     every EVERY-th read of each thread is N units
 *                                          early (a clock that steps back on one CPU)
 *   CLOCKSCOPE_WARP_FAULT=stall:AFTER      the clock stops AFTER units after its first read
 *   CLOCKSCOPE_WARP_FAULT=jump:N:AFTER     the clock jumps N units ahead AFTER units after
 *                                          its first read
 *
 * Units are the method's (ns or ticks).  The fault applies to every method warp reads
 * (choose them with --only). */
#ifndef CLOCKSCOPE_WARP_FAULT_H
#define CLOCKSCOPE_WARP_FAULT_H

#include "measure/method.h"
#include "common/environment.h"

#include <stdbool.h>
#include <stddef.h>

#define WARP_FAULT_ENV ENV_WARP_FAULT

enum warp_fault_kind { WARP_FAULT_NONE, WARP_FAULT_BEHIND, WARP_FAULT_BACK, WARP_FAULT_STALL,
                       WARP_FAULT_JUMP };

struct warp_fault {
    enum warp_fault_kind kind;
    int cpu;          /* behind */
    uint64_t amount;  /* behind, back, jump: units */
    uint64_t every;   /* back: reads */
    uint64_t after;   /* stall, jump: units after the first read */
};

/* Parses a spec as above; false with err filled when malformed. */
bool warp_fault_parse(const char *spec, struct warp_fault *f, char *why, size_t whylen);

/* Makes every method of the list with a read function read through the fault. */
void warp_fault_apply(const struct warp_fault *f, struct method_list *ml);

#endif
