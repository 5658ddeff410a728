/* SPDX-License-Identifier: MIT */
/* What the kernel log of the last boot says about clocks, as events with their lines.
 * Matching is on the kernel's message text (prefixes already stripped by facts/klog),
 * case-insensitive, on the stable parts of each message across kernel generations, by a
 * table of matchers in logscan.c (one row per message form); docs/doctor.md lists the
 * messages and the kernel files that print them. */
#ifndef CLOCKSCOPE_LOGSCAN_H
#define CLOCKSCOPE_LOGSCAN_H

#include "facts/klog.h"
#include "facts/tsc_calibration.h"

#include <stdbool.h>
#include <stddef.h>

#define LOG_MAX_EVENTS 16
#define LOG_EVENT_LINES 3

enum tsc_reason {
    TSC_R_WATCHDOG,     /* "clocksource watchdog" */
    TSC_R_SYNC,         /* "check_tsc_sync_source failed", "TSCs unsynchronized", warp */
    TSC_R_CALIBRATION,  /* "could not calculate TSC khz" */
    TSC_R_CMDLINE,      /* "boot parameter" (tsc=unstable, notsc) */
    TSC_R_HYPERV,       /* "running on Hyper-V": benign with the Hyper-V TSC page */
    TSC_R_OTHER,        /* "cpufreq changes", "TSC halts in idle", ... */
};

/* What a calibration or benign event is, so that the rules need not read its text again. */
enum event_kind {
    EK_NONE,
    EK_CALIBRATION_FATAL,     /* "HPET/PMTIMER calibration failed", "could not calculate TSC khz" */
    EK_CALIBRATION_FIRST_TRY, /* "Fast TSC calibration failed", "Unable to calibrate against PIT" */
    EK_BENIGN_TSC_DEADLINE,   /* the APIC timer's TSC_DEADLINE erratum */
    EK_BENIGN_TSC_SYNC,       /* TSC_ADJUST handled it, sync checks skipped or passed */
    EK_BENIGN_WATCHDOG,       /* the watchdog skipped or retried a check */
};

struct log_event {
    double ts;                               /* seconds since boot, -1 unknown */
    size_t lineno;
    char name[64];                           /* clocksource / reason / erratum */
    char watchdog[64];                       /* for demotions: the accusing watchdog */
    int cpu;                                 /* watchdog CPU, -1 unknown */
    enum tsc_reason reason;
    enum event_kind kind;
    bool failover_disabled;                  /* RHEL 6: "Enable clocksource failover by ..." */
    int nlines;
    char lines[LOG_EVENT_LINES][KLOG_LINE_MAX];
};

struct log_events {
    int n;
    struct log_event e[LOG_MAX_EVENTS];
};

/* The event lists and the flags, each with what it holds: struct logscan's members and
 * logscan.c's reset() are generated from these lists, so that a list or a flag added here
 * is cleared at every boot without anyone remembering to. */
#define LOGSCAN_EVENT_LISTS(X)                                                                 \
    X(switches)           /* "Switched to clocksource X" and older forms */                   \
    X(registered)         /* "clocksource: X: mask: ..." */                                   \
    X(demotions)          /* the watchdog marking X unstable (every generation) */            \
    X(tsc_unstable)       /* "Marking TSC unstable due to R" */                               \
    X(warps)              /* boot-time TSC sync failure */                                    \
    X(calibration)        /* TSC calibration failures */                                      \
    X(benign)             /* look-alikes that change nothing */                               \
    X(arm_errata)         /* arch_timer workarounds that trap CNTVCT / disable the vDSO */    \
    X(arm_compat)         /* workarounds that only disable the 32-bit compat vDSO */          \
    X(override_refused)   /* "Override clocksource X is not HRT compatible" */                \
    X(xen_no_vdso)        /* Xen without a vcpu time page for user space */                   \
    X(tsc_found_unstable) /* "TSC found unstable after boot" */
#define LOGSCAN_FLAGS(X)                                                                       \
    X(bare_metal)   /* "Booting paravirtualized kernel on bare hardware" */                   \
    X(hyperv)       /* Hyper-V mentioned */                                                   \
    X(tsc_refined)  /* "Refined TSC clocksource calibration: N MHz" */                        \
    X(tsc_detected) /* "tsc: Detected N MHz" */                                               \
    X(riscv_timer)  /* the RISC-V timer named */                                              \
    X(x86_hint)     /* names only x86 has: tsc, hpet, acpi_pm, x86/ */                        \
    X(arch_timer)   /* the arm generic timer named */

#define LOGSCAN_LIST_MEMBER(name) struct log_events name;
#define LOGSCAN_FLAG_MEMBER(name) bool name;

struct logscan {
    bool read;                 /* a log was available */
    size_t lines;              /* lines in the last boot */
    int boots;                 /* boots seen (a "Linux version" line starts one) */
    LOGSCAN_EVENT_LISTS(LOGSCAN_LIST_MEMBER)
    char cmdline[1024];        /* "Kernel command line:" of the last boot */
    char version[256];         /* "Linux version ..." of the last boot */
    char virt[64];             /* what the log says about the hypervisor, "" if nothing */
    LOGSCAN_FLAGS(LOGSCAN_FLAG_MEMBER)
    struct tsc_calibration tsc_claim; /* the last refined calibration, else the last "Detected" */
};

void logscan_run(const char *text, size_t len, struct logscan *out);
/* The last switch event's clocksource, or NULL. */
const char *logscan_last_switch(const struct logscan *s);

/* For the tests, which hold the prefilter to the table: whether a message passes the
 * prefilter (a line that does not is never matched), and the i-th least line a row of the
 * table matches (or a line read outside it matches); false past the last. */
bool logscan_worth_scanning(const char *msg);
bool logscan_least_line(size_t i, char *out, size_t len);

#endif
