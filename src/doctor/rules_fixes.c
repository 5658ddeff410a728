/* SPDX-License-Identifier: MIT */
/* The fixes and sentences several rule families share. */
#include "doctor/rules.h"

#include "doctor/findings.h"
#include "common/clocksource_sysfs.h"

#include <ctype.h>
#include <stdio.h>

void coarse_fix(struct finding *f, const struct proof *p)
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

void switch_fix(struct finding *f, const char *to)
{
    finding_fix(f, "now, until reboot: echo %s | sudo tee " CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_CURRENT " "
                "(risk: low when '%s' is listed in available_clocksource; the kernel refuses a "
                "clocksource it marked unstable, and the watchdog may demote it again)", to, to);
    finding_fix(f, "every boot: add clocksource=%s to the kernel command line (GRUB_CMDLINE_LINUX "
                "in /etc/default/grub, then update-grub or grub2-mkconfig; risk: ignored if '%s' "
                "does not register, check dmesg | grep -i clocksource after reboot)", to, to);
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
