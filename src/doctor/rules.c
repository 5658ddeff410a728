/* The rules: from the context (and the live proof) to findings and a verdict.
 * Each rule states the kernel behaviour it rests on; docs/doctor.md lists them. */
#include "doctor/clocksources.h"
#include "facts/machine.h"
#include "doctor/findings.h"
#include "common/clocksource_sysfs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>


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

static bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }
static bool is_tsc(const char *n) { return is(n, "tsc") || is(n, "tsc-early"); }

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

static void coarse_fix(struct finding *f, const struct proof *p)
{
    const struct proof_timing *mono = p ? proof_timing_find(p, "libc.clock_gettime.monotonic") : NULL;
    const struct proof_timing *coarse = p ? proof_timing_find(p, "libc.clock_gettime.monotonic_coarse") : NULL;
    if (mono && coarse && !f->gain[0] && coarse->ns_per_call > 0)
        finding_gain(f, "measured here: clock_gettime(CLOCK_MONOTONIC) %.1f ns per call, "
                     "CLOCK_MONOTONIC_COARSE %.1f ns (%.0fx cheaper)", mono->ns_per_call,
                     coarse->ns_per_call, mono->ns_per_call / coarse->ns_per_call);
    if (p && p->ran && p->res_ns_monotonic_coarse > 0)
        finding_fix(f, "application side: read CLOCK_MONOTONIC_COARSE / CLOCK_REALTIME_COARSE "
                    "where %.1f ms resolution is enough (clock_getres here): they read the "
                    "last tick's time from the vDSO data page with no counter and no syscall. "
                    "Risk: none for timeouts and rate limits; wrong for fine intervals",
                    p->res_ns_monotonic_coarse / 1e6);
    else
        finding_fix(f, "application side: read CLOCK_MONOTONIC_COARSE / CLOCK_REALTIME_COARSE "
                    "where one-tick resolution (1/CONFIG_HZ: 1-10 ms; clock_getres says) is "
                    "enough: the vDSO serves them from its data page on every clocksource. "
                    "Risk: none for timeouts and rate limits; wrong for fine intervals");
    finding_fix(f, "unmodified programs: clockscope run --mode coarse -- CMD answers their "
                "CLOCK_REALTIME/MONOTONIC reads from the COARSE clocks (tick resolution); "
                "clockscope run -- CMD serves them from the CPU counter through libfastclock "
                "only where the counter is still safe, else passes them through (docs/run.md)");
}

static void switch_fix(struct finding *f, const char *to)
{
    finding_fix(f, "now, until reboot: echo %s | sudo tee " CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_CURRENT " "
                "(risk: low when '%s' is listed in available_clocksource; the kernel refuses a "
                "clocksource it marked unstable, and the watchdog may demote it again)", to, to);
    finding_fix(f, "every boot: add clocksource=%s to the kernel command line (GRUB_CMDLINE_LINUX "
                "in /etc/default/grub, then update-grub or grub2-mkconfig; risk: ignored if '%s' "
                "does not register, check dmesg | grep -i clocksource after reboot)", to, to);
}

/* ---- the current clocksource ------------------------------------------------------- */

/* The finding a clocksource class makes. */
struct cs_finding {
    const char *id;
    enum severity sev;
    const char *title; /* %s: the clocksource */
};

/* The judgement's reason as a sentence of a finding's meaning: capitalised, with a full stop
 * (`before` is prose that goes first, or ""). */
static void meaning_from_judgement(struct finding *f, const char *before,
                                   const struct cs_judgement *j)
{
    char why[sizeof j->why];
    snprintf(why, sizeof why, "%s", j->why);
    why[0] = (char)toupper((unsigned char)why[0]);
    finding_meaning(f, "%s%s.", before, why);
}

