/* SPDX-License-Identifier: MIT */
/* The doctor's rules, by family (one file each: rules_clocksource.c, rules_tsc.c,
 * rules_arm64.c, rules_cmdline.c, rules_counter.c, rules_proof.c, rules_platform.c), run
 * in the order of one table (rule_table.c) by diagnose(); verdict.c then decides from what
 * they learnt.  Rules add findings; the verdict never does.  Each rule reads the machine
 * model (d->machine, facts/machine.h) and the live proof, adds findings, and records what
 * it learnt in the judgement the verdict reads.  Each rule states the kernel behaviour it
 * rests on; docs/doctor.md lists them. */
#ifndef CLOCKSCOPE_RULES_H
#define CLOCKSCOPE_RULES_H

#include "doctor/clocksources.h"
#include "doctor/diagnosis.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool is_tsc(const char *n) { return is(n, "tsc") || is(n, "tsc-early"); }

/* What the rules found out on the way to the verdict. */
struct judgement {
    bool live;                       /* the facts are this machine's, read now */
    bool emulated;                   /* user-mode emulation: the kernel facts are another machine's */
    struct cs_judgement cs;          /* of the current clocksource, when known */
    bool cs_known;
    bool tsc_unusable;               /* x86: the kernel will not (or did not) use the TSC */
    bool tsc_unusable_native;        /* ... shown by a failure of native calibration (no pvclock) */
    bool tsc_later_current;          /* a switch to tsc after every demotion */
    const char *tsc_unusable_why;
    bool cmdline_forces_slow;        /* clocksource=/notsc/tsc=unstable/vdso=0 */
    char forced_cs[64];
    bool riscv_core_traps;           /* the core implements no time CSR (rules_platform.c) */
    bool counter_may_trap;           /* the vDSO reads a counter that may trap (riscv) */
    bool counter_traps;              /* live: a counter read was timed as a trap */
    char trap_counter[24];           /* ... which counter ("rdtime") */
    double trap_ns;                  /* ... and what one read costs */
};

/* Every rule has this shape; p is the live proof (p->ran false offline, or NULL).  A rule
 * file declares its rules with it ("rule_fn rule_tsc_warp;") before defining them. */
typedef void rule_fn(struct diagnosis *d, struct judgement *jd, const struct proof *p);

/* When a rule applies: the family guard its table row names. */
enum rule_guard {
    RG_ANY = 0,
    RG_LIVE = 1 << 0,         /* only live (the proof and the machine itself) */
    RG_KERNEL_FACTS = 1 << 1, /* not under user-mode emulation (the kernel facts are the host's) */
    RG_X86_OR_UNKNOWN = 1 << 2, /* x86, or an architecture not known (a root without uname) */
    RG_X86 = 1 << 3,          /* x86 only */
};

struct rule_row {
    const char *name;         /* the rule, as docs/doctor.md names its family */
    unsigned guard;           /* enum rule_guard bits, all of which must hold */
    rule_fn *fn;
    const char *const *ids;   /* every finding id the rule can emit, NULL-terminated */
};

/* The table, in the order diagnose() runs it (rule_table.c). */
extern const struct rule_row doctor_rules[];
extern const size_t doctor_nrules;
/* Whether a row's guard holds for this machine. */
bool rule_guard_holds(unsigned guard, const struct machine *m, const struct judgement *jd);

/* The verdict (verdict.c), from what the rules learnt and the proof; adds no finding. */
void verdict_decide(struct diagnosis *d, const struct judgement *jd, const struct proof *p);

/* Shared fixes (rules_fixes.c). */
void coarse_fix(struct finding *f, const struct machine *c, const struct proof *p);
void switch_fix(struct finding *f, const struct machine *c, const char *to);
/* Whether the facts say anything about the clock itself: a current or available clocksource,
 * a clocksource= on the command line, the counter's facts, or a kernel log line about
 * clocks (rules_platform.c).  Without any, a platform's usual clock is a hint, never a
 * verdict: the virtualization and the kernel's version alone do not show what a machine
 * reads. */
bool machine_has_clock_evidence(const struct machine *c);
/* Whether the kernel took the TSC out of use for this boot (it refuses to switch back). */
bool tsc_marked_unstable(const struct machine *c);
void meaning_from_judgement(struct finding *f, const char *before, const struct cs_judgement *j);

/* The rules themselves are declared where they are defined and in rule_table.c, both
 * as `rule_fn NAME;`: the compiler checks each definition against the shape, so the two
 * declarations cannot disagree, and a new rule touches no header. */

/* Pure: whether a counter read of counter_ns traps, on a machine where an empty call costs
 * empty_call_ns, a COARSE clock_gettime coarse_ns and another counter of the core
 * other_counter_ns (0: none readable). */
bool counter_read_traps(double counter_ns, double empty_call_ns, double coarse_ns,
                        double other_counter_ns);

#endif
