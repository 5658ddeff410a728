/* SPDX-License-Identifier: MIT */
/* x86's TSC and the clocksource watchdog: demotions, unstable reasons, boot-time warps,
 * calibration, absence, benign look-alikes and the CPU's TSC flags. */
#include "common/message.h"
#include "doctor/rules.h"

#include "doctor/findings.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

rule_fn rule_tsc_demotions, rule_tsc_unstable_reasons, rule_tsc_warp, rule_tsc_calibration,
    rule_tsc_missing, rule_benign, rule_cpu_flags;

/* A switch to tsc after position `after` (line number) in the log. */
static bool switched_to_tsc_after(const struct logscan *s, size_t after)
{
    for (int i = 0; i < s->switches.n; i++)
        if (s->switches.e[i].lineno > after && is(s->switches.e[i].name, "tsc"))
            return true;
    return false;
}

/* The clocksource current just before line `lineno`, from the log's switches. */
static const char *current_before(const struct logscan *s, size_t lineno)
{
    const char *cur = NULL;
    for (int i = 0; i < s->switches.n; i++)
        if (s->switches.e[i].lineno < lineno)
            cur = s->switches.e[i].name;
    return cur;
}

static void tsc_reboot_and_params_fixes(struct finding *f, const struct machine *c)
{
    static const char risk[] = "if the TSC really drifts between CPUs, time can go backwards "
                               "across CPUs; only on CPUs with constant_tsc and nonstop_tsc";
    finding_fix(f, "the TSC comes back only with a reboot: once marked unstable the kernel "
                "will not select it again (writing tsc to current_clocksource is refused)");
    bool constant = cpuinfo_has_flag(&c->cpu, "constant_tsc") && cpuinfo_has_flag(&c->cpu, "nonstop_tsc");
    finding_fix(f, "boot with tsc=reliable to skip the watchdog and the boot-time sync check "
                "(risk: if the TSC really drifts between CPUs, time can go backwards across CPUs; "
                "use only on CPUs with constant_tsc and nonstop_tsc%s; newer kernels also accept "
                "tsc=nowatchdog, which keeps the boot-time check)",
                c->cpu.parsed ? (constant ? ", which this CPU reports" : ", which this CPU does NOT report")
                              : ", see /proc/cpuinfo");
    /* Offered as data only where the CPU does not rule it out. */
    if (!c->cpu.parsed || constant)
        finding_action_cmdline(f, "tsc=reliable", NULL, risk);
}

/* What the watchdog that accused the TSC says about where the fault likely is. */
static void watchdog_accuser_meaning(struct finding *f, const struct machine *c,
                                     const struct log_event *e)
{
    if (!e->watchdog[0])
        return;
    bool emulated = machine_is_vm(c) &&
                    (is(e->watchdog, "hpet") || is(e->watchdog, "acpi_pm") || is(e->watchdog, "pit"));
    if (emulated)
        finding_meaning(f, "The accuser is '%s' in a %s guest, an emulated timer whose reads "
                        "the host can delay: often the watchdog is the broken timer, not the "
                        "TSC.", e->watchdog, c->virt);
    else
        finding_meaning(f, "The accuser was '%s'; on bare metal the usual causes are long "
                        "SMIs or firmware stalls, a broken HPET, or (before Linux 5.14, "
                        "\"clocksource: Retry clock read if long delays detected\") a "
                        "watchdog read delayed by load.", e->watchdog);
}

/* The fixes for a TSC the watchdog demoted: in a VM on the host's side, on bare metal
 * in the firmware or the kernel. */