static void rule_clocksource(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->ctx;
    if (!c->current_cs[0]) {
        struct finding *f = finding_add(d, "clocksource-unknown", SEV_INFO,
                                        "The current clocksource is not known");
        finding_evidence(f, "no current_clocksource file and no \"Switched to clocksource\" line "
                         "in the kernel log");
        finding_meaning(f, "The verdict rests on the other facts; a live `clockscope doctor` on "
                        "the machine reads it and proves the path.");
        return;
    }
    jd->cs_known = true;
    cs_judge(c, c->current_cs, &jd->cs);
    const struct cs_judgement *j = &jd->cs;
    /* CS_DEPENDS is conditional for different reasons per platform (a stable pvclock; a
     * 32-bit arm kernel's build and version): the judgement says which. */
    static const struct cs_finding by_class[] = {
        [CS_FAST] = {"clocksource-vdso", SEV_INFO, "Clocksource '%s' is read in user space by the vDSO"},
        [CS_SYSCALL] = {"clocksource-no-vdso", SEV_WARNING,
                        "Clocksource '%s': every clock_gettime enters the kernel"},
        [CS_DEVICE_READ] = {"clocksource-device-read", SEV_WARNING,
                            "Clocksource '%s': every read is an uncached device access"},
        [CS_DEPENDS] = {"clocksource-vdso-conditional", SEV_NOTICE,
                        "Clocksource '%s': served by the vDSO only on some kernels"},
        [CS_COUNTER_TRAP] = {"clocksource-counter-may-trap", SEV_NOTICE,
                             "Clocksource '%s': the vDSO reads the time CSR, which may trap"},
        [CS_UNKNOWN] = {"clocksource-unknown-name", SEV_NOTICE,
                        "Clocksource '%s' is not one this doctor knows"},
    }, pvclock = {"clocksource-pvclock", SEV_NOTICE,
                  "Clocksource '%s': served by the vDSO only with a stable pvclock"};
    const struct cs_finding *k = j->pvclock ? &pvclock : &by_class[j->cls];
    struct finding *f = finding_add(d, k->id, k->sev, k->title, c->current_cs);
    finding_evidence(f, "current clocksource: %s (from %s)", c->current_cs, c->current_cs_source);
    if (c->available_cs[0])
        finding_evidence(f, "available_clocksource: %s", c->available_cs);
    if (c->kernel.known)
        finding_evidence(f, "kernel %s (from %s)", c->kernel.release, c->kernel_source);
    meaning_from_judgement(f, "", j);
    if (j->cls == CS_SYSCALL || j->cls == CS_DEVICE_READ) {
        const char *better = NULL;
        static const char *const prefs[] = {"tsc", "arch_sys_counter", "hyperv_clocksource_tsc_page",
                                            "kvm-clock", "riscv_clocksource"};
        for (size_t i = 0; i < sizeof prefs / sizeof prefs[0] && !better; i++)
            if (machine_cs_available(c, prefs[i]) && !is(prefs[i], c->current_cs)) {
                struct cs_judgement alt;
                cs_judge(c, prefs[i], &alt);
                if (alt.cls == CS_FAST || alt.cls == CS_DEPENDS)
                    better = prefs[i];
            }
        if (better)
            switch_fix(f, better);
        else if (c->available_cs[0])
            finding_fix(f, "no vDSO-capable clocksource is available (%s): see the other findings "
                        "for why; a kernel or firmware upgrade is the lasting fix", c->available_cs);
        coarse_fix(f, p);
    } else if (j->cls == CS_DEPENDS) {
        if (j->pvclock)
            finding_meaning(f, "Whether the host sets the stable bit cannot be read from these facts.");
        finding_fix(f, "run `clockscope doctor` on the machine itself: it counts the syscalls "
                    "clock_gettime really makes");
        if (is(c->current_cs, "xen") && machine_cs_available(c, "tsc"))
            switch_fix(f, "tsc");
        else if (is(c->current_cs, "xen"))
            finding_fix(f, "on EC2, AWS recommends the tsc clocksource on Xen instances "
                        "(clocksource=tsc tsc=reliable; risk: trusts the host's TSC), or move "
                        "to a Nitro (KVM) instance type");
    }
}

/* ---- the TSC: demotions, warps, calibration, absence ------------------------------- */

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
    finding_fix(f, "the TSC comes back only with a reboot: once marked unstable the kernel "
                "will not select it again (writing tsc to current_clocksource is refused)");
    bool constant = cpuinfo_has_flag(&c->cpu, "constant_tsc") && cpuinfo_has_flag(&c->cpu, "nonstop_tsc");
    finding_fix(f, "boot with tsc=reliable to skip the watchdog and the boot-time sync check "
                "(risk: if the TSC really drifts between CPUs, time can go backwards across CPUs; "
                "use only on CPUs with constant_tsc and nonstop_tsc%s; newer kernels also accept "
                "tsc=nowatchdog, which keeps the boot-time check)",
                c->cpu.parsed ? (constant ? ", which this CPU reports" : ", which this CPU does NOT report")
                              : ", see /proc/cpuinfo");
}

static void rule_tsc_demotions(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->ctx;
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
        if (e->watchdog[0]) {
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
        finding_meaning(f, "kernel/time/clocksource.c compares every clocksource flagged "
                        "MUST_VERIFY (the TSC) against a watchdog clocksource each 0.5 s; when "
                        "they disagree by more than the threshold, it marks the TSC unstable, "
                        "drops its rating and switches to the next clocksource, for the rest of "
                        "the boot.");
        if (s->tsc_found_unstable.n)
            finding_log_evidence(f, &s->tsc_found_unstable.e[0]);
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
        coarse_fix(f, p);
    }
}

