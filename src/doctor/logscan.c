#include "doctor/logscan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line being scanned, lower-cased once, so that each case-insensitive search is one
 * strstr (a 16 MiB log of relevant-looking lines stays fast).  Not thread-safe: the scanner
 * runs on one thread. */
static struct {
    const char *orig;
    size_t len;
    char lower[KLOG_LINE_MAX];
} line_lc;

static void line_lc_set(const char *m)
{
    size_t n = 0;
    for (; m[n] && n + 1 < sizeof line_lc.lower; n++)
        line_lc.lower[n] = (char)tolower((unsigned char)m[n]);
    line_lc.lower[n] = 0;
    line_lc.orig = m;
    line_lc.len = n;
}

/* Case-insensitive substring search. */
static const char *find(const char *hay, const char *needle)
{
    char nl[96];
    size_t n = strlen(needle);
    if (n >= sizeof nl)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        nl[i] = (char)tolower((unsigned char)needle[i]);
    if (line_lc.orig && hay >= line_lc.orig && hay <= line_lc.orig + line_lc.len) {
        const char *q = strstr(line_lc.lower + (hay - line_lc.orig), nl);
        return q ? line_lc.orig + (q - line_lc.lower) : NULL;
    }
    for (; *hay; hay++)
        if (tolower((unsigned char)*hay) == nl[0] && strncasecmp(hay, needle, n) == 0)
            return hay;
    return NULL;
}

/* Copies the clocksource-name-like word at s ([A-Za-z0-9_-]+, or a quoted 'name'). */
static void word_at(const char *s, char *out, size_t len)
{
    while (*s == ' ' || *s == '\'' || *s == '"')
        s++;
    size_t n = 0;
    while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '-' || s[n] == '.') &&
           n + 1 < len)
        n++;
    while (n > 0 && s[n - 1] == '.')
        n--; /* a sentence's full stop */
    memcpy(out, s, n);
    out[n] = 0;
}

static struct log_event *add(struct log_events *list, const struct klog_line *l)
{
    struct log_event *e;
    if (list->n < LOG_MAX_EVENTS) {
        e = &list->e[list->n++];
    } else {
        /* keep the first events and the latest: overwrite the last slot */
        e = &list->e[LOG_MAX_EVENTS - 1];
    }
    memset(e, 0, sizeof *e);
    e->ts = l->ts;
    e->lineno = l->lineno;
    e->cpu = -1;
    e->nlines = 1;
    snprintf(e->lines[0], sizeof e->lines[0], "%s", l->raw);
    return e;
}

static void add_line(struct log_event *e, const struct klog_line *l)
{
    if (e && e->nlines < LOG_EVENT_LINES)
        snprintf(e->lines[e->nlines++], sizeof e->lines[0], "%s", l->raw);
}

static enum tsc_reason classify_reason(const char *r)
{
    if (find(r, "watchdog"))
        return TSC_R_WATCHDOG;
    if (find(r, "sync") || find(r, "warp"))
        return TSC_R_SYNC;
    if (find(r, "calculate") || find(r, "calibrat"))
        return TSC_R_CALIBRATION;
    if (find(r, "boot parameter") || find(r, "notsc") || find(r, "command line"))
        return TSC_R_CMDLINE;
    if (find(r, "hyper-v") || find(r, "hyperv"))
        return TSC_R_HYPERV;
    return TSC_R_OTHER;
}

/* Whether an arch_timer workaround description names an erratum whose workaround reads
 * the counter out of line (and so turns the vDSO counter off), as opposed to
 * ARM erratum 1418040, which only disables the 32-bit compat vDSO. */
static bool erratum_is_compat_only(const char *desc) { return find(desc, "1418040") != NULL; }

static void reset(struct logscan *s)
{
    struct log_events *lists[] = {&s->switches, &s->registered, &s->demotions, &s->tsc_unstable,
                                  &s->warps, &s->calibration, &s->benign, &s->arm_errata,
                                  &s->arm_compat, &s->override_refused, &s->xen_no_vdso,
                                  &s->tsc_found_unstable};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        lists[i]->n = 0;
    s->read = true;
    s->lines = 0;
    s->cmdline[0] = s->version[0] = s->virt[0] = 0;
    s->bare_metal = s->hyperv = s->tsc_refined = s->tsc_detected = false;
    s->riscv_timer = s->arch_timer = s->x86_hint = false;
}