static void watchdog_demotion_fixes(struct finding *f, const struct machine *c,
                                    const struct proof *p)
{
    tsc_reboot_and_params_fixes(f, c);
    if (machine_is_vm(c))
        finding_fix(f, "host side: give the guest an invariant TSC (QEMU/KVM: -cpu host,+invtsc "
                    "or a CPU model with invtsc; risk: blocks live migration to hosts with "
                    "another TSC rate) and a current hypervisor");
    else
        finding_fix(f, "firmware: update the BIOS/UEFI (SMI handlers, TSC synchronization); "
                    "kernel: Linux >= 5.17 turns the TSC watchdog off on CPUs with "
                    "constant_tsc, nonstop_tsc and TSC_ADJUST on up to 2 sockets "
                    "(\"x86/tsc: Disable clocksource watchdog for TSC on qualified platorms\")");
    coarse_fix(f, c, p);
    if (machine_is_vm(c))
        finding_action_firmware(f, "host side: give the guest an invariant TSC (QEMU/KVM: -cpu "
                                "host,+invtsc) and a current hypervisor", "blocks live "
                                "migration to hosts with another TSC rate");
    else
        finding_action_firmware(f, "update the BIOS/UEFI (SMI handlers, TSC synchronization); "
                                "Linux >= 5.17 on CPUs with constant_tsc, nonstop_tsc and "
                                "TSC_ADJUST", "none");
}

void rule_tsc_demotions(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    const struct logscan *s = &c->log;
    bool cs_fast = jd->cs_known && jd->cs.cls == CS_FAST;
    for (int i = 0; i < s->demotions.n; i++) {
        const struct log_event *e = &s->demotions.e[i];
        char when[96];
        when_after_boot(e->ts, when, sizeof when);
        const char *before = current_before(s, e->lineno);
        bool later_tsc = switched_to_tsc_after(s, e->lineno);
        bool other_current = before && !is(before, e->name) && !(is_tsc(before) && is_tsc(e->name)) &&
                             !is(before, "refined-jiffies") && !is(before, "jiffies");
        /* the TSC was taken out of use for the rest of the log */
        bool tsc_lost = is_tsc(e->name) && !later_tsc && !e->failover_disabled;
        bool relevant = tsc_lost && !cs_fast && !other_current;
        if (tsc_lost && !(jd->cs_known && (jd->cs.cls == CS_FAST || jd->cs.cls == CS_DEPENDS) && other_current)) {
            jd->tsc_unusable = true;
            jd->tsc_unusable_why = "the clocksource watchdog marked the TSC unstable";
        }
        struct finding *f;
        if (relevant) {
            /* With a paravirtual clock current, the demotion may be why it is current, but
             * whether reads are slow is that clock's question. */
            enum severity sev = jd->cs_known && jd->cs.cls == CS_DEPENDS ? SEV_NOTICE : SEV_WARNING;
            f = finding_add(d, "tsc-demoted-by-watchdog", sev,
                            "The watchdog%s%s%s marked '%s' unstable %s", e->watchdog[0] ? " ('" : "",
                            e->watchdog, e->watchdog[0] ? "')" : "", e->name, when);
        } else {
            f = finding_add(d, "clocksource-demotion-not-blamed", SEV_INFO,
                            "'%s' was marked unstable %s, but that is not what the clock reads use",
                            e->name, when);
        }
        finding_log_evidence(f, e);
        if (e->cpu >= 0)
            finding_evidence(f, "the watchdog ran on CPU %d", e->cpu);
        if (!relevant) {
            if (later_tsc)
                finding_meaning(f, "A later \"Switched to clocksource tsc\" shows the TSC in use after it.");
            else if (e->failover_disabled)
                finding_meaning(f, "This kernel (RHEL 6 style) only reports the skew: without "
                                "clocksource_failover on the command line it keeps the clocksource.");
            else if (other_current)
                finding_meaning(f, "'%s' was already the current clocksource, so the demotion of "
                                "'%s' did not change what clock_gettime reads.", before, e->name);
            else if (cs_fast)
                finding_meaning(f, "The current clocksource '%s' is served by the vDSO.", c->current_cs);
            else
                finding_meaning(f, "'%s' is not the TSC; the finding about the current clocksource "
                                "says what matters.", e->name);
            continue;
        }
        watchdog_accuser_meaning(f, c, e);
        finding_meaning(f, "kernel/time/clocksource.c compares every clocksource flagged "
                        "MUST_VERIFY (the TSC) against a watchdog clocksource each 0.5 s; when "
                        "they disagree by more than the threshold, it marks the TSC unstable, "
                        "drops its rating and switches to the next clocksource, for the rest of "
                        "the boot.");
        if (s->tsc_found_unstable.n)
            finding_log_evidence(f, &s->tsc_found_unstable.e[0]);
        watchdog_demotion_fixes(f, c, p);
    }
}