static void rule_tsc_unstable_reasons(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->ctx;
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
                coarse_fix(f, p);
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
        struct finding *f;
        if (e->reason == TSC_R_SYNC) {
            jd->tsc_unusable_why = "the boot-time TSC synchronization check failed";
            if (s->warps.n)
                continue; /* the warp finding carries it, with the measured warp */
            f = finding_add(d, "tsc-unsynchronized", SEV_WARNING,
                            "The TSCs of different CPUs are not synchronized");
            finding_log_evidence(f, e);
            finding_meaning(f, "arch/x86/kernel/tsc_sync.c found the CPUs' TSCs apart at boot: "
                            "the TSC cannot be a system-wide clock, so the kernel does not use it.");
            finding_fix(f, "firmware: update the BIOS/UEFI (it must start the TSCs together or "
                        "program TSC_ADJUST); do NOT boot with tsc=reliable: time would go "
                        "backwards between CPUs");
        } else if (e->reason == TSC_R_CALIBRATION) {
            jd->tsc_unusable_why = "the kernel could not calibrate the TSC";
            jd->tsc_unusable_native = true;
            continue; /* the calibration finding carries it */
        } else if (e->reason == TSC_R_CMDLINE) {
            jd->tsc_unusable_why = "the command line told the kernel not to use the TSC";
            continue; /* the command-line finding carries it */
        } else {
            jd->tsc_unusable_why = "the kernel marked the TSC unstable";
            f = finding_add(d, "tsc-marked-unstable", SEV_WARNING,
                            "The kernel marked the TSC unstable: %s", e->name);
            finding_log_evidence(f, e);
            finding_meaning(f, "mark_tsc_unstable() (arch/x86/kernel/tsc.c) takes the TSC out of "
                            "use for the whole boot; reasons such as \"TSC halts in idle\" or "
                            "\"cpufreq changes\" mean a CPU without an invariant TSC (no "
                            "constant_tsc/nonstop_tsc).");
            finding_fix(f, "a CPU with an invariant TSC, or a kernel that knows this CPU's TSC "
                        "is invariant; tsc=reliable only if the TSC really is constant-rate "
                        "(risk: wrong time otherwise)");
        }
        coarse_fix(f, p);
    }
}

static void rule_tsc_warp(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->ctx;
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
    coarse_fix(f, p);
}

static void rule_tsc_calibration(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->ctx;
    const struct logscan *s = &c->log;
    bool fatal = false;
    for (int i = 0; i < s->calibration.n; i++) {
        const char *l = s->calibration.e[i].lines[0];
        /* "Fast TSC calibration failed" and "Unable to calibrate against PIT" are first
         * attempts: the HPET/PM-timer reference calibration follows ("using HPET reference
         * calibration").  Only its failure leaves the TSC without a frequency. */
        if (strcasestr(l, "HPET/PMTIMER calibration failed") || strcasestr(l, "could not calculate"))
            fatal = true;
    }
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
    coarse_fix(f, p);
}

static void rule_tsc_missing(struct diagnosis *d, struct judgement *jd)
{
    const struct machine *c = &d->ctx;
    if (strcmp(c->family, "x86") != 0 || !c->available_cs[0] || machine_cs_available(c, "tsc") ||
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
    finding_fix(f, "look for the reason: dmesg | grep -i -e tsc -e clocksource");
    finding_fix(f, "kernel upgrade (newer kernels calibrate and trust more CPUs' TSCs); firmware update");
    if (!jd->tsc_unusable_why)
        jd->tsc_unusable_why = "the TSC is not in the available list";
    jd->tsc_unusable = true;
}

/* ---- arm, riscv --------------------------------------------------------------------- */

static void rule_arm_errata(struct diagnosis *d, const struct proof *p)
{
    const struct logscan *s = &d->ctx.log;
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
        coarse_fix(f, p);
    }
    for (int i = 0; i < s->arm_compat.n && i < 1; i++) {
        struct finding *f = finding_add(d, "arm-erratum-compat-vdso-only", SEV_INFO,
                                        "ARM erratum 1418040 only affects 32-bit processes");
        finding_log_evidence(f, &s->arm_compat.e[i]);
        finding_meaning(f, "Its workaround disables the 32-bit compat vDSO "
                        "(VDSO_CLOCKMODE_ARCHTIMER_NOCOMPAT); 64-bit processes keep the fast path.");
    }
}

/* ---- the command line --------------------------------------------------------------- */

