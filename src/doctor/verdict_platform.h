/* SPDX-License-Identifier: MIT */
/* The verdict's platform knowledge (verdict_platform.c): where the current clocksource is
 * not known or depends on the platform.  Called by verdict.c only; adds no finding. */
#ifndef CLOCKSCOPE_VERDICT_PLATFORM_H
#define CLOCKSCOPE_VERDICT_PLATFORM_H

#include "doctor/rules.h"

/* x86: the TSC is lost and the current clocksource not known. */
void verdict_tsc_lost_by_platform(struct diagnosis *d, const struct judgement *jd);
/* riscv >= 5.8: whether the vDSO's time CSR read traps, from the core. */
void verdict_riscv_time_csr(struct diagnosis *d, const struct judgement *jd);

#endif
