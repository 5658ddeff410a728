/* SPDX-License-Identifier: MIT */
/* The verdict's platform knowledge (verdict_platform.c) and the two setters it shares with
 * verdict.c. */
#ifndef CLOCKSCOPE_VERDICT_PLATFORM_H
#define CLOCKSCOPE_VERDICT_PLATFORM_H

#include "doctor/rules.h"

/* A decided verdict with its one-sentence reason. */
void set_verdict(struct diagnosis *d, enum verdict v, int fast_path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The most likely verdict where a fact is missing: labelled inferred, the fact named. */
void set_inferred(struct diagnosis *d, enum verdict v, int fast_path, const char *missing,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* x86: the TSC is lost and the current clocksource not known. */
void verdict_tsc_lost_by_platform(struct diagnosis *d, const struct judgement *jd);
/* riscv >= 5.8: whether the vDSO's time CSR read traps, from the core. */
void verdict_riscv_time_csr(struct diagnosis *d);
/* A Xen guest most likely pays a syscall per call: its warning finding. */
void xen_warning(struct diagnosis *d);

#endif
