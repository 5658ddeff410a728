/* SPDX-License-Identifier: MIT */
/* CLOCKSCOPE_LADDER_FAULT: faults on cue, so that the tests can check that a rung that
 * deadlocks or crashes is cut off and reported, never hangs the run (docs/ladder.md).
 *
 *   CLOCKSCOPE_LADDER_FAULT=hang:GLOB[,crash:GLOB...]
 *
 * hang: the rungs whose id matches GLOB deadlock for real (a round trip's partner takes
 * the request and never answers; a call's runner waits forever).  crash: their measuring
 * process dies of SIGSEGV.  The sweep's items are `sweep.<mode>.<clients>`, the matrix's
 * cells `cacheline.<from>.<to>`. */
#ifndef CLOCKSCOPE_LADDER_FAULT_H
#define CLOCKSCOPE_LADDER_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#define LADDER_FAULTS_MAX 8
#define LADDER_FAULT_GLOB_MAX 64

enum ladder_fault_kind { FAULT_NONE, FAULT_HANG, FAULT_CRASH };

struct ladder_faults {
    int count;
    enum ladder_fault_kind kind[LADDER_FAULTS_MAX];
    char glob[LADDER_FAULTS_MAX][LADDER_FAULT_GLOB_MAX];
};

/* Parses the variable's value (buffer + length; not NUL-terminated).  false: err says
 * what is wrong. */
bool ladder_faults_parse(const char *s, size_t len, struct ladder_faults *out, char *why,
                         size_t whylen);
/* The fault for this id (the first matching), or FAULT_NONE. */
enum ladder_fault_kind ladder_fault_for(const struct ladder_faults *f, const char *id);

#endif