static void rule_cmdline(struct diagnosis *d, struct judgement *jd)
{
    struct machine *c = &d->ctx;
    if (!c->cmdline[0])
        return;
    char v[128];
    const char *where = "it comes from the boot loader (GRUB_CMDLINE_LINUX in /etc/default/grub) "
                        "or is built into the kernel (CONFIG_CMDLINE: zcat /proc/config.gz | grep "
                        "CMDLINE)";
    if (cmdline_param(c->cmdline, "clocksource", v, sizeof v) ||
        cmdline_param(c->cmdline, "clock", v, sizeof v)) {
        if (is(v, "pmtmr"))
            snprintf(v, sizeof v, "acpi_pm");
        struct cs_judgement j;
        cs_judge(c, v, &j);
        bool slow = j.cls == CS_SYSCALL || j.cls == CS_DEVICE_READ;
        struct finding *f = finding_add(d, "cmdline-clocksource", slow ? SEV_WARNING : SEV_NOTICE,
                                        "The command line selects clocksource '%s'", v);
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        meaning_from_judgement(f, "clocksource= overrides the kernel's choice whenever that "
                               "clocksource registers (kernel/time/clocksource.c, "
                               "boot_override_clocksource). ", &j);
        if (c->current_cs[0] && !is(c->current_cs, v))
            finding_meaning(f, "It did not take effect here: the current clocksource is '%s'.",
                            c->current_cs);
        if (slow) {
            jd->cmdline_forces_slow = true;
            snprintf(jd->forced_cs, sizeof jd->forced_cs, "%.*s", (int)sizeof jd->forced_cs - 1, v);
            finding_fix(f, "remove clocksource=%s from the command line; %s", v, where);
        }
    }
    if (cmdline_param(c->cmdline, "tsc", v, sizeof v)) {
        if (strstr(v, "unstable")) {
            jd->cmdline_forces_slow = !strcmp(c->family, "x86") || !c->family[0];
            struct finding *f = finding_add(d, "cmdline-tsc-unstable", SEV_WARNING,
                                            "tsc=unstable on the command line takes the TSC out of use");
            finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
            finding_meaning(f, "tsc_setup() marks the TSC unstable at boot (\"Marking TSC unstable "
                            "due to boot parameter\"): the kernel uses HPET or ACPI PM timer, "
                            "syscall-only.");
            finding_fix(f, "remove tsc=unstable unless it works around a known TSC fault; %s", where);
            jd->tsc_unusable = true;
            jd->tsc_unusable_why = "tsc=unstable on the command line";
        }
        if (strstr(v, "reliable")) {
            struct finding *f = finding_add(d, "cmdline-tsc-reliable", SEV_NOTICE,
                                            "tsc=reliable: the kernel no longer checks the TSC");
            finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
            finding_meaning(f, "It turns off the clocksource watchdog and the boot-time sync "
                            "check for the TSC: fast, but a TSC that drifts between CPUs or "
                            "stops in idle would make time wrong, unnoticed.");
            if (c->cpu.parsed && !(cpuinfo_has_flag(&c->cpu, "constant_tsc") &&
                                   cpuinfo_has_flag(&c->cpu, "nonstop_tsc"))) {
                f->severity = SEV_WARNING;
                finding_evidence(f, "cpuinfo lacks constant_tsc or nonstop_tsc");
            }
            finding_fix(f, "keep it only on CPUs with constant_tsc and nonstop_tsc whose TSCs are "
                        "known to be synchronized; otherwise remove it; %s", where);
        }
        if (strstr(v, "nowatchdog")) {
            struct finding *f = finding_add(d, "cmdline-tsc-nowatchdog", SEV_INFO,
                                            "tsc=nowatchdog: the TSC is not checked by the watchdog");
            finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
            finding_meaning(f, "The boot-time synchronization check still runs.");
        }
    }
    if (cmdline_param(c->cmdline, "notsc", v, sizeof v)) {
        jd->cmdline_forces_slow = !strcmp(c->family, "x86") || !c->family[0];
        jd->tsc_unusable = true;
        jd->tsc_unusable_why = "notsc on the command line";
        struct finding *f = finding_add(d, "cmdline-notsc", SEV_WARNING,
                                        "notsc on the command line disables the TSC as a clocksource");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_meaning(f, "The kernel then uses HPET, ACPI PM timer or jiffies, none of which "
                        "the vDSO can read.");
        finding_fix(f, "remove notsc; %s", where);
    }
    if (cmdline_param(c->cmdline, "nohpet", v, sizeof v) ||
        (cmdline_param(c->cmdline, "hpet", v, sizeof v) && is(v, "disable"))) {
        struct finding *f = finding_add(d, "cmdline-nohpet", SEV_INFO,
                                        "The HPET is disabled on the command line");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_meaning(f, "Harmless for reads; the clocksource watchdog then uses the ACPI PM "
                        "timer (in VMs an emulated device whose delayed reads can accuse a good TSC).");
    }
    if (cmdline_param(c->cmdline, "vdso", v, sizeof v) && is(v, "0")) {
        jd->cmdline_forces_slow = true;
        struct finding *f = finding_add(d, "cmdline-vdso-off", SEV_WARNING,
                                        "vdso=0: the vDSO is not mapped, every time read is a syscall");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_fix(f, "remove vdso=0; %s", where);
    }
    if (cmdline_param(c->cmdline, "no-kvmclock-vsyscall", v, sizeof v)) {
        struct finding *f = finding_add(d, "cmdline-no-kvmclock-vsyscall",
                                        is(c->current_cs, "kvm-clock") ? SEV_WARNING : SEV_NOTICE,
                                        "no-kvmclock-vsyscall keeps kvm-clock out of the vDSO");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_fix(f, "remove no-kvmclock-vsyscall; %s", where);
    }
    if (cmdline_param(c->cmdline, "no-kvmclock", v, sizeof v)) {
        struct finding *f = finding_add(d, "cmdline-no-kvmclock", SEV_INFO,
                                        "no-kvmclock: the guest does not use kvm-clock");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_meaning(f, "Fine when the TSC is stable (then tsc is current); otherwise the guest "
                        "falls back to HPET or ACPI PM timer.");
    }
    /* The log's command line differs from /proc/cmdline: one of them is not what the
     * admin thinks (built-in parts, a different boot entry). */
    if (is(c->cmdline_source, "proc/cmdline") && c->log.cmdline[0] &&
        strcmp(c->log.cmdline, c->cmdline) != 0) {
        struct finding *f = finding_add(d, "cmdline-differs", SEV_INFO,
                                        "The kernel log's command line differs from /proc/cmdline");
        finding_evidence(f, "proc/cmdline: %s", c->cmdline);
        finding_evidence(f, "kernel log: %s", c->log.cmdline);
        finding_meaning(f, "Parts may be built into the kernel (CONFIG_CMDLINE) or come from "
                        "another boot entry; the rules read /proc/cmdline.");
    }
}

