/* SPDX-License-Identifier: MIT */
/* The kernel command line: parameters that choose or forbid clocksources, the TSC, the
 * vDSO and kvm-clock. */
#include "doctor/rules.h"

#include "doctor/findings.h"

#include <stdio.h>
#include <string.h>

rule_fn rule_cmdline;

/* tsc=unstable, tsc=reliable, tsc=nowatchdog (v: the tsc= value). */
static void cmdline_tsc(struct diagnosis *d, struct judgement *jd, const char *v, const char *where)
{
    const struct machine *c = &d->machine;
    if (strstr(v, "unstable")) {
        jd->cmdline_forces_slow = !strcmp(c->family, "x86") || !c->family[0];
        struct finding *f = finding_add(d, "cmdline-tsc-unstable", SEV_WARNING,
                                        "tsc=unstable on the command line takes the TSC out of use");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_meaning(f, "tsc_setup() marks the TSC unstable at boot (\"Marking TSC unstable "
                        "due to boot parameter\"): the kernel uses HPET or ACPI PM timer, "
                        "syscall-only.");
        finding_fix(f, "remove tsc=unstable unless it works around a known TSC fault; %s", where);
        finding_action_cmdline(f, NULL, "tsc=unstable", "wrong time if it worked around a known TSC fault");
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
        finding_action_cmdline(f, NULL, "tsc=reliable", "the watchdog checks the TSC again and "
                               "may demote it: then reads become syscalls");
    }
    if (strstr(v, "nowatchdog")) {
        struct finding *f = finding_add(d, "cmdline-tsc-nowatchdog", SEV_INFO,
                                        "tsc=nowatchdog: the TSC is not checked by the watchdog");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_meaning(f, "The boot-time synchronization check still runs.");
    }
}

/* Whether the kernel log's copy of the command line is /proc/cmdline cut by a log line
 * limit: clockscope's own (KLOG_LINE_MAX, less a prefix of up to 128 characters: the
 * timestamp, a syslog host and tag), the kernel's printk limit (about 1000 characters before
 * 6.x), or a tool's.  Every such limit leaves at least LOG_CUT_MIN characters, so a shorter
 * prefix is a different command line (parameters added after boot, another entry). */
#define LOG_CUT_MIN (KLOG_LINE_MAX - 128)
static bool log_copy_cut(const char *log_copy, const char *proc_cmdline)
{
    size_t n = strlen(log_copy);
    return n >= LOG_CUT_MIN && n < strlen(proc_cmdline) && strncmp(proc_cmdline, log_copy, n) == 0;
}

/* clocksource= (or its older name clock=): slow when the vDSO cannot read what it forces. */
static void cmdline_clocksource(struct diagnosis *d, struct judgement *jd, const char *where)
{
    struct machine *c = &d->machine;
    char v[128];
    const char *key = "clocksource";
    if (!cmdline_param(c->cmdline, "clocksource", v, sizeof v) &&
        !cmdline_param(c->cmdline, (key = "clock"), v, sizeof v))
        return;
    char given[sizeof v];
    snprintf(given, sizeof given, "%s", v);
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
        char param[160];
        snprintf(param, sizeof param, "%s=%s", key, given);
        finding_action_cmdline(f, NULL, param, "none: the kernel then chooses the best clocksource");
    }
}

/* The log's command line differs from /proc/cmdline: one of them is not what the
 * admin thinks (built-in parts, a different boot entry).  A log copy cut by a line
 * limit is the same command line. */
static void cmdline_log_differs(struct diagnosis *d)
{
    const struct machine *c = &d->machine;
    if (!(is(c->cmdline_source, "proc/cmdline") && c->log.cmdline[0] &&
          strcmp(c->log.cmdline, c->cmdline) != 0 && !log_copy_cut(c->log.cmdline, c->cmdline)))
        return;
    struct finding *f = finding_add(d, "cmdline-differs", SEV_INFO,
                                    "The kernel log's command line differs from /proc/cmdline");
    finding_evidence(f, "proc/cmdline: %s", c->cmdline);
    finding_evidence(f, "kernel log: %s", c->log.cmdline);
    finding_meaning(f, "Parts may be built into the kernel (CONFIG_CMDLINE) or come from "
                    "another boot entry; the rules read /proc/cmdline.");
}

void rule_cmdline(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)p;
    struct machine *c = &d->machine;
    if (!c->cmdline[0])
        return;
    char v[128];
    const char *where = "it comes from the boot loader (GRUB_CMDLINE_LINUX in /etc/default/grub) "
                        "or is built into the kernel (CONFIG_CMDLINE), which this shows: "
                        "`zcat /proc/config.gz | grep CMDLINE`";
    cmdline_clocksource(d, jd, where);
    if (cmdline_param(c->cmdline, "tsc", v, sizeof v))
        cmdline_tsc(d, jd, v, where);
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
        finding_action_cmdline(f, NULL, "notsc", "none on CPUs with a working TSC");
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
        finding_action_cmdline(f, NULL, "vdso=0", "none");
    }
    if (cmdline_param(c->cmdline, "no-kvmclock-vsyscall", v, sizeof v)) {
        struct finding *f = finding_add(d, "cmdline-no-kvmclock-vsyscall",
                                        is(c->current_cs, "kvm-clock") ? SEV_WARNING : SEV_NOTICE,
                                        "no-kvmclock-vsyscall keeps kvm-clock out of the vDSO");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_fix(f, "remove no-kvmclock-vsyscall; %s", where);
        finding_action_cmdline(f, NULL, "no-kvmclock-vsyscall", "none");
    }
    if (cmdline_param(c->cmdline, "no-kvmclock", v, sizeof v)) {
        struct finding *f = finding_add(d, "cmdline-no-kvmclock", SEV_INFO,
                                        "no-kvmclock: the guest does not use kvm-clock");
        finding_evidence(f, "command line (%s): %s", c->cmdline_source, c->cmdline);
        finding_meaning(f, "Fine when the TSC is stable (then tsc is current); otherwise the guest "
                        "falls back to HPET or ACPI PM timer.");
    }
    cmdline_log_differs(d);
}
