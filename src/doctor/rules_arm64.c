/* SPDX-License-Identifier: MIT */
/* The arm64 generic timer: erratum workarounds that trap CNTVCT and turn the vDSO
 * counter off, and the one that only affects 32-bit processes. */
#include "doctor/rules.h"

#include "doctor/findings.h"

void rule_arm_errata(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd;
    const struct logscan *s = &d->machine.log;
    if (s->arm_errata.n) {
        struct finding *f = finding_add(d, "arm-timer-erratum-traps-counter", SEV_WARNING,
                                        "Timer erratum workaround: CNTVCT reads trap, the vDSO "
                                        "counter is off for every process");
        for (int i = 0; i < s->arm_errata.n && i < 4; i++)
            finding_log_evidence(f, &s->arm_errata.e[i]);
        finding_meaning(f, "Some arm64 timers are unreliable (Freescale/NXP A008585, HiSilicon "
                        "161010101, Cortex-A73 858921, Allwinner A64 UNKNOWN1). The workaround "
                        "in drivers/clocksource/arm_arch_timer.c reads the counter with an "
                        "out-of-line accessor, traps user-space CNTVCT reads to the kernel "
                        "(\"Trapping CNTVCT access\") and sets the clocksource's vDSO mode to "
                        "NONE: clock_gettime is a syscall for the whole system, even though the "
                        "clocksource is arch_sys_counter.");
        finding_fix(f, "none for correctness: the workaround is the fix; turning it off "
                    "(e.g. editing the device tree's erratum property) risks time jumping");
        coarse_fix(f, &d->machine, p);
        finding_action_firmware(f, "a board or SoC without the timer erratum; the workaround "
                                "itself is the kernel's correct answer", "none");
    }
    for (int i = 0; i < s->arm_compat.n && i < 1; i++) {
        struct finding *f = finding_add(d, "arm-erratum-compat-vdso-only", SEV_INFO,
                                        "ARM erratum 1418040 only affects 32-bit processes");
        finding_log_evidence(f, &s->arm_compat.e[i]);
        finding_meaning(f, "Its workaround disables the 32-bit compat vDSO "
                        "(VDSO_CLOCKMODE_ARCHTIMER_NOCOMPAT); 64-bit processes keep the fast path.");
    }
}
