/* SPDX-License-Identifier: MIT */
/* What a platform makes of an unknown or conditional clocksource, as findings the verdict
 * then rests on: a Xen guest's pvclock (most likely a syscall per call), riscv cores that
 * implement no time CSR (every rdtime traps to firmware), and a platform's usual clock as a
 * hint when no fact speaks of the clock at all. */
#include "doctor/rules.h"

#include "doctor/findings.h"

#include <string.h>

rule_fn rule_xen_pvclock, rule_riscv_core, rule_platform_default;

/* A Xen guest whose clocksource is not known, and whose verdict will rest on the xen
 * clocksource: the one it runs (the TSC is fine), or the one it falls back to (the TSC is
 * lost).  A known xen clocksource has its own finding (rule_clocksource). */
void rule_xen_pvclock(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    if (jd->cs_known || (jd->cmdline_forces_slow && jd->forced_cs[0]))
        return;
    if (jd->tsc_unusable) {
        struct tsc_fallback_answer a;
        tsc_fallback(c, jd->tsc_unusable_native, &a);
        if (a.kind != FB_XEN)
            return;
    } else if (machine_is_bare_metal(c) || !is(c->virt, "xen")) {
        return;
    }
    struct finding *f = finding_add(d, "xen-pvclock-likely-syscall", SEV_WARNING,
                                    "A Xen guest: the xen clocksource most likely makes a syscall "
                                    "per call");
    finding_evidence(f, "virtualization: %s (from %s)", c->virt, c->virt_source);
    finding_meaning(f, "Linux prefers the xen clocksource in Xen guests; its vDSO path needs a "
                    "vcpu time page with PVCLOCK_TSC_STABLE_BIT (Linux >= 4.11), which many Xen "
                    "hosts (EC2's) do not give.");
    finding_fix(f, "check `cat /sys/devices/system/clocksource/clocksource0/current_clocksource`; "
                "with xen and tsc available: clocksource=tsc tsc=reliable (risk: trusts the "
                "host's TSC), or a KVM-based instance type");
    (void)p;
    if (!c->available_cs[0] || machine_cs_available(c, "tsc"))
        finding_action_cmdline(f, "clocksource=tsc tsc=reliable", NULL, "trusts the host's TSC");
    coarse_fix(f, c, NULL);
    finding_action_firmware(f, "a KVM-based instance type (EC2 Nitro)", "none");
}

/* riscv >= 5.8 reads the time CSR in the vDSO.  SiFive's U54 and U74 (FU540, FU740,
 * StarFive JH7100/JH7110) implement no time CSR: every read traps to M-mode (their
 * manuals). */
void rule_riscv_core(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    bool time_csr_read = jd->cs_known ? jd->cs.cls == CS_COUNTER_TRAP
                                      : !(jd->cmdline_forces_slow && jd->forced_cs[0]) &&
                                            is(c->family, "riscv") && c->kernel.known &&
                                            kernel_version_cmp(&c->kernel, 5, 8) >= 0;
    const char *hw = c->cpu.hardware;
    if (!time_csr_read || !(strstr(hw, "sifive,u54") || strstr(hw, "sifive,u74")))
        return;
    jd->riscv_core_traps = true;
    struct finding *f = finding_add(d, "riscv-core-traps-time-csr", SEV_WARNING,
                                    "The core (%s) has no time CSR: rdtime traps to firmware", hw);
    finding_evidence(f, "/proc/cpuinfo uarch: %s", hw);
    finding_meaning(f, "SiFive's U54 and U74 cores (FU540, FU740, StarFive JH7100/JH7110) do "
                    "not implement the time CSR; each read raises an illegal-instruction trap "
                    "that M-mode firmware emulates from the CLINT's mtime. The vDSO's "
                    "clock_gettime reads it on every call.");
    finding_fix(f, "`clockscope doctor` on the board times the trap; no kernel setting avoids "
                "it (the counter is the only vDSO time source on riscv)");
    (void)p;
    coarse_fix(f, c, NULL);
    finding_action_firmware(f, "a core that implements the time CSR (one with Sstc, for "
                            "example)", "none");
}

#define LOGSCAN_ANY_EVENT(name) || log->name.n > 0

bool machine_has_clock_evidence(const struct machine *c)
{
    const struct logscan *log = &c->log;
    return c->current_cs[0] || c->available_cs[0] || strstr(c->cmdline, "clocksource=") ||
           c->counter.known || c->kvm_stable_bit >= 0 || log->tsc_refined || log->tsc_detected ||
           log->arch_timer || log->riscv_timer LOGSCAN_EVENT_LISTS(LOGSCAN_ANY_EVENT);
}

/* A virtual machine whose facts say nothing about the clock: what its platform usually
 * reads, as a hint beside the unknown verdict.  Xen has its own finding (rule_xen_pvclock). */
void rule_platform_default(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    static const struct {
        const char *family, *virt, *usual;
    } usual[] = {
        {"x86", "kvm", "kvm-clock or the TSC"},
        {"x86", "microsoft", "the Hyper-V TSC page or the TSC"},
        {"x86", "vmware", "the TSC"},
        {"x86", "oracle", "kvm-clock or the TSC"},
        {"arm64", "", "the architected timer (CNTVCT_EL0)"},
    };
    if (jd->cs_known || jd->tsc_unusable || machine_has_clock_evidence(c) || !machine_is_vm(c))
        return;
    for (size_t i = 0; i < sizeof usual / sizeof usual[0]; i++) {
        if (!is(c->family, usual[i].family) || (usual[i].virt[0] && !is(c->virt, usual[i].virt)))
            continue;
        struct finding *f = finding_add(d, "platform-default-hint", SEV_NOTICE,
                                        "A %s guest usually reads the time in user space",
                                        c->virt);
        finding_evidence(f, "virtualization: %s (from %s)", c->virt, c->virt_source);
        finding_evidence(f, "no fact about the clock: no current or available clocksource, no "
                         "kernel log line about clocks, no counter facts");
        finding_meaning(f, "Such guests usually run %s, which the vDSO reads without entering "
                        "the kernel; a guest whose TSC was found unstable, or whose host does "
                        "not set the pvclock's stable bit, pays a syscall per call instead. "
                        "Which one this machine runs is not in these facts: `clockscope "
                        "doctor` on the machine decides, or a root saved there by `clockscope "
                        "facts --save DIR`.", usual[i].usual);
        (void)p;
        return;
    }
}
