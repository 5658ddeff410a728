/* SPDX-License-Identifier: MIT */
/* Verdicts from what the platform offers, where the clocksource in use is not known or
 * depends on the platform: the TSC's fallback by hypervisor, Xen's pvclock, riscv's time
 * CSR by core.  Each says whether it is decided or inferred, and names the missing fact. */
#include "doctor/verdict_platform.h"

#include "doctor/findings.h"

#include <stdio.h>
#include <string.h>

/* A Xen guest most likely pays a syscall per call: the pvclock finding becomes a warning
 * (its fixes apply), or one is added when the clocksource itself is not known. */
void xen_warning(struct diagnosis *d)
{
    for (int i = 0; i < d->nfindings; i++)
        if (!strcmp(d->findings[i].id, "clocksource-pvclock")) {
            d->findings[i].severity = SEV_WARNING;
            return;
        }
    struct finding *f = finding_add(d, "xen-pvclock-likely-syscall", SEV_WARNING,
                                    "A Xen guest: the xen clocksource most likely makes a syscall "
                                    "per call");
    finding_evidence(f, "virtualization: %s (from %s)", d->ctx.virt, d->ctx.virt_source);
    finding_meaning(f, "Linux prefers the xen clocksource in Xen guests; its vDSO path needs a "
                    "vcpu time page with PVCLOCK_TSC_STABLE_BIT (Linux >= 4.11), which many Xen "
                    "hosts (EC2's) do not give.");
    finding_fix(f, "check `cat /sys/devices/system/clocksource/clocksource0/current_clocksource`; "
                "with xen and tsc available: clocksource=tsc tsc=reliable (risk: trusts the "
                "host's TSC), or a KVM-based instance type");
    coarse_fix(f, NULL);
}

/* The TSC is lost and the current clocksource is not known: the next clocksource decides,
 * and which exists depends on the platform.  Linux registers a paravirtual clocksource
 * only under KVM (kvm-clock), Xen (xen) and Hyper-V (hyperv_clocksource_tsc_page); bare
 * metal and every other hypervisor (VMware, QEMU's TCG, bhyve, ...) leave the HPET or the
 * ACPI PM timer, which the vDSO cannot read.  The clocksource watchdog is the best-rated
 * clocksource that needs no verification, which is also the one the kernel falls back to:
 * a syscall-only accuser names the fallback. */
void verdict_tsc_lost_by_platform(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->ctx;
    const char *accuser = "";
    for (int i = 0; i < c->log.demotions.n; i++)
        if (c->log.demotions.e[i].watchdog[0])
            accuser = c->log.demotions.e[i].watchdog;
    if (accuser[0]) {
        struct cs_judgement j;
        cs_judge(c, accuser, &j);
        if (j.cls == CS_SYSCALL || j.cls == CS_DEVICE_READ) {
            set_verdict(d, V_SLOW, 0, "%s, and the watchdog that accused it ('%s', the best-rated "
                        "clocksource left, which the kernel falls back to) has no vDSO path",
                        jd->tsc_unusable_why, accuser);
            return;
        }
    }
    /* A paravirtual clocksource the kernel registered names the platform better than any
     * detection: it exists only there. */
    const char *platform = c->virt;
    if (machine_cs_available(c, "kvm-clock"))
        platform = "kvm";
    else if (machine_cs_available(c, "hyperv_clocksource_tsc_page"))
        platform = "microsoft";
    else if (machine_cs_available(c, "xen"))
        platform = "xen";
    if (is(platform, "kvm") && c->kvm_stable_bit == 0) {
        set_verdict(d, V_SLOW, 0, "%s, and the fallback kvm-clock has no vDSO path: the "
                    "hypervisor does not offer its stable bit", jd->tsc_unusable_why);
        return;
    }
    if (!platform[0] || is(platform, "vm")) {
        set_inferred(d, V_SLOW, 0, "the hypervisor (a KVM or Hyper-V guest has a paravirtual "
                     "clock the vDSO reads)", "%s; on bare metal and most hypervisors the "
                     "fallback (HPET, ACPI PM timer) is syscall-only", jd->tsc_unusable_why);
        return;
    }
    if (is(platform, "kvm") || is(platform, "oracle")) { /* VirtualBox: KVM's interface */
        set_inferred(d, V_OK, 1, "whether the host sets kvm-clock's stable bit "
                     "(clockscope/cpu kvm_clock_stable_bit from a live `clockscope facts --save`)",
                     "%s, but a %s guest falls back to kvm-clock, which the vDSO reads when the "
                     "host sets its stable bit (hosts on a stable TSC do)", jd->tsc_unusable_why,
                     platform);
        return;
    }
    if (is(platform, "microsoft")) {
        set_inferred(d, V_OK, 1, "the current clocksource (a host too old for the TSC page "
                     "leaves only the MSR, which is syscall-only)", "%s, but a Hyper-V guest "
                     "falls back to the Hyper-V TSC page, which the vDSO reads",
                     jd->tsc_unusable_why);
        return;
    }
    if (is(platform, "xen")) {
        xen_warning(d);
        set_inferred(d, V_SLOW, 0, "whether Xen places a vcpu time page with the stable bit for "
                     "user space", "%s; a Xen guest falls back to the xen clocksource, which the "
                     "vDSO reads only with a stable vcpu time page (EC2's Xen hosts commonly do "
                     "not give one)", jd->tsc_unusable_why);
        return;
    }
    set_verdict(d, V_SLOW, 0, "%s, and Linux has no paravirtual clocksource for %s: the "
                "fallback (HPET, ACPI PM timer) is syscall-only", jd->tsc_unusable_why, platform);
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

/* riscv >= 5.8: the vDSO reads the time CSR; whether that traps is the core's.  SiFive's
 * U54 and U74 (FU540, FU740, StarFive JH7100/JH7110) implement no time CSR: every read
 * traps to M-mode (their manuals).  A core with Sstc compares stimecmp against time in
 * hardware, so it implements the time CSR; a KVM guest reads it in VS-mode through
 * htimedelta on a host with the H extension.  Other cores differ (the board of the RISC-V
 * clock_gettime report traps): the facts do not decide it and no verdict is more likely. */
void verdict_riscv_time_csr(struct diagnosis *d)
{
    const struct machine *c = &d->ctx;
    const char *hw = c->cpu.hardware;
    if (strstr(hw, "sifive,u54") || strstr(hw, "sifive,u74")) {
        struct finding *f = finding_add(d, "riscv-core-traps-time-csr", SEV_WARNING,
                                        "The core (%s) has no time CSR: rdtime traps to firmware", hw);
        finding_evidence(f, "/proc/cpuinfo uarch: %s", hw);
        finding_meaning(f, "SiFive's U54 and U74 cores (FU540, FU740, StarFive JH7100/JH7110) do "
                        "not implement the time CSR; each read raises an illegal-instruction trap "
                        "that M-mode firmware emulates from the CLINT's mtime. The vDSO's "
                        "clock_gettime reads it on every call.");
        finding_fix(f, "`clockscope doctor` on the board times the trap; no kernel setting avoids "
                    "it (the counter is the only vDSO time source on riscv)");
        coarse_fix(f, NULL);
        set_verdict(d, V_SLOW, 1, "riscv core %s implements no time CSR: every rdtime in the vDSO "
                    "traps to M-mode firmware (OpenSBI), microseconds per clock_gettime", hw);
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

