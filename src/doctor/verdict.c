/* SPDX-License-Identifier: MIT */
/* The verdict: from what the rules learnt (the judgement), or from the live proof when it
 * counted.  It reads findings and the judgement, and adds no finding. */
#include "doctor/rules.h"

#include "common/units.h"
#include "doctor/findings.h"
#include "doctor/verdict_platform.h"

#include <stdio.h>
#include <string.h>

const char *verdict_name(enum verdict v)
{
    static const char *const names[] = {"ok", "slow", "broken", "unknown"};
    return names[v];
}

const char *severity_name(enum severity s)
{
    static const char *const names[] = {"info", "notice", "warning", "critical"};
    return names[s];
}

/* Facts that say nothing about the clock (only, say, the virtualization and the kernel's
 * version): what such a machine usually reads is a hint (platform-default-hint), not a
 * verdict a script could take for ok. */
static void no_clock_evidence(struct diagnosis *d)
{
    set_verdict(d, V_UNKNOWN, -1, "no fact about the clock was given (no clocksource, no kernel "
                "log line about clocks): a live run decides");
}

/* x86 without a known clocksource: from what the rules learnt about the TSC. */
static void verdict_x86(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->machine;
    if (jd->tsc_unusable) {
        verdict_tsc_lost_by_platform(d, jd);
        return;
    }
    if (machine_is_bare_metal(c)) {
        set_inferred(d, V_OK, 1, "the current clocksource", "bare-metal x86 with no sign of "
                     "TSC trouble: Linux selects the TSC, which the vDSO reads");
        return;
    }
    /* A guest's clock depends on its host (the pvclock's stable bit, the TSC page, whether
     * the TSC is passed through stable): with no fact about it, no verdict. */
    if (machine_is_vm(c) && !machine_has_clock_evidence(c)) {
        no_clock_evidence(d);
        return;
    }
    if (is(c->virt, "kvm") || is(c->virt, "microsoft") || is(c->virt, "vmware") ||
        is(c->virt, "oracle")) {
        set_inferred(d, V_OK, 1, "the current clocksource", "a %s guest with no sign of TSC "
                     "trouble: Linux uses the TSC or the hypervisor's paravirtual clock "
                     "(kvm-clock, the Hyper-V TSC page), both read by the vDSO", c->virt);
        return;
    }
    if (is(c->virt, "xen")) {
        set_inferred(d, V_SLOW, 0, "the current clocksource, and whether Xen places a vcpu time "
                     "page with the stable bit", "a Xen guest uses the xen clocksource, which the "
                     "vDSO reads only with a stable vcpu time page (EC2's Xen hosts commonly do "
                     "not give one)");
        return;
    }
    set_verdict(d, V_UNKNOWN, -1, "the clocksource is not known%s", machine_is_vm(c)
                ? " and in a VM it may be a paravirtual clock" : "");
    return;
}

/* The verdict from a known clocksource's class. */
static void verdict_from_clocksource(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->machine;
    switch (jd->cs.cls) {
    case CS_FAST:
        set_verdict(d, V_OK, 1, "clocksource '%s' is read by the vDSO in user space",
                    c->current_cs);
        return;
    case CS_SYSCALL:
        if (c->log.arm_errata.n && !strcmp(c->current_cs, "arch_sys_counter"))
            set_verdict(d, V_SLOW, 0, "a timer erratum workaround traps CNTVCT and turns the "
                        "vDSO counter off, although the clocksource is arch_sys_counter");
        else
            set_verdict(d, V_SLOW, !strcmp(c->current_cs, "hpet") && !c->kernel.known ? -1 : 0,
                        "clocksource '%s' has no vDSO path: every clock_gettime is a syscall%s%s%s",
                        c->current_cs, !strcmp(c->current_cs, "hpet") && !c->kernel.known
                        ? " (kernels before 5.6 read the HPET in the vDSO instead: an uncached "
                          "device read, as slow)" : "",
                        jd->tsc_unusable_why ? "; the TSC is out because " : "",
                        jd->tsc_unusable_why ? jd->tsc_unusable_why : "");
        return;
    case CS_DEVICE_READ:
        set_verdict(d, V_SLOW, -1, "clocksource '%s': every read is an uncached device "
                    "access", c->current_cs);
        return;
    case CS_DEPENDS:
        if (jd->cs.pvclock && is(c->current_cs, "kvm-clock")) {
            set_inferred(d, V_OK, 1, "whether the host sets kvm-clock's stable bit "
                         "(clockscope/cpu kvm_clock_stable_bit from a live `clockscope facts "
                         "--save`)", "clocksource 'kvm-clock': the vDSO reads it when the host "
                         "sets the stable bit, as KVM hosts on a stable TSC do");
            return;
        }
        if (jd->cs.pvclock && is(c->current_cs, "xen")) {
            set_inferred(d, V_SLOW, -1, "whether Xen places a vcpu time page with the stable "
                         "bit for user space", "clocksource 'xen': the vDSO reads it only with "
                         "a stable vcpu time page, which EC2's Xen hosts commonly do not give");
            return;
        }
        set_verdict(d, V_UNKNOWN, -1, "clocksource '%s': %s; a live run decides",
                    c->current_cs, jd->cs.why);
        return;
    case CS_COUNTER_TRAP:
        verdict_riscv_time_csr(d, jd);
        return;
    default:
        set_verdict(d, V_UNKNOWN, -1, "clocksource '%s' is not one this doctor knows",
                    c->current_cs);
        return;
    }
}