/* The boot-time check found the CPUs' TSCs apart. */
static void tsc_unsynchronized(struct diagnosis *d, const struct log_event *e,
                               const struct proof *p)
{
    const struct machine *c = &d->machine;
    struct finding *f = finding_add(d, "tsc-unsynchronized", SEV_WARNING,
                                    "The TSCs of different CPUs are not synchronized");
    finding_log_evidence(f, e);
    finding_meaning(f, "arch/x86/kernel/tsc_sync.c found the CPUs' TSCs apart at boot: "
                    "the TSC cannot be a system-wide clock, so the kernel does not use it.");
    finding_fix(f, "firmware: update the BIOS/UEFI (it must start the TSCs together or "
                "program TSC_ADJUST); do NOT boot with tsc=reliable: time would go "
                "backwards between CPUs");
    coarse_fix(f, c, p);
    finding_action_firmware(f, "update the BIOS/UEFI: it must start the TSCs together or "
                            "program TSC_ADJUST (not tsc=reliable: time would go "
                            "backwards between CPUs)", "none");
}

/* mark_tsc_unstable() for a reason of its own: a CPU without an invariant TSC. */
static void tsc_unstable_for_reason(struct diagnosis *d, const struct log_event *e,
                                    const struct proof *p)
{
    const struct machine *c = &d->machine;
    struct finding *f = finding_add(d, "tsc-marked-unstable", SEV_WARNING,
                                    "The kernel marked the TSC unstable: %s", e->name);
    finding_log_evidence(f, e);
    finding_meaning(f, "mark_tsc_unstable() (arch/x86/kernel/tsc.c) takes the TSC out of "
                    "use for the whole boot; reasons such as \"TSC halts in idle\" or "
                    "\"cpufreq changes\" mean a CPU without an invariant TSC (no "
                    "constant_tsc/nonstop_tsc).");
    finding_fix(f, "a CPU with an invariant TSC, or a kernel that knows this CPU's TSC "
                "is invariant; tsc=reliable only if the TSC really is constant-rate "
                "(risk: wrong time otherwise)");
    if (c->cpu.parsed && cpuinfo_has_flag(&c->cpu, "constant_tsc") &&
        cpuinfo_has_flag(&c->cpu, "nonstop_tsc"))
        finding_action_cmdline(f, "tsc=reliable", NULL, "wrong time if the TSC is not "
                               "really constant-rate");
    coarse_fix(f, c, p);
    finding_action_firmware(f, "a CPU with an invariant TSC, or a kernel that knows this "
                            "CPU's TSC is invariant", "none");
}