/* Whether a line can matter at all: every message the scanner reads contains one of these
 * (lower-case) words.  Checking them on a lower-cased copy first keeps a 16 MiB log fast. */
static bool worth_scanning(void)
{
    static const char *const words[] = {
        "clocksource", "tsc", "hpet", "acpi_pm", "timer", "cntvct", "cntpct", "erratum",
        "riscv", "linux version", "command line", "hypervisor", "hyper-v", "paravirtualized",
        "qemu", "xen", "wd_", "cs_", "time:", "calibrat", "watchdog", "x86/", "skew",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(line_lc.lower, words[i]))
            return true;
    return false;
}

static void scan_line(struct logscan *s, const struct klog_line *l, struct log_event **pending)
{
    const char *m = l->msg;
    const char *p;
    line_lc_set(m);
    if (!worth_scanning()) {
        *pending = NULL;
        s->lines++;
        return;
    }
    if (!s->x86_hint && (find(m, "tsc") || find(m, "hpet") || find(m, "acpi_pm") || find(m, "x86/")))
        s->x86_hint = true;

    /* The watchdog's second and third lines name the watchdog and the accused clock:
     *   "'hpet' wd_now: ... " / "'acpi_pm' wd_nsec: ..." and "'tsc' cs_now: ...". */
    if (*pending) {
        const char *q = strchr(m, '\'');
        if (q && (find(m, "wd_now") || find(m, "wd_nsec") || find(m, "wd_last"))) {
            word_at(q + 1, (*pending)->watchdog, sizeof (*pending)->watchdog);
            add_line(*pending, l);
            return;
        }
        if (q && (find(m, "cs_now") || find(m, "cs_nsec") || find(m, "cs_last"))) {
            add_line(*pending, l);
            return;
        }
        *pending = NULL;
    }

    if (strncmp(m, "Linux version ", 14) == 0) {
        /* A new boot: what the earlier one said no longer describes this machine. */
        int boots = s->boots + 1;
        reset(s); /* not memset: a log of many boots must not cost a 300 KB clear per line */
        s->boots = boots;
        snprintf(s->version, sizeof s->version, "%s", m);
        return;
    }
    s->lines++;
    if ((p = find(m, "Kernel command line:")) || (strncmp(m, "Command line:", 13) == 0 && (p = m))) {
        p = strchr(p, ':') + 1;
        while (*p == ' ')
            p++;
        snprintf(s->cmdline, sizeof s->cmdline, "%s", p);
        return;
    }

    /* Clocksource switches: "clocksource: Switched to clocksource X" (3.x-6.x, with or
     * without the pr_fmt prefix), "Switching to clocksource X" (2.6.3x),
     * "Time: X clocksource has been installed." (2.6.1x-2.6.2x). */
    if ((p = find(m, "witched to clocksource ")) || (p = find(m, "witching to clocksource "))) {
        struct log_event *e = add(&s->switches, l);
        /* Both needles end in "clocksource "; find() is case-insensitive, so step over the
         * matched text rather than searching again. */
        word_at(p + strlen(find(p, "witched") == p ? "witched to clocksource " : "witching to clocksource "),
                e->name, sizeof e->name);
        return;
    }
    if ((p = find(m, "Time: ")) && find(m, "clocksource has been installed")) {
        struct log_event *e = add(&s->switches, l);
        word_at(p + 6, e->name, sizeof e->name);
        return;
    }
    /* Registration: "clocksource: tsc: mask: 0x... max_cycles: ..." */
    if (strncmp(m, "clocksource: ", 13) == 0 && find(m, ": mask: ")) {
        struct log_event *e = add(&s->registered, l);
        word_at(m + 13, e->name, sizeof e->name);
        return;
    }
    /* The watchdog, modern: "clocksource: timekeeping watchdog on CPU2: Marking clocksource
     * 'tsc' as unstable because the skew is too large:" (4.x-6.x; "on CPUn" since 4.18). */
    if ((p = find(m, "Marking clocksource '"))) {
        struct log_event *e = add(&s->demotions, l);
        word_at(p + strlen("Marking clocksource '"), e->name, sizeof e->name);
        const char *c = find(m, "on CPU");
        if (c)
            e->cpu = atoi(c + 6);
        *pending = e;
        return;
    }
    /* The watchdog, 2.6.x-3.x: "Clocksource tsc unstable (delta = -123 ns)" (RHEL 6 adds
     * "Enable clocksource failover by adding clocksource_failover kernel parameter."). */
    if ((p = strstr(m, "Clocksource ")) && strstr(m, " unstable") && !find(m, "Override")) {
        struct log_event *e = add(&s->demotions, l);
        word_at(p + 12, e->name, sizeof e->name);
        e->failover_disabled = find(m, "clocksource_failover") != NULL;
        return;
    }
    /* The watchdog's read-back check, 5.14+: "... excessive read-back delay ..., marking
     * tsc unstable" demotes; "... clock-skew test skipped!" changes nothing. */
    if (find(m, "clock-skew test skipped") || (find(m, "watchdog") && find(m, "retried")) ||
        find(m, "Long readout interval") || find(m, "skipping watchdog check")) {
        add(&s->benign, l);
        return;
    }
    if (find(m, "read-back delay") && (p = find(m, "marking "))) {
        struct log_event *e = add(&s->demotions, l);
        word_at(p + 8, e->name, sizeof e->name);
        return;
    }
    /* arch/x86/kernel/tsc.c mark_tsc_unstable(): "tsc: Marking TSC unstable due to R"
     * (RHEL 6 and older kernels print it without the "tsc: " prefix). */
    if ((p = find(m, "Marking TSC unstable due to")) || (p = find(m, "TSC appears to be running slowly"))) {
        struct log_event *e = add(&s->tsc_unstable, l);
        /* "due to R", and in 2.6.x kernels "due to: R." */
        const char *r = find(m, "due to") ? find(m, "due to") + strlen("due to") : "TSC appears to be running slowly";
        while (*r == ':' || *r == ' ')
            r++;
        snprintf(e->name, sizeof e->name, "%s", r);
        e->reason = classify_reason(r);
        if (e->reason == TSC_R_CALIBRATION)
            add(&s->calibration, l);
        return;
    }
    if (find(m, "TSC found unstable after boot")) {
        add(&s->tsc_found_unstable, l);
        return;
    }
    /* arch/x86/kernel/tsc_sync.c: "TSC synchronization [CPU#0 -> CPU#1]:" then
     * "Measured N cycles TSC warp between CPUs, turning off TSC clock." */
    if ((find(m, "TSC synchronization [") || find(m, "TSC sync")) && find(m, "passed")) {
        add(&s->benign, l); /* 2.6.x: "checking TSC synchronization [CPU#0 -> CPU#1]: passed." */
        return;
    }
    if (find(m, "TSC warp between CPUs") || find(m, "TSC synchronization [") ||
        find(m, "TSCs unsynchronized")) {
        struct log_event *e = NULL;
        if (s->warps.n && !find(m, "synchronization [")) {
            struct log_event *last = &s->warps.e[s->warps.n - 1];
            if (last->nlines == 1 && find(last->lines[0], "synchronization ["))
                e = last;
        }
        if (e)
            add_line(e, l);
        else
            add(&s->warps, l);
        return;
    }
    /* Calibration (tsc.c): "HPET/PMTIMER calibration failed", "Fast TSC calibration
     * failed" (alone harmless: slower methods follow), "Unable to calibrate against PIT". */
    if (find(m, "calibration failed") || find(m, "Unable to calibrate") ||
        find(m, "could not calculate TSC")) {
        add(&s->calibration, l);
        return;
    }
    if (find(m, "Refined TSC clocksource calibration"))
        s->tsc_refined = true;
    if (find(m, "tsc: Detected ") || find(m, "MHz processor"))
        s->tsc_detected = true;
    /* TSC_DEADLINE erratum: the local APIC timer mode, not the clocksource. */
    if (find(m, "TSC_DEADLINE disabled") || find(m, "TSC ADJUST") || find(m, "Skipped synchronization checks")) {
        add(&s->benign, l);
        return;
    }
    /* drivers/clocksource/arm_arch_timer.c: "arch_timer: Enabling global workaround for
     * Allwinner erratum UNKNOWN1", "Enabling local workaround for ARM erratum 858921",
     * "arch_timer: CPU0: Trapping CNTVCT access", and in old kernels "... disabling vDSO". */
    if (find(m, "arch_timer") || find(m, "arch-timer"))
        s->arch_timer = true;
    if ((p = find(m, "workaround for ")) && (find(m, "arch_timer") || find(m, "erratum"))) {
        const char *d = p + strlen("workaround for ");
        bool compat = erratum_is_compat_only(d);
        if (!find(m, "CPU features") || compat) {
            struct log_event *e = add(compat ? &s->arm_compat : &s->arm_errata, l);
            snprintf(e->name, sizeof e->name, "%s", d);
        }
        return;
    }
    /* cpucaps (arch/arm64/kernel/cpu_errata.c): 858921 is a timer erratum whose workaround
     * reads the counter out of line; 1418040 only affects the compat vDSO. */
    if (find(m, "CPU features: detected:") && (p = find(m, "erratum "))) {
        if (find(p, "1418040") || find(p, "858921")) {
            struct log_event *e = add(find(p, "1418040") ? &s->arm_compat : &s->arm_errata, l);
            snprintf(e->name, sizeof e->name, "%s", p);
        }
        return;
    }
    if (find(m, "Trapping CNTVCT") || find(m, "Trapping CNTPCT") ||
        ((find(m, "arch_timer") || find(m, "arch timer")) && find(m, "vdso") &&
         (find(m, "disabl") || find(m, "not using")))) {
        struct log_event *e = add(&s->arm_errata, l);
        snprintf(e->name, sizeof e->name, "%s", find(m, "CNTPCT") ? "CNTPCT trapped" : "CNTVCT trapped");
        return;
    }
    if ((p = find(m, "Override clocksource ")) && (find(m, "not HRT compatible") || find(m, "unstable"))) {
        struct log_event *e = add(&s->override_refused, l);
        word_at(p + strlen("Override clocksource "), e->name, sizeof e->name);
        return;
    }
    if (find(m, "vcpu_time_info placement not supported")) {
        add(&s->xen_no_vdso, l);
        return;
    }
    if (find(m, "riscv-timer") || find(m, "riscv_timer") || find(m, "riscv_clocksource"))
        s->riscv_timer = true;
    /* Virtualization, as the kernel saw it at boot. */
    if ((p = find(m, "Hypervisor detected: "))) {
        snprintf(s->virt, sizeof s->virt, "%s", p + strlen("Hypervisor detected: "));
    } else if ((p = find(m, "Booting paravirtualized kernel on "))) {
        const char *on = p + strlen("Booting paravirtualized kernel on ");
        if (find(on, "bare hardware"))
            s->bare_metal = true;
        else
            snprintf(s->virt, sizeof s->virt, "%s", on);
    } else if (find(m, "Hyper-V")) {
        s->hyperv = true;
        if (!s->virt[0])
            snprintf(s->virt, sizeof s->virt, "Microsoft Hyper-V");
    } else if (!s->virt[0] && (find(m, "QEMU Virtual CPU") || find(m, "DMI: QEMU"))) {
        snprintf(s->virt, sizeof s->virt, "QEMU");
    }
}

void logscan_run(const char *text, size_t len, struct logscan *out)
{
    /* reset() clears what every event list holds (events are cleared when added): far
     * cheaper than clearing the ~300 KB of line buffers. */
    reset(out);
    out->boots = 0;
    out->read = false;
    if (!text)
        return;
    out->read = true;
    struct klog_iter it;
    struct klog_line line;
    struct log_event *pending = NULL;
    klog_iter_init(&it, text, len);
    while (klog_next(&it, &line))
        scan_line(out, &line, &pending);
    line_lc.orig = NULL;
    if (find(out->virt, "Hyper-V") || find(out->virt, "Microsoft"))
        out->hyperv = true;
}

const char *logscan_last_switch(const struct logscan *s)
{
    return s->switches.n ? s->switches.e[s->switches.n - 1].name : NULL;
}