/* arm64 without a known clocksource: the kernel log's timer errata decide. */
static void verdict_arm64(struct diagnosis *d)
{
    const struct machine *c = &d->machine;
    if (c->log.arm_errata.n) {
        set_verdict(d, V_SLOW, 0, "a timer erratum workaround traps CNTVCT and turns the "
                    "vDSO counter off");
        return;
    }
    if (c->log.read && c->log.lines > 0 && (c->log.arch_timer || c->log.switches.n)) {
        set_inferred(d, V_OK, 1, "the current clocksource", "arm64 with the architected "
                     "timer and no trapping erratum in the kernel log: the vDSO reads CNTVCT_EL0");
        return;
    }
    if (machine_is_vm(c) && !machine_has_clock_evidence(c)) {
        no_clock_evidence(d);
        return;
    }
    if (machine_is_vm(c)) {
        /* Guests see the architected timer, and the erratum-affected parts (Allwinner A64,
         * NXP LS10xx/LS20xx, HiSilicon Hip05-07, Cortex-A73) are boards and old servers. */
        set_inferred(d, V_OK, 1, "the current clocksource", "arm64 %s guest with no sign of a "
                     "timer erratum: the vDSO reads CNTVCT_EL0 from arch_sys_counter", c->virt);
        return;
    }
    set_verdict(d, V_UNKNOWN, -1, "arm64 without the clocksource or a kernel log: a timer "
                "erratum cannot be ruled out");
}

static void verdict_from_facts(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->machine;
    if (jd->cs_known) {
        verdict_from_clocksource(d, jd);
        return;
    }
    if (jd->cmdline_forces_slow && jd->forced_cs[0]) {
        set_verdict(d, V_SLOW, 0, "the command line forces clocksource '%s', which has no vDSO "
                    "path", jd->forced_cs);
        return;
    }
    if (!strcmp(c->family, "x86")) {
        verdict_x86(d, jd);
        return;
    }
    if (!strcmp(c->family, "arm64")) {
        verdict_arm64(d);
        return;
    }
    if (!strcmp(c->family, "riscv") && c->kernel.known && kernel_version_cmp(&c->kernel, 5, 8) < 0) {
        set_verdict(d, V_SLOW, 0, "riscv kernel %s: its vDSO makes the syscall", c->kernel.release);
        return;
    }
    if (!strcmp(c->family, "riscv") && c->kernel.known) {
        verdict_riscv_time_csr(d, jd);
        return;
    }
    set_verdict(d, V_UNKNOWN, -1, "the facts do not decide it: the clocksource is not known");
}