void rule_tsc_unstable_reasons(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    const struct logscan *s = &c->log;
    for (int i = 0; i < s->tsc_unstable.n; i++) {
        const struct log_event *e = &s->tsc_unstable.e[i];
        bool later_tsc = switched_to_tsc_after(s, e->lineno);
        if (e->reason == TSC_R_WATCHDOG) {
            /* The demotion finding tells it, with the watchdog's own lines. */
            if (!later_tsc && !s->demotions.n) {
                jd->tsc_unusable = true;
                jd->tsc_unusable_why = "the clocksource watchdog marked the TSC unstable";
                struct finding *f = finding_add(d, "tsc-demoted-by-watchdog", SEV_WARNING,
                                                "The clocksource watchdog marked the TSC unstable");
                finding_log_evidence(f, e);
                finding_meaning(f, "The clocksource watchdog (kernel/time/clocksource.c) saw the "
                                "TSC disagree with its reference timer and demoted it for the rest "
                                "of the boot.");
                tsc_reboot_and_params_fixes(f, c);
                coarse_fix(f, c, p);
            }
            continue;
        }
        if (e->reason == TSC_R_HYPERV) {
            bool tsc_page = is(c->current_cs, "hyperv_clocksource_tsc_page") || later_tsc;
            struct finding *f = finding_add(d, "hyperv-tsc-unstable-benign", SEV_INFO,
                                            "\"Marking TSC unstable due to running on Hyper-V\" "
                                            "is expected, not a fault");
            finding_log_evidence(f, e);
            finding_meaning(f, "Hyper-V guests without the invariant-TSC feature mark the raw TSC "
                            "unstable at boot (arch/x86/kernel/cpu/mshyperv.c) and read time "
                            "through the Hyper-V TSC page, which the vDSO serves%s.",
                            tsc_page ? "" : "; the current clocksource decides the verdict");
            continue;
        }
        if (later_tsc)
            continue;
        jd->tsc_unusable = true;
        if (e->reason == TSC_R_SYNC) {
            jd->tsc_unusable_why = "the boot-time TSC synchronization check failed";
            if (s->warps.n)
                continue; /* the warp finding carries it, with the measured warp */
            tsc_unsynchronized(d, e, p);
        } else if (e->reason == TSC_R_CALIBRATION) {
            jd->tsc_unusable_why = "the kernel could not calibrate the TSC";
            jd->tsc_unusable_native = true;
            continue; /* the calibration finding carries it */
        } else if (e->reason == TSC_R_CMDLINE) {
            jd->tsc_unusable_why = "the command line told the kernel not to use the TSC";
            continue; /* the command-line finding carries it */
        } else {
            jd->tsc_unusable_why = "the kernel marked the TSC unstable";
            tsc_unstable_for_reason(d, e, p);
        }
    }
}

void rule_tsc_warp(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    const struct logscan *s = &c->log;
    if (!s->warps.n)
        return;
    const struct log_event *e = &s->warps.e[s->warps.n - 1];
    if (switched_to_tsc_after(s, e->lineno))
        return;
    jd->tsc_unusable = true;
    jd->tsc_unusable_why = "the boot-time TSC synchronization check measured a warp between CPUs";
    struct finding *f = finding_add(d, "tsc-warp-at-boot", SEV_WARNING,
                                    "TSC warp between CPUs at boot: the kernel turned the TSC off");
    for (int i = 0; i < s->warps.n && i < 3; i++)
        finding_log_evidence(f, &s->warps.e[i]);
    for (int i = 0; i < s->tsc_unstable.n; i++)
        if (s->tsc_unstable.e[i].reason == TSC_R_SYNC)
            finding_log_evidence(f, &s->tsc_unstable.e[i]);
    if (c->cpu.parsed && cpuinfo_has_flag(&c->cpu, "constant_tsc"))
        finding_evidence(f, "cpuinfo flags include constant_tsc%s: the rate is constant, the "
                         "CPUs' counters are offset", cpuinfo_has_flag(&c->cpu, "nonstop_tsc") ? " nonstop_tsc" : "");
    finding_meaning(f, "When a CPU comes up, check_tsc_sync_source() (arch/x86/kernel/tsc_sync.c) "
                    "compares its TSC with the boot CPU's; a measured warp means a reading on one "
                    "CPU can be earlier than one taken before it on another, so the kernel marks the "
                    "TSC unstable and uses the next clocksource (HPET or ACPI PM timer on bare "
                    "metal) for the whole boot. constant/nonstop flags promise a steady rate, not "
                    "synchronized counters.");
    finding_fix(f, "firmware: update the BIOS/UEFI; the firmware must start or align the TSCs "
                "(kernels >= 4.10 also correct offsets through TSC_ADJUST where the CPU has it)");
    finding_fix(f, "do NOT boot with tsc=reliable here: the warp was measured, time would go "
                "backwards between CPUs");
    coarse_fix(f, c, p);
    finding_action_firmware(f, "update the BIOS/UEFI: the firmware must start or align the TSCs "
                            "(not tsc=reliable: the warp was measured)", "none");
}

