/* SPDX-License-Identifier: MIT */
/* Verdicts from what the platform offers, where the clocksource in use is not known or
 * depends on the platform: the TSC's fallback by hypervisor, riscv's time CSR by core.
 * Each says whether it is decided or inferred, and names the missing fact.  The findings
 * these verdicts rest on come from the rules (rules_platform.c). */
#include "doctor/verdict_platform.h"

#include "doctor/findings.h"

#include <stdio.h>
#include <string.h>

/* The TSC is lost and the current clocksource is not known: the next clocksource decides,
 * and which exists depends on the platform (tsc_fallback, clocksources.c). */
void verdict_tsc_lost_by_platform(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->machine;
    struct tsc_fallback_answer a;
    tsc_fallback(c, jd->tsc_unusable_native, &a);
    switch (a.kind) {
    case FB_NATIVE:
        set_verdict(d, V_SLOW, 0, "%s, and %s", jd->tsc_unusable_why,
                    jd->tsc_unusable_native ? "no paravirtual clock is in use: the "
                    "fallback (HPET, ACPI PM timer) is syscall-only"
                                            : "on bare metal the fallback (HPET, ACPI "
                                              "PM timer) is syscall-only");
        return;
    case FB_NONE_USABLE:
        set_verdict(d, V_SLOW, 0, "%s, and every other available clocksource (%s) "
                    "is syscall-only", jd->tsc_unusable_why, c->available_cs);
        return;
    case FB_ACCUSER:
        set_verdict(d, V_SLOW, 0, "%s, and the watchdog that accused it ('%s', the best-rated "
                    "clocksource left, which the kernel falls back to) has no vDSO path",
                    jd->tsc_unusable_why, a.accuser);
        return;
    case FB_KVM_NO_STABLE_BIT:
        set_verdict(d, V_SLOW, 0, "%s, and the fallback kvm-clock has no vDSO path: the "
                    "hypervisor does not offer its stable bit", jd->tsc_unusable_why);
        return;
    case FB_PLATFORM_UNKNOWN:
        set_inferred(d, V_SLOW, 0, "the hypervisor (a KVM or Hyper-V guest has a paravirtual "
                     "clock the vDSO reads)", "%s; on bare metal and most hypervisors the "
                     "fallback (HPET, ACPI PM timer) is syscall-only", jd->tsc_unusable_why);
        return;
    case FB_KVM_CLOCK:
        set_inferred(d, V_OK, 1, "whether the host sets kvm-clock's stable bit "
                     "(clockscope/cpu kvm_clock_stable_bit from a live `clockscope facts --save`)",
                     "%s, but a %s guest falls back to kvm-clock, which the vDSO reads when the "
                     "host sets its stable bit (hosts on a stable TSC do)", jd->tsc_unusable_why,
                     a.platform);
        return;
    case FB_HYPERV_TSC_PAGE:
        set_inferred(d, V_OK, 1, "the current clocksource (a host too old for the TSC page "
                     "leaves only the MSR, which is syscall-only)", "%s, but a Hyper-V guest "
                     "falls back to the Hyper-V TSC page, which the vDSO reads",
                     jd->tsc_unusable_why);
        return;
    case FB_XEN:
        set_inferred(d, V_SLOW, 0, "whether Xen places a vcpu time page with the stable bit for "
                     "user space", "%s; a Xen guest falls back to the xen clocksource, which the "
                     "vDSO reads only with a stable vcpu time page (EC2's Xen hosts commonly do "
                     "not give one)", jd->tsc_unusable_why);
        return;
    case FB_NO_PVCLOCK:
        break;
    }
    set_verdict(d, V_SLOW, 0, "%s, and Linux has no paravirtual clocksource for %s: the "
                "fallback (HPET, ACPI PM timer) is syscall-only", jd->tsc_unusable_why, a.platform);
}

/* Whether an ISA extension is in a riscv isa string ("rv64imafdch_zicntr_sstc"): an
 * underscore-separated component. */
static bool riscv_has_extension(const char *isa, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = isa; (p = strstr(p, ext)); p += n)
        if (p > isa && p[-1] == '_' && (p[n] == '\0' || p[n] == '_' || p[n] == ' ' || p[n] == '\n'))
            return true;
    return false;
}

/* riscv >= 5.8: the vDSO reads the time CSR; whether that traps is the core's.  Cores
 * known to implement none (rule_riscv_core, rules_platform.c) trap on every read.  A core
 * with Sstc compares stimecmp against time in hardware, so it implements the time CSR; a
 * KVM guest reads it in VS-mode through htimedelta on a host with the H extension.  Other
 * cores differ (the openEuler report's board traps): the facts do not decide it and no
 * verdict is more likely. */
void verdict_riscv_time_csr(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->machine;
    if (jd->riscv_core_traps) {
        set_verdict(d, V_SLOW, 1, "riscv core %s implements no time CSR: every rdtime in the vDSO "
                    "traps to M-mode firmware (OpenSBI), microseconds per clock_gettime",
                    c->cpu.hardware);
        return;
    }
    if (riscv_has_extension(c->cpu.flags, "sstc")) {
        set_inferred(d, V_OK, 1, "a live timing of rdtime (`clockscope doctor` on the machine)",
                     "the core has Sstc, so it implements the time CSR the vDSO reads");
        return;
    }
    if (is(c->virt, "kvm")) {
        set_inferred(d, V_OK, 1, "a live timing of rdtime (`clockscope doctor` on the machine)",
                     "a riscv KVM guest reads the time CSR in VS-mode without a trap, on a host "
                     "with the H extension");
        return;
    }
    set_verdict(d, V_UNKNOWN, c->current_cs[0] ? 1 : -1, "the vDSO reads the time CSR, and whether "
                "this core implements it or traps to firmware is not in the facts (not known: "
                "the core, /proc/cpuinfo's uarch and isa, or a live timing of rdtime)");
}