static void verdict_from_proof(struct diagnosis *d, const struct judgement *jd, const struct proof *p)
{
    const struct proof_timing *mono = proof_timing_find(p, "libc.clock_gettime.monotonic");
    if (p->counted) {
        d->decided_by_proof = true;
        d->inferred = false;
        if (p->call_errors[PC_MONOTONIC] || p->call_errors[PC_REALTIME]) {
            set_verdict(d, V_BROKEN, p->syscalls[PC_MONOTONIC] == 0,
                        "clock_gettime returned errors (%ld of %ld MONOTONIC calls)",
                        p->call_errors[PC_MONOTONIC], p->calls);
            return;
        }
        if (p->backwards) {
            set_verdict(d, V_BROKEN, p->syscalls[PC_MONOTONIC] == 0,
                        "CLOCK_MONOTONIC went backwards %ld times in %ld calls", p->backwards, p->calls);
            return;
        }
        if (p->syscalls[PC_MONOTONIC] > 0 || p->syscalls[PC_REALTIME] > 0) {
            set_verdict(d, V_SLOW, p->syscalls[PC_MONOTONIC] == 0,
                        "proven: %ld calls of clock_gettime(MONOTONIC) made %ld syscalls, "
                        "REALTIME %ld", p->calls, p->syscalls[PC_MONOTONIC], p->syscalls[PC_REALTIME]);
            return;
        }
        if (jd->counter_traps) {
            set_verdict(d, V_SLOW, 1, "proven: %ld calls of clock_gettime(MONOTONIC) made no "
                        "syscall, but the counter the vDSO reads (%s) traps: %s per read",
                        p->calls, jd->trap_counter, NS_TEXT(jd->trap_ns));
            return;
        }
        if (mono && mono->ns_per_call > 1000) {
            set_verdict(d, V_SLOW, 1, "no syscalls, but each clock_gettime costs %s (a "
                        "device read or a trapping counter)", NS_TEXT(mono->ns_per_call));
            return;
        }
        set_verdict(d, V_OK, 1, "proven: %ld calls of clock_gettime(MONOTONIC) and (REALTIME) "
                    "made 0 syscalls", p->calls);
        if (mono)
            snprintf(d->summary + strlen(d->summary), sizeof d->summary - strlen(d->summary),
                     ", %s per call", NS_TEXT(mono->ns_per_call));
        return;
    }
    if (!p->vdso_present) {
        set_verdict(d, V_SLOW, 0, "this process has no vDSO: every time read is a syscall (%s)",
                    p->vdso_why);
        return;
    }
    /* A trapping counter read is proof enough: every vDSO call pays it. */
    if (jd->counter_traps) {
        d->decided_by_proof = true;
        d->inferred = false;
        set_verdict(d, V_SLOW, 1, "the counter the vDSO reads (%s) traps: %s per read (the "
                    "syscall count could not be taken: %s)", jd->trap_counter,
                    NS_TEXT(jd->trap_ns), p->count_why);
        return;
    }
    /* The facts left open only whether the vDSO's time CSR read traps (riscv), and the
     * timing answers it: not a trap, so the vDSO serves the call without entering the
     * kernel or firmware. */
    const struct proof_timing *rdtime = proof_timing_find(p, "counter.rdtime");
    const struct proof_timing *coarse = proof_timing_find(p, "libc.clock_gettime.monotonic_coarse");
    if (jd->counter_may_trap && rdtime && coarse && proof_timing_find(p, "ref.empty_call")) {
        d->decided_by_proof = true;
        d->inferred = false;
        d->missing[0] = '\0';
        set_verdict(d, V_OK, 1, "the vDSO reads the time CSR, and rdtime does not trap here: "
                    "%s, %.1fx a COARSE call (the syscall count could not be taken: %s)",
                    NS_TEXT(rdtime->ns_per_call), coarse->ns_per_call > 0 ? rdtime->ns_per_call /
                    coarse->ns_per_call : 0, p->count_why);
        return;
    }
    /* Not counted: keep the facts' verdict, which the findings explain. */
}

void verdict_decide(struct diagnosis *d, const struct judgement *jd, const struct proof *p)
{
    /* What the answer's vDSO line says about a trapping counter (report.c). */
    d->counter_traps = jd->counter_traps || jd->riscv_core_traps;
    snprintf(d->trap_counter, sizeof d->trap_counter, "%s",
             jd->counter_traps ? jd->trap_counter : jd->riscv_core_traps ? "rdtime" : "");
    d->trap_ns = jd->counter_traps ? jd->trap_ns : 0;
    verdict_from_facts(d, jd);
    if (p && p->ran)
        verdict_from_proof(d, jd, p);
    if (jd->emulated && !d->decided_by_proof)
        set_verdict(d, V_UNKNOWN, -1, "user-mode emulation: the kernel facts are another "
                    "machine's and this process has %s", p && p->ran && !p->vdso_present
                    ? "no vDSO" : "emulated timings");
}
