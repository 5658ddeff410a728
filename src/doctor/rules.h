/* SPDX-License-Identifier: MIT */
/* The doctor's rules, by family (one file each: rules_clocksource.c, rules_tsc.c,
 * rules_arm64.c, rules_cmdline.c, rules_counter.c, rules_proof.c; verdict.c runs them and
 * decides).  Each rule reads the machine model (d->ctx, facts/machine.h) and the live proof,
 * adds findings, and records what it learnt in the judgement the verdict reads.  Each
 * rule states the kernel behaviour it rests on; docs/doctor.md lists them. */
#ifndef CLOCKSCOPE_RULES_H
#define CLOCKSCOPE_RULES_H

#include "doctor/clocksources.h"
#include "doctor/diagnosis.h"

#include <stdbool.h>
#include <string.h>

static inline bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool is_tsc(const char *n) { return is(n, "tsc") || is(n, "tsc-early"); }

/* What the rules found out on the way to the verdict. */
struct judgement {
    struct cs_judgement cs;          /* of the current clocksource, when known */
    bool cs_known;
    bool tsc_unusable;               /* x86: the kernel will not (or did not) use the TSC */
    bool tsc_unusable_native;        /* ... shown by a failure of native calibration (no pvclock) */
    bool tsc_later_current;          /* a switch to tsc after every demotion */
    const char *tsc_unusable_why;
    bool cmdline_forces_slow;        /* clocksource=/notsc/tsc=unstable/vdso=0 */
    char forced_cs[64];
};

/* Shared fixes (rules_fixes.c). */
void coarse_fix(struct finding *f, const struct proof *p);
void switch_fix(struct finding *f, const char *to);
void meaning_from_judgement(struct finding *f, const char *before, const struct cs_judgement *j);

/* The families, in the order diagnose() runs them. */
void rule_clocksource(struct diagnosis *d, struct judgement *jd, const struct proof *p);
void rule_cmdline(struct diagnosis *d, struct judgement *jd);
void rule_tsc_demotions(struct diagnosis *d, struct judgement *jd, const struct proof *p);
void rule_tsc_unstable_reasons(struct diagnosis *d, struct judgement *jd, const struct proof *p);
void rule_tsc_warp(struct diagnosis *d, struct judgement *jd, const struct proof *p);
void rule_tsc_calibration(struct diagnosis *d, struct judgement *jd, const struct proof *p);
void rule_tsc_missing(struct diagnosis *d, struct judgement *jd);
void rule_arm_errata(struct diagnosis *d, const struct proof *p);
void rule_override_refused(struct diagnosis *d);
void rule_benign(struct diagnosis *d);
void rule_cpu_flags(struct diagnosis *d);
void rule_counter_facts(struct diagnosis *d);
void rule_proof(struct diagnosis *d, const struct proof *p);
void rule_counter_traps(struct diagnosis *d, const struct proof *p);
void rule_cpu_time_and_coarse(struct diagnosis *d, const struct proof *p);
/* Pure: whether a counter read of counter_ns traps, on a machine where an empty call costs
 * empty_call_ns, a COARSE clock_gettime coarse_ns and another counter of the core
 * other_counter_ns (0: none readable). */
bool counter_read_traps(double counter_ns, double empty_call_ns, double coarse_ns,
                        double other_counter_ns);
/* A live run under user-mode emulation (the kernel is another architecture's). */
bool rule_foreign_kernel(struct diagnosis *d);

#endif