void rule_tsc_calibration(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    const struct logscan *s = &c->log;
    bool fatal = false;
    /* "Fast TSC calibration failed" and "Unable to calibrate against PIT" are first
     * attempts: the HPET/PM-timer reference calibration follows ("using HPET reference
     * calibration").  Only its failure leaves the TSC without a frequency. */
    for (int i = 0; i < s->calibration.n; i++)
        if (s->calibration.e[i].kind == EK_CALIBRATION_FATAL)
            fatal = true;
    if (!s->calibration.n)
        return;
    if (!fatal) {
        struct finding *f = finding_add(d, "tsc-fast-calibration-failed-benign", SEV_INFO,
                                        "A first TSC calibration attempt failed; that alone is harmless");
        finding_log_evidence(f, &s->calibration.e[0]);
        finding_meaning(f, "The quick PIT-based calibrations are only the first attempts; the "
                        "kernel then calibrates against the HPET or PM timer "
                        "(arch/x86/kernel/tsc.c). Only \"HPET/PMTIMER calibration failed\" or "
                        "\"could not calculate TSC khz\" leave the TSC unused.");
        return;
    }
    bool later_tsc = switched_to_tsc_after(s, s->calibration.e[s->calibration.n - 1].lineno);
    if (later_tsc)
        return;
    jd->tsc_unusable = true;
    jd->tsc_unusable_native = true;
    jd->tsc_unusable_why = "the kernel could not calibrate the TSC";
    struct finding *f = finding_add(d, "tsc-calibration-failed", SEV_WARNING,
                                    "TSC calibration failed: the kernel does not use the TSC");
    for (int i = 0; i < s->calibration.n && i < 4; i++)
        finding_log_evidence(f, &s->calibration.e[i]);
    finding_meaning(f, "Without a TSC frequency, tsc_init() marks the TSC unstable (\"could not "
                    "calculate TSC khz\", arch/x86/kernel/tsc.c) and the TSC is never registered. "
                    "The native calibration path ran, so no paravirtual clock supplied the "
                    "frequency: the kernel falls back to HPET, ACPI PM timer or jiffies, all "
                    "syscall-only.");
    if (machine_is_vm(c) || c->log.virt[0])
        finding_fix(f, "hypervisor: run the guest with KVM acceleration and kvm-clock, or state "
                    "the TSC frequency (CPUID 0x15 / 0x40000010, QEMU -cpu host,+invtsc); TCG "
                    "emulation cannot calibrate reliably");
    finding_fix(f, "boot parameter tsc_early_khz=<TSC kHz> (kernels that have it) supplies the "
                "frequency; risk: a wrong value makes all clocks run at the wrong rate");
    finding_fix(f, "kernel upgrade: newer kernels read the frequency from CPUID or MSRs on more CPUs");
    coarse_fix(f, c, p);
    if (machine_is_vm(c) || c->log.virt[0])
        finding_action_firmware(f, "hypervisor: run the guest with KVM acceleration and kvm-clock, "
                                "or state the TSC frequency (QEMU -cpu host,+invtsc)", "none");
    finding_action_firmware(f, "kernel upgrade: newer kernels read the TSC frequency from CPUID "
                            "or MSRs on more CPUs", "none");
}

