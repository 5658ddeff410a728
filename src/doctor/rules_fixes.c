/* SPDX-License-Identifier: MIT */
/* The fixes and sentences several rule families share, each fix as text and as data
 * (an action, docs/json.md): the application-side remedies, and switching clocksource. */
#include "doctor/rules.h"

#include "common/units.h"
#include "doctor/findings.h"
#include "common/clocksource_sysfs.h"

#include <ctype.h>
#include <stdio.h>

static bool switched_to_tsc_after(const struct logscan *s, size_t after)
{
    for (int i = 0; i < s->switches.n; i++)
        if (s->switches.e[i].lineno > after && is(s->switches.e[i].name, "tsc"))
            return true;
    return false;
}

/* Whether the kernel took the TSC out of use for this boot (the watchdog, a failed check,
 * a boot parameter, Hyper-V without invariant TSC): it then refuses to switch to it. */
bool tsc_marked_unstable(const struct machine *c)
{
    char v[64];
    if ((cmdline_param(c->cmdline, "tsc", v, sizeof v) && strstr(v, "unstable")) ||
        cmdline_param(c->cmdline, "notsc", v, sizeof v))
        return true;
    const struct logscan *s = &c->log;
    for (int i = 0; i < s->demotions.n; i++)
        if (is_tsc(s->demotions.e[i].name) && !s->demotions.e[i].failover_disabled &&
            !switched_to_tsc_after(s, s->demotions.e[i].lineno))
            return true;
    for (int i = 0; i < s->tsc_unstable.n; i++)
        if (!switched_to_tsc_after(s, s->tsc_unstable.e[i].lineno))
            return true;
    for (int i = 0; i < s->warps.n; i++)
        if (!switched_to_tsc_after(s, s->warps.e[i].lineno))
            return true;
    return false;
}

/* A counter libfastclock may serve from (`run --mode fast`): on x86 a TSC the kernel still
 * uses or offers, with a constant rate that does not stop in idle. */
static bool safe_counter(const struct machine *c)
{
    return c && is(c->family, "x86") && c->cpu.parsed &&
           cpuinfo_has_flag(&c->cpu, "constant_tsc") && cpuinfo_has_flag(&c->cpu, "nonstop_tsc") &&
           (machine_cs_available(c, "tsc") || is(c->current_cs, "tsc")) && !tsc_marked_unstable(c);
}

#define COARSE_RISK "tick resolution (1/CONFIG_HZ: 1-10 ms; clock_getres says): none for " \
                    "timeouts and rate limits; wrong for fine intervals"

void coarse_fix(struct finding *f, const struct machine *c, const struct proof *p)
{
    const struct proof_timing *mono = p ? proof_timing_find(p, "libc.clock_gettime.monotonic") : NULL;
    const struct proof_timing *coarse = p ? proof_timing_find(p, "libc.clock_gettime.monotonic_coarse") : NULL;
    if (mono && coarse && !f->gain[0] && coarse->ns_per_call > 0)
        finding_gain(f, "measured here: clock_gettime(CLOCK_MONOTONIC) %s per call, "
                     "CLOCK_MONOTONIC_COARSE %s (%.0fx cheaper)", NS_TEXT(mono->ns_per_call),
                     NS_TEXT(coarse->ns_per_call), mono->ns_per_call / coarse->ns_per_call);
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
    finding_fix(f, "unmodified programs: `clockscope run --mode coarse -- CMD` answers their "
                "CLOCK_REALTIME/MONOTONIC reads from the COARSE clocks (tick resolution); "
                "`clockscope run -- CMD` serves them from the CPU counter through libfastclock "
                "only where the counter is still safe, else passes them through (docs/run.md)");
    /* Where a safe counter exists, full resolution without the kernel comes first. */
    if (safe_counter(c))
        finding_action_run(f, "fast", "low: libfastclock checks the counter at start and "
                           "passes the calls through when it is not safe (docs/run.md)");
    finding_action_run(f, "coarse", COARSE_RISK);
    finding_action_code(f, "read CLOCK_MONOTONIC_COARSE / CLOCK_REALTIME_COARSE where tick "
                        "resolution is enough, fastclock_recent_ns() (libfastclock) for a recent "
                        "time without a counter read, or read the time less often",
                        "COARSE clocks: wrong for fine intervals");
}

void switch_fix(struct finding *f, const struct machine *c, const char *to)
{
    if (is_tsc(to) && tsc_marked_unstable(c)) {
        finding_fix(f, "not now: switching to %s is refused, the kernel marked the TSC unstable "
                    "this boot (writing %s to current_clocksource fails) and clocksource=%s is "
                    "ignored while it stays so; the TSC findings say which remedy applies "
                    "(tsc=reliable, with its risk, or the application side)", to, to, to);
        return;
    }
    finding_fix(f, "now, until reboot: `echo %s | sudo tee " CLOCKSOURCE_SYSFS_DIR "/"
                CLOCKSOURCE_CURRENT "` (risk: low when '%s' is listed in available_clocksource; "
                "the kernel refuses a clocksource it marked unstable, and the watchdog may demote "
                "it again)", to, to);
    finding_fix(f, "every boot: add clocksource=%s to the kernel command line (risk: ignored if "
                "'%s' does not register; the kernel log says after the reboot), with grubby "
                "(Fedora, RHEL): `sudo grubby --update-kernel=ALL --args=clocksource=%s` "
                "elsewhere add it to GRUB_CMDLINE_LINUX in /etc/default/grub, then run update-grub "
                "or grub2-mkconfig", to, to, to);
    if (machine_cs_available(c, to))
        finding_action_sysfs(f, CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_CURRENT, to,
                             "low: until reboot; the watchdog may demote it again");
    char add[64], old[64], remove[80] = "";
    snprintf(add, sizeof add, "clocksource=%s", to);
    if (cmdline_param(c->cmdline, "clocksource", old, sizeof old) && !is(old, to))
        snprintf(remove, sizeof remove, "clocksource=%s", old);
    finding_action_cmdline(f, add, remove, "ignored if the clocksource does not register");
}

/* The judgement's reason as a sentence of a finding's meaning: capitalised, with a full stop
 * (`before` is prose that goes first, or ""). */
void meaning_from_judgement(struct finding *f, const char *before,
                                   const struct cs_judgement *j)
{
    char why[sizeof j->why];
    snprintf(why, sizeof why, "%s", j->why);
    why[0] = (char)toupper((unsigned char)why[0]);
    finding_meaning(f, "%s%s.", before, why);
}
