/* SPDX-License-Identifier: MIT */
/* The notes under a profile: where the time shown really goes.  A high vDSO share with no
 * syscall under it is the vDSO's own counter read, and a read that traps (the RISC-V time
 * CSR emulated by firmware: the RISC-V vDSO clock_gettime analysis report, openEuler,
 * kernel 6.12) is charged to the vDSO symbol itself; time in syscalls under a time read
 * is the vDSO's fallback to the kernel. */
#include "common/message.h"
#include "common/units.h"
#include "profile/profile_view.h"

#include "profile/counter_cost.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void profile_note(struct profile_view *v, const char *fmt, ...)
{
    if (v->nnotes >= PROFILE_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->notes[v->nnotes++], sizeof v->notes[0], fmt, ap);
    va_end(ap);
}

void profile_notes(struct profile_view *v)
{
    const struct tally *t = v->t;
    if (t->no_samples)
        return; /* every note reads the samples: with none, the answer is said whole */
    double vdso = tally_percent(t, CAT_VDSO), sys = tally_percent(t, CAT_SYSCALL),
           cs = tally_percent(t, CAT_CLOCKSOURCE);
    if (vdso >= 1.0 && sys + cs < 0.1 * vdso && (t->kernel_frames || t->from_report)) {
        char cost[MSG_REASON];
        if (v->counter_ns >= COUNTER_TRAP_NS)
            snprintf(cost, sizeof cost, "Here a counter read (%s) costs %s: it traps, so "
                     "most of that share is the trap, not the clock arithmetic.", v->counter_id,
                     NS_TEXT(v->counter_ns));
        else if (v->counter_ns >= 0)
            snprintf(cost, sizeof cost, "Here a counter read (%s) costs %s: no trap, so the "
                     "share is the number of calls.", v->counter_id, NS_TEXT(v->counter_ns));
        else
            snprintf(cost, sizeof cost, "`clockscope bench --only 'counter.*'` times one counter "
                     "read on the machine profiled: a microsecond or more is a trap; tens of ns "
                     "means the share is the number of calls.");
        profile_note(v, "The vDSO took %.2f%% of all samples without entering the kernel: that is "
                     "its own code, mostly the counter read.  Where that read traps (a RISC-V time "
                     "CSR emulated by firmware or a hypervisor), the trap is charged to the vDSO "
                     "symbol.  %s", vdso, cost);
    }
    if (sys + cs >= 0.5) {
        char where[MSG_LINE] = "";
        if (t->nclocksources > 0)
            snprintf(where, sizeof where, "; the kernel read the clocksource '%s' (%.2f%%)",
                     t->clocksources[0].name, tally_share(t, t->clocksources[0].weight));
        double fallback = tally_share(t, t->fallback_weight);
        if (fallback >= 0.5)
            profile_note(v, "%.2f%% of all samples were in the kernel reading the time (time "
                         "syscalls %.2f%%, clocksource read %.2f%%)%s; %.2f%% under the vDSO or "
                         "libc's clock functions: the vDSO fell back to the syscall, so it cannot "
                         "read this clocksource.  `clockscope doctor` proves it and says why.",
                         sys + cs, sys, cs, where, fallback);
        else
            profile_note(v, "%.2f%% of all samples were in the kernel reading the time (time "
                         "syscalls %.2f%%, clocksource read %.2f%%)%s, none of it under the vDSO: "
                         "the program (or its runtime) makes the syscalls itself, or the kernel "
                         "reads the clock for its own work.", sys + cs, sys, cs, where);
    }
    if (t->entry_weight > 0)
        profile_note(v, "%.2f%% of all samples were in kernel syscall entry or exit with no syscall "
                     "named in their chain: not counted as reading the time (some may be the "
                     "entry cost of time syscalls).", tally_share(t, t->entry_weight));
    if (t->from_report && t->report_chains)
        profile_note(v, "From perf report text with -g folded chains: each entry's chains "
                     "attributed as perf script's samples are, the rest of its share by its own "
                     "symbol.");
    else if (t->from_report)
        profile_note(v, "From perf report text: each entry's own (Self) share, by its symbol%s; "
                     "call sites and the attribution through call chains need `perf script` "
                     "output (--perf-script) or `perf report --no-children -g folded`.",
                     t->children_columns ? " (the Self column)" : "");
    /* Callers perf could not name: frames without frame pointers, or JIT-compiled code. */
    double unnamed = 0, timed = tally_time_percent(t);
    for (int i = 0; i < t->ncall_sites; i++)
        if (strcmp(t->call_sites[i].name, "(no caller in the chain)") == 0 ||
            strcmp(t->call_sites[i].name, "[unknown]") == 0)
            unnamed += tally_share(t, t->call_sites[i].weight);
    if (!t->from_report && timed >= 1.0 && unnamed >= 0.5 * timed &&
        v->runtime.runtime == RUNTIME_NATIVE)
        profile_note(v, "%.2f%% of all samples read the time with no named caller ([unknown] or "
                     "no caller in the chain): the callers have no frame pointers, or are "
                     "JIT-compiled or interpreted code.  %sA Python, Node or Java program names "
                     "its functions only with its runtime's perf switch (`clockscope profile "
                     "--help`; live, the profile says which applies).", unnamed,
                     v->dwarf ? "" : "`--call-graph dwarf` unwinds frames without frame "
                                     "pointers.  ");
    if (!t->from_report && !t->kernel_frames)
        profile_note(v, "No kernel frames in the samples: time in syscalls and the kernel's "
                     "clocksource read is not visible (user-space-only sampling).");
}
