/* SPDX-License-Identifier: MIT */
/* The doctor's rules as a table, and diagnose(), which runs it in one loop and then lets
 * the verdict decide.  A new rule is one function (in its family's rules_*.c), one row
 * here with its guard and the finding ids it can emit, one entry in docs/doctor.md and
 * one fixture (tests/test_doctor.py RULE_CASES or tests/data/roots). */
#include "doctor/rules.h"

#include <string.h>

/* The rules, defined in their families' files. */
rule_fn rule_foreign_kernel, rule_clocksource, rule_override_refused;   /* rules_clocksource.c */
rule_fn rule_cmdline;                                                    /* rules_cmdline.c */
rule_fn rule_tsc_demotions, rule_tsc_unstable_reasons, rule_tsc_warp, rule_tsc_calibration,
    rule_tsc_missing, rule_benign, rule_cpu_flags;                       /* rules_tsc.c */
rule_fn rule_arm_errata;                                                 /* rules_arm64.c */
rule_fn rule_counter_facts, rule_counter_traps;                          /* rules_counter.c */
rule_fn rule_proof, rule_cpu_time_and_coarse;                            /* rules_proof.c */
rule_fn rule_xen_pvclock, rule_riscv_core, rule_platform_default;        /* rules_platform.c */

#define IDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* In this order: the emulation check first (it voids the kernel facts), the clocksource
 * and the command line before the TSC rules that read what they learnt, the live proof
 * after the facts, and the platform rules last, on everything the others learnt. */
const struct rule_row doctor_rules[] = {
    {"foreign-kernel", RG_LIVE, rule_foreign_kernel, IDS("emulated-foreign-kernel")},
    {"clocksource", RG_KERNEL_FACTS, rule_clocksource,
     IDS("clocksource-unknown", "clocksource-vdso", "clocksource-no-vdso", "clocksource-device-read",
         "clocksource-vdso-conditional", "clocksource-counter-may-trap", "clocksource-unknown-name",
         "clocksource-pvclock")},
    {"cmdline", RG_KERNEL_FACTS, rule_cmdline,
     IDS("cmdline-clocksource", "cmdline-tsc-unstable", "cmdline-tsc-reliable", "cmdline-tsc-nowatchdog",
         "cmdline-notsc", "cmdline-nohpet", "cmdline-vdso-off", "cmdline-no-kvmclock-vsyscall",
         "cmdline-no-kvmclock", "cmdline-differs")},
    {"tsc-demotions", RG_KERNEL_FACTS | RG_X86_OR_UNKNOWN, rule_tsc_demotions,
     IDS("tsc-demoted-by-watchdog", "clocksource-demotion-not-blamed")},
    {"tsc-unstable-reasons", RG_KERNEL_FACTS | RG_X86_OR_UNKNOWN, rule_tsc_unstable_reasons,
     IDS("tsc-demoted-by-watchdog", "hyperv-tsc-unstable-benign", "tsc-unsynchronized",
         "tsc-marked-unstable")},
    {"tsc-warp", RG_KERNEL_FACTS | RG_X86_OR_UNKNOWN, rule_tsc_warp, IDS("tsc-warp-at-boot")},
    {"tsc-calibration", RG_KERNEL_FACTS | RG_X86_OR_UNKNOWN, rule_tsc_calibration,
     IDS("tsc-fast-calibration-failed-benign", "tsc-calibration-failed")},
    {"tsc-missing", RG_KERNEL_FACTS | RG_X86, rule_tsc_missing, IDS("tsc-not-registered")},
    {"arm-errata", RG_KERNEL_FACTS, rule_arm_errata,
     IDS("arm-timer-erratum-traps-counter", "arm-erratum-compat-vdso-only")},
    {"override-refused", RG_KERNEL_FACTS, rule_override_refused, IDS("clocksource-override-refused")},
    {"benign", RG_KERNEL_FACTS, rule_benign,
     IDS("tsc-deadline-erratum-benign", "tsc-adjust-benign", "watchdog-skip-benign")},
    {"cpu-flags", RG_KERNEL_FACTS | RG_X86, rule_cpu_flags, IDS("cpu-tsc-flags")},
    {"counter-facts", RG_ANY, rule_counter_facts, IDS("counter-facts")},
    {"proof", RG_ANY, rule_proof, IDS("proof-no-syscalls", "proof-syscalls", "proof-not-counted", "no-vdso")},
    {"counter-traps", RG_ANY, rule_counter_traps, IDS("counter-read-traps")},
    {"cputime", RG_ANY, rule_cpu_time_and_coarse, IDS("cputime-clocks-syscall")},
    {"xen-pvclock", RG_X86, rule_xen_pvclock, IDS("xen-pvclock-likely-syscall")},
    {"riscv-core", RG_ANY, rule_riscv_core, IDS("riscv-core-traps-time-csr")},
    {"platform-default", RG_ANY, rule_platform_default, IDS("platform-default-hint")},
};
const size_t doctor_nrules = sizeof doctor_rules / sizeof doctor_rules[0];

bool rule_guard_holds(unsigned guard, const struct machine *m, const struct judgement *jd)
{
    if ((guard & RG_LIVE) && !jd->live)
        return false;
    /* Under user-mode emulation the kernel facts are the host's: judging them as this
     * architecture's would be confidently wrong. */
    if ((guard & RG_KERNEL_FACTS) && jd->emulated)
        return false;
    if ((guard & RG_X86_OR_UNKNOWN) && m->family[0] && !is(m->family, "x86"))
        return false;
    if ((guard & RG_X86) && !is(m->family, "x86"))
        return false;
    return true;
}

void diagnose(const struct facts *fs, const struct proof *p, struct diagnosis *d)
{
    memset(d, 0, sizeof *d);
    machine_derive(fs, &d->machine);
    struct judgement jd;
    memset(&jd, 0, sizeof jd);
    jd.live = fs->live;
    for (size_t i = 0; i < doctor_nrules; i++)
        if (rule_guard_holds(doctor_rules[i].guard, &d->machine, &jd))
            doctor_rules[i].fn(d, &jd, p);
    verdict_decide(d, &jd, p);
}