static void rule_override_refused(struct diagnosis *d)
{
    const struct logscan *s = &d->ctx.log;
    if (!s->override_refused.n)
        return;
    struct finding *f = finding_add(d, "clocksource-override-refused", SEV_NOTICE,
                                    "The kernel refused to switch to '%s'", s->override_refused.e[0].name);
    finding_log_evidence(f, &s->override_refused.e[0]);
    finding_meaning(f, "A clocksource= parameter or a write to current_clocksource asked for a "
                    "clocksource that is unstable or cannot drive high-resolution timers.");
}

static void rule_benign(struct diagnosis *d)
{
    const struct logscan *s = &d->ctx.log;
    for (int i = 0; i < s->benign.n && i < 3; i++) {
        const struct log_event *e = &s->benign.e[i];
        const char *l = e->lines[0];
        struct finding *f;
        if (strcasestr(l, "TSC_DEADLINE")) {
            f = finding_add(d, "tsc-deadline-erratum-benign", SEV_INFO,
                            "TSC_DEADLINE erratum: about the APIC timer, not the clock");
            finding_meaning(f, "Old microcode makes the kernel drive the local APIC timer in "
                            "one-shot mode instead of TSC-deadline mode; reading the time is "
                            "unaffected. A microcode update removes the message.");
        } else if (strcasestr(l, "TSC ADJUST") || strcasestr(l, "Skipped synchronization") ||
                   strcasestr(l, "passed")) {
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

static void rule_cpu_flags(struct diagnosis *d)
{
    const struct machine *c = &d->ctx;
    if (strcmp(c->family, "x86") != 0 || !c->cpu.parsed || !c->cpu.flags[0])
        return;
    static const char *const flags[] = {"tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq",
                                        "tsc_reliable", "rdtscp", "tsc_adjust", "hypervisor"};
    char have[256] = "", lack[256] = "";
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

static void rule_cpu_time_and_coarse(struct diagnosis *d, const struct proof *p)
{
    struct finding *f = finding_add(d, "cputime-clocks-syscall", SEV_INFO,
                                    "CPU-time clocks always enter the kernel");
    finding_meaning(f, "CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID and clock IDs from "
                    "clock_getcpuclockid() have no vDSO path on any clocksource "
                    "(lib/vdso/gettimeofday.c serves only the hres and coarse clocks); code that "
                    "times itself with them pays a syscall per read.");
    if (p && p->ran) {
        const struct proof_timing *sys = proof_timing_find(p, "syscall.clock_gettime.monotonic");
        if (sys)
            finding_evidence(f, "a clock_gettime syscall costs %.0f ns here", sys->ns_per_call);
    }
}

/* ---- the live proof ----------------------------------------------------------------- */

static void rule_proof(struct diagnosis *d, const struct proof *p)
{
    if (!p || !p->ran)
        return;
    const struct proof_timing *mono = proof_timing_find(p, "libc.clock_gettime.monotonic");
    const struct proof_timing *real = proof_timing_find(p, "libc.clock_gettime.realtime");
    const struct proof_timing *sys = proof_timing_find(p, "syscall.clock_gettime.monotonic");
    const struct proof_timing *coarse = proof_timing_find(p, "libc.clock_gettime.monotonic_coarse");
    struct finding *f;
    if (p->counted) {
        bool fast = p->syscalls[PC_MONOTONIC] == 0 && p->syscalls[PC_REALTIME] == 0;
        f = finding_add(d, fast ? "proof-no-syscalls" : "proof-syscalls", fast ? SEV_INFO : SEV_WARNING,
                        fast ? "Proof: %ld clock_gettime calls made no syscall"
                             : "Proof: clock_gettime makes a syscall on every call", p->calls);
        for (int c = 0; c < PC_COUNT; c++)
            finding_evidence(f, "%ld calls of %s made %ld syscalls (counted by a seccomp "
                             "SECCOMP_RET_TRAP filter)", p->calls, proof_call_name(c), p->syscalls[c]);
    } else {
        f = finding_add(d, "proof-not-counted", SEV_NOTICE,
                        "The syscall count could not be taken here");
        finding_evidence(f, "%s", p->count_why);
        finding_meaning(f, "The verdict rests on timing and on the facts.");
    }
    if (mono)
        finding_evidence(f, "libc clock_gettime(CLOCK_MONOTONIC): %.1f ns per call%s",
                         mono->ns_per_call, mono->noisy ? " (noisy)" : "");
    if (real)
        finding_evidence(f, "libc clock_gettime(CLOCK_REALTIME): %.1f ns per call", real->ns_per_call);
    if (sys)
        finding_evidence(f, "raw clock_gettime syscall: %.1f ns per call", sys->ns_per_call);
    if (coarse)
        finding_evidence(f, "clock_gettime(CLOCK_MONOTONIC_COARSE): %.1f ns per call, resolution %.3f ms",
                         coarse->ns_per_call, p->res_ns_monotonic_coarse / 1e6);
    for (int i = 0; i < p->ntimings; i++)
        if (!strncmp(p->timing[i].id, "counter.", 8)) {
            if (p->timing[i].ok)
                finding_evidence(f, "raw counter read %s: %.1f ns", p->timing[i].id + 8,
                                 p->timing[i].ns_per_call);
            else
                finding_evidence(f, "raw counter read %s: not permitted (%s)", p->timing[i].id + 8,
                                 p->timing[i].why);
        }
    if (mono && sys && sys->ns_per_call > 0 && p->counted && p->syscalls[PC_MONOTONIC] == 0)
        finding_gain(f, "the vDSO path costs %.1f ns, the syscall it avoids %.1f ns: %.1fx cheaper",
                     mono->ns_per_call, sys->ns_per_call,
                     sys->ns_per_call / (mono->ns_per_call > 0.1 ? mono->ns_per_call : 0.1));
    else if (mono && sys && coarse)
        finding_gain(f, "measured here: clock_gettime %.1f ns, raw syscall %.1f ns, COARSE %.1f ns; "
                     "a healthy vDSO path costs tens of ns", mono->ns_per_call, sys->ns_per_call,
                     coarse->ns_per_call);
    if (!p->vdso_present) {
        struct finding *v = finding_add(d, "no-vdso", SEV_WARNING,
                                        "This process has no vDSO clock_gettime");
        finding_evidence(v, "%s", p->vdso_why);
        finding_meaning(v, "Without a vDSO every time read is a syscall (vdso=0, a kernel "
                        "without a vDSO for this ABI). Under qemu-user there is never a vDSO: "
                        "run the doctor on the real machine or in a full-system VM.");
    }
    /* The counter itself: a read that costs microseconds is a trap to firmware or the
     * hypervisor (riscv time CSR emulated by OpenSBI; an arm64 CNTVCT trap). */
    for (int i = 0; i < p->ntimings; i++) {
        const struct proof_timing *t = &p->timing[i];
        if (!t->ok || strncmp(t->id, "counter.", 8) != 0 || !strcmp(t->id, "counter.rdcycle"))
            continue;
        if (t->ns_per_call < 500)
            continue;
        struct finding *c = finding_add(d, "counter-read-traps", SEV_WARNING,
                                        "Reading the counter (%s) costs %.0f ns: it traps",
                                        t->id + 8, t->ns_per_call);
        finding_evidence(c, "%s: %.1f ns per read", t->id, t->ns_per_call);
        const struct proof_timing *cyc = proof_timing_find(p, "counter.rdcycle");
        if (cyc)
            finding_evidence(c, "rdcycle: %.1f ns per read (the core itself is fast)", cyc->ns_per_call);
        finding_meaning(c, "A hardware counter read takes a few ns to tens of ns. Microseconds "
                        "mean the instruction traps and is emulated: on riscv, the time CSR read "
                        "by M-mode firmware (OpenSBI) or the hypervisor; on arm64 a CNTVCT trap. "
                        "The vDSO's clock_gettime pays it on every call.");
        finding_fix(c, "firmware/hardware: a core or SoC that implements the time CSR in hardware, "
                    "or firmware that lets S/U-mode read it (mcounteren.TM); in a VM, a hypervisor "
                    "that does not trap it");
        coarse_fix(c, p);
    }
}

/* ---- the counter, as the CPU states it ------------------------------------------------ */

static void rule_counter_facts(struct diagnosis *d)
{
    const struct counter_facts *k = &d->ctx.counter;
    if (!k->known)
        return;
    struct finding *f = finding_add(d, "counter-facts", SEV_INFO,
                                    "The hardware counter, as the CPU states it");
    if (k->hz[0])
        finding_evidence(f, "counter frequency %s Hz (%s)", k->hz, k->hz_source);
    else
        finding_evidence(f, "counter frequency not stated by the CPU");
    if (k->invariant >= 0)
        finding_evidence(f, "constant-rate (invariant) counter: %s", k->invariant ? "yes" : "no");
    if (k->kvm_stable_bit >= 0)
        finding_evidence(f, "KVM offers the kvm-clock stable bit (CPUID 0x40000001 EAX[24]): %s",
                         k->kvm_stable_bit ? "yes" : "no");
    for (int i = 0; i < k->nreads; i++)
        finding_evidence(f, "user-space read %s", k->reads[i]);
    if (k->perf_user_access[0])
        finding_evidence(f, "kernel.perf_user_access = %s (riscv/arm64: whether user space may read "
                         "the cycle counter; 2 permits it on riscv)", k->perf_user_access);
    if (k->vdso != VDSO_UNKNOWN)
        finding_evidence(f, "vDSO: %s", k->vdso == VDSO_ABSENT               ? "absent"
                                        : k->vdso == VDSO_HAS_CLOCK_GETTIME ? "has clock_gettime"
                                                                            : "no clock_gettime");
}

/* ---- emulation ------------------------------------------------------------------------ */

/* A live run whose kernel clocksource belongs to another architecture than this binary:
 * user-mode emulation (qemu-user), where every fact is the host's and no timing is real. */
static bool rule_foreign_kernel(struct diagnosis *d)
{
    const struct machine *c = &d->ctx;
    const char *home = c->current_cs[0] ? cs_home(c->current_cs) : NULL;
    if (!home || !c->family[0] || !strncmp(c->family, home, strlen(home)))
        return false;
    struct finding *f = finding_add(d, "emulated-foreign-kernel", SEV_NOTICE,
                                    "The kernel's clocksource '%s' belongs to %s, this program is %s: "
                                    "user-mode emulation", c->current_cs, home, c->machine[0] ? c->machine : c->family);
    finding_evidence(f, "current clocksource: %s (from %s)", c->current_cs, c->current_cs_source);
    finding_evidence(f, "machine: %s (from %s)", c->machine, c->family_source);
    finding_meaning(f, "Under qemu-user the program sees the host's kernel and no vDSO, and every "
                    "instruction is translated: neither the facts nor the timings describe a %s "
                    "machine.", c->family);
    finding_fix(f, "run the doctor on the real machine or in a full-system VM (qemu-system-*)");
    return true;
}

/* ---- the verdict --------------------------------------------------------------------- */

static void set_verdict(struct diagnosis *d, enum verdict v, int fast_path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_verdict(struct diagnosis *d, enum verdict v, int fast_path, const char *fmt, ...)
{
    d->verdict = v;
    d->fast_path = fast_path;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->summary, sizeof d->summary, fmt, ap);
    va_end(ap);
}

static void verdict_from_facts(struct diagnosis *d, const struct judgement *jd)
{
    const struct machine *c = &d->ctx;
    if (jd->cs_known) {
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
            set_verdict(d, V_UNKNOWN, -1, "clocksource '%s': %s; a live run decides",
                        c->current_cs, jd->cs.why);
            return;
        case CS_COUNTER_TRAP:
            set_verdict(d, V_UNKNOWN, 1, "clocksource '%s' is read by the vDSO, but whether the "
                        "time CSR traps to firmware needs a live run", c->current_cs);
            return;
        default:
            set_verdict(d, V_UNKNOWN, -1, "clocksource '%s' is not one this doctor knows",
                        c->current_cs);
            return;
        }
    }
    if (jd->cmdline_forces_slow && jd->forced_cs[0]) {
        set_verdict(d, V_SLOW, 0, "the command line forces clocksource '%s', which has no vDSO "
                    "path", jd->forced_cs);
        return;
    }
    if (!strcmp(c->family, "x86")) {
        if (jd->tsc_unusable) {
            if (machine_is_bare_metal(c) || jd->tsc_unusable_native) {
                set_verdict(d, V_SLOW, 0, "%s, and %s", jd->tsc_unusable_why,
                            jd->tsc_unusable_native ? "no paravirtual clock is in use: the "
                            "fallback (HPET, ACPI PM timer) is syscall-only"
                                                    : "on bare metal the fallback (HPET, ACPI "
                                                      "PM timer) is syscall-only");
                return;
            }
            if (c->available_cs[0]) {
                bool any = false;
                char copy[256];
                snprintf(copy, sizeof copy, "%s", c->available_cs);
                for (char *save, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
                    struct cs_judgement j;
                    cs_judge(c, t, &j);
                    if (j.cls != CS_SYSCALL && j.cls != CS_DEVICE_READ && !is_tsc(t))
                        any = true;
                }
                if (!any) {
                    set_verdict(d, V_SLOW, 0, "%s, and every other available clocksource (%s) "
                                "is syscall-only", jd->tsc_unusable_why, c->available_cs);
                    return;
                }
            }
            set_verdict(d, V_UNKNOWN, -1, "%s; in a VM a paravirtual clock may still serve the "
                        "vDSO, and the facts do not say which clocksource is current",
                        jd->tsc_unusable_why);
            return;
        }
        if (machine_is_bare_metal(c)) {
            set_verdict(d, V_OK, 1, "bare-metal x86 with no sign of TSC trouble: Linux selects "
                        "the TSC, which the vDSO reads (inferred; the clocksource itself was not "
                        "given)");
            return;
        }
        set_verdict(d, V_UNKNOWN, -1, "the clocksource is not known%s", machine_is_vm(c)
                    ? " and in a VM it may be a paravirtual clock" : "");
        return;
    }
    if (!strcmp(c->family, "arm64")) {
        if (c->log.arm_errata.n) {
            set_verdict(d, V_SLOW, 0, "a timer erratum workaround traps CNTVCT and turns the "
                        "vDSO counter off");
            return;
        }
        if (c->log.read && c->log.lines > 0 && (c->log.arch_timer || c->log.switches.n)) {
            set_verdict(d, V_OK, 1, "arm64 with the architected timer and no trapping erratum in "
                        "the kernel log: the vDSO reads CNTVCT_EL0 (inferred)");
            return;
        }
        if (machine_is_vm(c)) {
            /* Guests see the architected timer, and the erratum-affected parts (Allwinner A64,
             * NXP LS10xx/LS20xx, HiSilicon Hip05-07, Cortex-A73) are boards and old servers. */
            set_verdict(d, V_OK, 1, "arm64 %s guest with no sign of a timer erratum: the vDSO reads "
                        "CNTVCT_EL0 from arch_sys_counter (inferred; neither the clocksource nor the "
                        "kernel log was given)", c->virt);
            return;
        }
        set_verdict(d, V_UNKNOWN, -1, "arm64 without the clocksource or a kernel log: a timer "
                    "erratum cannot be ruled out");
        return;
    }
    if (!strcmp(c->family, "riscv") && c->kernel.known && kernel_version_cmp(&c->kernel, 5, 8) < 0) {
        set_verdict(d, V_SLOW, 0, "riscv kernel %s: its vDSO makes the syscall", c->kernel.release);
        return;
    }
    set_verdict(d, V_UNKNOWN, -1, "the facts do not decide it: the clocksource is not known");
}

static void verdict_from_proof(struct diagnosis *d, const struct proof *p)
{
    const struct proof_timing *mono = proof_timing_find(p, "libc.clock_gettime.monotonic");
    if (p->counted) {
        d->decided_by_proof = true;
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
        for (int i = 0; i < d->nfindings; i++)
            if (!strcmp(d->findings[i].id, "counter-read-traps")) {
                set_verdict(d, V_SLOW, 1, "no syscalls, but the counter the vDSO reads traps: %s",
                            d->findings[i].title);
                return;
            }
        if (mono && mono->ns_per_call > 1000) {
            set_verdict(d, V_SLOW, 1, "no syscalls, but each clock_gettime costs %.0f ns (a "
                        "device read or a trapping counter)", mono->ns_per_call);
            return;
        }
        set_verdict(d, V_OK, 1, "proven: %ld calls of clock_gettime(MONOTONIC) and (REALTIME) "
                    "made 0 syscalls", p->calls);
        if (mono)
            snprintf(d->summary + strlen(d->summary), sizeof d->summary - strlen(d->summary),
                     ", %.1f ns per call", mono->ns_per_call);
        return;
    }
    if (!p->vdso_present) {
        set_verdict(d, V_SLOW, 0, "this process has no vDSO: every time read is a syscall (%s)",
                    p->vdso_why);
        return;
    }
    /* Not counted: keep the facts' verdict, which the findings explain. */
}

void diagnose(const struct facts *fs, const struct proof *p, struct diagnosis *d)
{
    memset(d, 0, sizeof *d);
    machine_derive(fs, &d->ctx);
    struct judgement jd;
    memset(&jd, 0, sizeof jd);
    /* Under user-mode emulation the kernel facts are the host's: judging them as this
     * architecture's would be confidently wrong. */
    bool emulated = fs->live && rule_foreign_kernel(d);
    if (!emulated) {
        rule_clocksource(d, &jd, p);
        rule_cmdline(d, &jd);
        if (!strcmp(d->ctx.family, "x86") || !d->ctx.family[0]) {
            rule_tsc_demotions(d, &jd, p);
            rule_tsc_unstable_reasons(d, &jd, p);
            rule_tsc_warp(d, &jd, p);
            rule_tsc_calibration(d, &jd, p);
            rule_tsc_missing(d, &jd);
        }
        rule_arm_errata(d, p);
        rule_override_refused(d);
        rule_benign(d);
        rule_cpu_flags(d);
    }
    rule_counter_facts(d);
    rule_proof(d, p);
    rule_cpu_time_and_coarse(d, p);
    verdict_from_facts(d, &jd);
    if (p && p->ran)
        verdict_from_proof(d, p);
    if (emulated && !d->decided_by_proof)
        set_verdict(d, V_UNKNOWN, -1, "user-mode emulation: the kernel facts are another "
                    "machine's and this process has %s", p && p->ran && !p->vdso_present
                    ? "no vDSO" : "emulated timings");
}
