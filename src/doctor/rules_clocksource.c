/* SPDX-License-Identifier: MIT */
/* The current clocksource (the vDSO's view of it, paravirtual clocks: kvm-clock, Xen,
 * Hyper-V), refused overrides, and a kernel of another architecture (user-mode emulation). */
#include "doctor/rules.h"

#include "doctor/findings.h"

#include <stdio.h>
#include <string.h>

rule_fn rule_foreign_kernel, rule_clocksource, rule_override_refused;

/* The finding a clocksource class makes. */
struct cs_finding {
    const char *id;
    enum severity sev;
    const char *title; /* %s: the clocksource */
};

/* No current clocksource: say which of its sources were absent and which unreadable. */
static void clocksource_unknown(struct diagnosis *d, const struct machine *c)
{
    struct finding *f = finding_add(d, "clocksource-unknown", SEV_INFO,
                                    "The current clocksource is not known");
    /* Unreadable is "not known", never "absent": say which it was. */
    bool cs_unreadable = c->current_cs_unreadable[0], log_unreadable = c->log_unreadable[0];
    finding_evidence(f, "%s%s%s and %s%s%s", cs_unreadable
                     ? "current_clocksource unreadable (" : "no current_clocksource file",
                     c->current_cs_unreadable, cs_unreadable ? ")" : "",
                     log_unreadable ? "the kernel log unreadable ("
                     : "no \"Switched to clocksource\" line in the kernel log",
                     c->log_unreadable, log_unreadable ? ")" : "");
    finding_meaning(f, "The verdict rests on the other facts; a live `clockscope doctor` on "
                    "the machine reads it and proves the path.");
}

/* The first available clocksource, in order of preference, that the vDSO can serve. */
static const char *vdso_capable_alternative(const struct machine *c)
{
    static const char *const prefs[] = {"tsc", "arch_sys_counter", "hyperv_clocksource_tsc_page",
                                        "kvm-clock", "riscv_clocksource"};
    for (size_t i = 0; i < sizeof prefs / sizeof prefs[0]; i++)
        if (machine_cs_available(c, prefs[i]) && !is(prefs[i], c->current_cs)) {
            struct cs_judgement alt;
            cs_judge(c, prefs[i], &alt);
            if (alt.cls == CS_FAST || alt.cls == CS_DEPENDS)
                return prefs[i];
        }
    return NULL;
}

/* A clocksource that makes every read slow: switch to a better one, or say none is. */
static void slow_clocksource_fixes(struct finding *f, const struct machine *c,
                                   const struct proof *p)
{
    const char *better = vdso_capable_alternative(c);
    if (better)
        switch_fix(f, c, better);
    else if (c->available_cs[0])
        finding_fix(f, "no vDSO-capable clocksource is available (%s): see the other findings "
                    "for why; a kernel or firmware upgrade is the lasting fix", c->available_cs);
    coarse_fix(f, c, p);
    if (!better && c->available_cs[0])
        finding_action_firmware(f, "a kernel or firmware upgrade that registers a vDSO-capable "
                                "clocksource (see the other findings for why none is)", "none");
}

/* A clocksource the vDSO serves only on some kernels or hosts; Xen's fixes. */
static void conditional_clocksource_fixes(struct finding *f, const struct machine *c,
                                          const struct cs_judgement *j)
{
    if (j->pvclock)
        finding_meaning(f, "Whether the host sets the stable bit cannot be read from these facts.");
    finding_meaning(f, "A live `clockscope doctor` on the machine itself counts the syscalls "
                    "clock_gettime really makes.");
    if (is(c->current_cs, "xen") && machine_cs_available(c, "tsc")) {
        switch_fix(f, c, "tsc");
    } else if (is(c->current_cs, "xen")) {
        finding_fix(f, "on EC2, AWS recommends the tsc clocksource on Xen instances "
                    "(clocksource=tsc tsc=reliable; risk: trusts the host's TSC), or move "
                    "to a Nitro (KVM) instance type");
        finding_action_cmdline(f, "clocksource=tsc tsc=reliable", NULL, "trusts the host's TSC");
        finding_action_firmware(f, "a Nitro (KVM) instance type", "none");
    }
}

void rule_clocksource(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    if (!c->current_cs[0]) {
        clocksource_unknown(d, c);
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
    /* A Xen guest most likely pays a syscall per call: its pvclock finding is a warning
     * (the verdict is slow, inferred) and its fixes apply. */
    enum severity sev = j->pvclock && j->cls == CS_DEPENDS && is(c->current_cs, "xen") ? SEV_WARNING : k->sev;
    struct finding *f = finding_add(d, k->id, sev, k->title, c->current_cs);
    jd->counter_may_trap = j->cls == CS_COUNTER_TRAP;
    finding_evidence(f, "current clocksource: %s (from %s)", c->current_cs, c->current_cs_source);
    if (c->available_cs[0])
        finding_evidence(f, "available_clocksource: %s", c->available_cs);
    if (c->kernel.known)
        finding_evidence(f, "kernel %s (from %s)", c->kernel.release, c->kernel_source);
    meaning_from_judgement(f, "", j);
    if (j->cls == CS_SYSCALL || j->cls == CS_DEVICE_READ)
        slow_clocksource_fixes(f, c, p);
    else if (j->cls == CS_DEPENDS)
        conditional_clocksource_fixes(f, c, j);
}

void rule_override_refused(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd, (void)p;
    const struct logscan *s = &d->machine.log;
    if (!s->override_refused.n)
        return;
    struct finding *f = finding_add(d, "clocksource-override-refused", SEV_NOTICE,
                                    "The kernel refused to switch to '%s'", s->override_refused.e[0].name);
    finding_log_evidence(f, &s->override_refused.e[0]);
    finding_meaning(f, "A clocksource= parameter or a write to current_clocksource asked for a "
                    "clocksource that is unstable or cannot drive high-resolution timers.");
}

/* A live run whose kernel clocksource belongs to another architecture than this binary:
 * user-mode emulation (qemu-user), where every fact is the host's and no timing is real. */
void rule_foreign_kernel(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    const struct machine *c = &d->machine;
    const char *home = c->current_cs[0] ? cs_home(c->current_cs) : NULL;
    (void)p;
    if (!home || !c->family[0] || !strncmp(c->family, home, strlen(home)))
        return;
    jd->emulated = true;
    struct finding *f = finding_add(d, "emulated-foreign-kernel", SEV_NOTICE,
                                    "The kernel's clocksource '%s' belongs to %s, this program is %s: "
                                    "user-mode emulation", c->current_cs, home, c->machine[0] ? c->machine : c->family);
    finding_evidence(f, "current clocksource: %s (from %s)", c->current_cs, c->current_cs_source);
    finding_evidence(f, "machine: %s (from %s)", c->machine, c->family_source);
    finding_meaning(f, "Under qemu-user the program sees the host's kernel and no vDSO, and every "
                    "instruction is translated: neither the facts nor the timings describe a %s "
                    "machine.", c->family);
    finding_meaning(f, "Run the doctor on the real machine or in a full-system VM (qemu-system-*).");
}