void rule_tsc_missing(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)p;
    const struct machine *c = &d->machine;
    if (!c->available_cs[0] || machine_cs_available(c, "tsc") ||
        machine_cs_available(c, "tsc-early"))
        return;
    bool slow = !(jd->cs_known && (jd->cs.cls == CS_FAST || jd->cs.cls == CS_DEPENDS));
    struct finding *f = finding_add(d, "tsc-not-registered", slow ? SEV_WARNING : SEV_NOTICE,
                                    "The TSC is not an available clocksource");
    finding_evidence(f, "available_clocksource: %s", c->available_cs);
    if (c->log.tsc_detected && !c->log.tsc_refined)
        finding_evidence(f, "the kernel log shows \"tsc: Detected ... MHz\" but never \"Refined "
                         "TSC clocksource calibration\"");
    finding_meaning(f, "The TSC exists on every x86-64 CPU, but the kernel registers it as a "
                    "clocksource only if calibration and the synchronization checks pass; "
                    "an old kernel may not know a new CPU's TSC (e.g. Ubuntu 14.04's kernel on a "
                    "Core i9), or it was marked unstable earlier (notsc, tsc=unstable, a failed "
                    "check).");
    if (!slow)
        finding_meaning(f, "The current clocksource '%s' does not need it.", c->current_cs);
    finding_fix(f, "look for the reason: `dmesg | grep -i -e tsc -e clocksource`");
    finding_fix(f, "kernel upgrade (newer kernels calibrate and trust more CPUs' TSCs); firmware update");
    finding_action_firmware(f, "kernel upgrade (newer kernels calibrate and trust more CPUs' "
                            "TSCs); firmware update", "none");
    if (!jd->tsc_unusable_why)
        jd->tsc_unusable_why = "the TSC is not in the available list";
    jd->tsc_unusable = true;
}

void rule_benign(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd, (void)p;
    const struct logscan *s = &d->machine.log;
    for (int i = 0; i < s->benign.n && i < 3; i++) {
        const struct log_event *e = &s->benign.e[i];
        struct finding *f;
        if (e->kind == EK_BENIGN_TSC_DEADLINE) {
            f = finding_add(d, "tsc-deadline-erratum-benign", SEV_INFO,
                            "TSC_DEADLINE erratum: about the APIC timer, not the clock");
            finding_meaning(f, "Old microcode makes the kernel drive the local APIC timer in "
                            "one-shot mode instead of TSC-deadline mode; reading the time is "
                            "unaffected. A microcode update removes the message.");
        } else if (e->kind == EK_BENIGN_TSC_SYNC) {
            f = finding_add(d, "tsc-adjust-benign", SEV_INFO,
                            "TSC synchronization was handled by the kernel");
            finding_meaning(f, "The kernel corrected or trusted the TSC offsets (TSC_ADJUST, "
                            "arch/x86/kernel/tsc_sync.c); the TSC stays in use.");
        } else {
            f = finding_add(d, "watchdog-skip-benign", SEV_INFO,
                            "The clocksource watchdog skipped or retried a check");
            finding_meaning(f, "Since Linux 5.14 the watchdog re-reads when its own read was "
                            "delayed (\"clock-skew test skipped\", \"retried N times\"): no "
                            "clocksource was demoted.");
        }
        finding_log_evidence(f, e);
    }
}

void rule_cpu_flags(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd, (void)p;
    const struct machine *c = &d->machine;
    if (!c->cpu.parsed || !c->cpu.flags[0])
        return;
    static const char *const flags[] = {"tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq",
                                        "tsc_reliable", "rdtscp", "tsc_adjust", "hypervisor"};
    char have[MSG_LINE] = "", lack[MSG_LINE] = "";
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        char *dst = cpuinfo_has_flag(&c->cpu, flags[i]) ? have : lack;
        size_t n = strlen(dst);
        snprintf(dst + n, 256 - n, "%s%s", n ? " " : "", flags[i]);
    }
    bool invariant = cpuinfo_has_flag(&c->cpu, "constant_tsc") && cpuinfo_has_flag(&c->cpu, "nonstop_tsc");
    struct finding *f = finding_add(d, "cpu-tsc-flags", invariant ? SEV_INFO : SEV_NOTICE,
                                    invariant ? "The CPU's TSC is invariant (constant_tsc nonstop_tsc)"
                                              : "The CPU does not report an invariant TSC");
    finding_evidence(f, "cpuinfo flags present: %s", have[0] ? have : "(none of them)");
    finding_evidence(f, "absent: %s", lack[0] ? lack : "(none)");
    if (!invariant)
        finding_meaning(f, "Without constant_tsc and nonstop_tsc the TSC's rate changes with "
                        "frequency or stops in deep idle, and the kernel is right to distrust it.");
}
