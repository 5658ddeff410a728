/* SPDX-License-Identifier: MIT */
/* The kernel log's clock events: a table of matchers, tried in order on each line of the
 * last boot; the first that matches yields its event (some only set a flag and let later
 * rows look too).  Adding a message variant is one row.  All state is in the scanner passed
 * along: nothing static, nothing hidden. */
#include "facts/logscan.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One line being scanned: the message and its lower-cased copy, so that each
 * case-insensitive search is one strstr (a 16 MiB log of relevant-looking lines stays fast). */
struct line {
    const struct klog_line *kl;
    const char *msg;
    size_t len;
    char lower[KLOG_LINE_MAX];
};

struct scanner {
    struct logscan *s;
    /* A watchdog demotion whose "wd_now"/"cs_now" continuation lines may follow. */
    struct log_event *pending;
};

static void line_init(struct line *ln, const struct klog_line *kl)
{
    size_t n = 0;
    for (; kl->msg[n] && n + 1 < sizeof ln->lower; n++)
        ln->lower[n] = (char)tolower((unsigned char)kl->msg[n]);
    ln->lower[n] = 0;
    ln->kl = kl;
    ln->msg = kl->msg;
    ln->len = n;
}

/* Where needle occurs in the line (case-insensitive, or exactly), as a pointer into the
 * message; NULL when absent. */
static const char *line_find(const struct line *ln, const char *needle, bool exact)
{
    if (exact)
        return strstr(ln->msg, needle);
    /* Each place the needle's first letter occurs (memchr), then the rest, lower-cased as
     * it is compared: no copy of the needle per call. */
    size_t n = strlen(needle);
    if (n == 0 || n > ln->len)
        return n == 0 ? ln->msg : NULL;
    char first = (char)tolower((unsigned char)needle[0]);
    const char *p = ln->lower, *last = ln->lower + (ln->len - n);
    while (p <= last && (p = memchr(p, first, (size_t)(last - p) + 1)) != NULL) {
        size_t k = 1;
        while (k < n && p[k] == (char)tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return ln->msg + (p - ln->lower);
        p++;
    }
    return NULL;
}

static bool has(const struct line *ln, const char *needle) { return line_find(ln, needle, false); }

/* Copies the clocksource-name-like word at s ([A-Za-z0-9_.-]+, or a quoted 'name'). */
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

/* ---- what some rows do beyond adding an event ----------------------------------------- */

static enum tsc_reason classify_reason(const char *r)
{
    if (strcasestr(r, "watchdog"))
        return TSC_R_WATCHDOG;
    if (strcasestr(r, "sync") || strcasestr(r, "warp"))
        return TSC_R_SYNC;
    if (strcasestr(r, "calculate") || strcasestr(r, "calibrat"))
        return TSC_R_CALIBRATION;
    if (strcasestr(r, "boot parameter") || strcasestr(r, "notsc") || strcasestr(r, "command line"))
        return TSC_R_CMDLINE;
    if (strcasestr(r, "hyper-v") || strcasestr(r, "hyperv"))
        return TSC_R_HYPERV;
    return TSC_R_OTHER;
}

/* The arguments every `then` gets: the line, the text after the row's anchor, and the
 * event the row added (NULL when it adds none). */
#define THEN_ARGS struct scanner *sc, const struct line *ln, const char *after, struct log_event *e

static void then_cmdline(THEN_ARGS)
{
    (void)ln, (void)e;
    const char *p = after; /* the anchor ends in ':' */
    while (*p == ' ')
        p++;
    snprintf(sc->s->cmdline, sizeof sc->s->cmdline, "%s", p);
}

/* "Marking clocksource 'tsc' as unstable": the watchdog's CPU ("on CPUn", since 4.18) and
 * its next lines, which name the watchdog ("'hpet' wd_now: ...") and the accused clock. */
static void then_watchdog(THEN_ARGS)
{
    (void)after;
    const char *c = line_find(ln, "on CPU", false);
    if (c)
        e->cpu = atoi(c + 6);
    sc->pending = e;
}

/* RHEL 6: "Enable clocksource failover by adding clocksource_failover kernel parameter." */
static void then_failover(THEN_ARGS)
{
    (void)sc, (void)after;
    e->failover_disabled = has(ln, "clocksource_failover");
}

/* "due to R", and in 2.6.x kernels "due to: R."; a calibration reason is also a
 * calibration event. */
static void then_tsc_reason(THEN_ARGS)
{
    (void)after;
    const char *d = line_find(ln, "due to", false);
    const char *r = d ? d + strlen("due to") : "TSC appears to be running slowly";
    while (*r == ':' || *r == ' ')
        r++;
    snprintf(e->name, sizeof e->name, "%s", r);
    e->reason = classify_reason(r);
    if (e->reason == TSC_R_CALIBRATION)
        add(&sc->s->calibration, ln->kl)->kind =
            has(ln, "could not calculate") || has(ln, "HPET/PMTIMER calibration failed")
                ? EK_CALIBRATION_FATAL : EK_CALIBRATION_FIRST_TRY;
}

/* arch/x86/kernel/tsc_sync.c: "TSC synchronization [CPU#0 -> CPU#1]:" then "Measured N
 * cycles TSC warp between CPUs, turning off TSC clock.": the second line joins the first. */
static void then_warp(THEN_ARGS)
{
    (void)after, (void)e;
    struct log_events *w = &sc->s->warps;
    if (w->n && !has(ln, "synchronization [")) {
        struct log_event *last = &w->e[w->n - 1];
        if (last->nlines == 1 && strcasestr(last->lines[0], "synchronization [")) {
            add_line(last, ln->kl);
            return;
        }
    }
    add(w, ln->kl);
}

static void then_tsc_calibration(THEN_ARGS)
{
    (void)after, (void)e;
    struct tsc_calibration cal;
    if (!tsc_calibration_parse(ln->msg, ln->len, &cal))
        return;
    struct logscan *s = sc->s;
    if (cal.refined)
        s->tsc_refined = true;
    else
        s->tsc_detected = true;
    if (cal.refined || !s->tsc_claim.refined)
        s->tsc_claim = cal;
}

/* drivers/clocksource/arm_arch_timer.c: "arch_timer: Enabling global workaround for
 * Allwinner erratum UNKNOWN1", "Enabling local workaround for ARM erratum 858921".  ARM
 * erratum 1418040 only disables the 32-bit compat vDSO; the others read the counter out
 * of line and turn the vDSO counter off.  A cpucaps line ("CPU features: ...") counts only
 * for 1418040. */
static void then_timer_workaround(THEN_ARGS)
{
    (void)e;
    bool compat = strcasestr(after, "1418040") != NULL;
    if (has(ln, "CPU features") && !compat)
        return;
    struct log_event *ev = add(compat ? &sc->s->arm_compat : &sc->s->arm_errata, ln->kl);
    snprintf(ev->name, sizeof ev->name, "%s", after);
}

/* cpucaps (arch/arm64/kernel/cpu_errata.c): "CPU features: detected: ARM erratum 858921"
 * (a timer erratum read out of line) or "... 1418040" (compat vDSO only). */
static void then_cpucaps_erratum(THEN_ARGS)
{
    (void)e;
    const char *p = after - strlen("erratum "); /* the row's anchor: the name starts with it */
    bool compat = strcasestr(p, "1418040") != NULL;
    if (!compat && !strcasestr(p, "858921"))
        return;
    struct log_event *ev = add(compat ? &sc->s->arm_compat : &sc->s->arm_errata, ln->kl);
    snprintf(ev->name, sizeof ev->name, "%s", p);
}

static void then_trapped(THEN_ARGS)
{
    (void)sc, (void)after;
    snprintf(e->name, sizeof e->name, "%s", has(ln, "CNTPCT") ? "CNTPCT trapped" : "CNTVCT trapped");
}

static void then_hypervisor_detected(THEN_ARGS)
{
    (void)ln, (void)e;
    snprintf(sc->s->virt, sizeof sc->s->virt, "%s", after);
}

static void then_paravirt_on(THEN_ARGS)
{
    (void)ln, (void)e;
    if (strcasestr(after, "bare hardware"))
        sc->s->bare_metal = true;
    else
        snprintf(sc->s->virt, sizeof sc->s->virt, "%s", after);
}

static void then_virt_named(THEN_ARGS)
{
    (void)after, (void)e;
    /* the row's anchor is the name it reports, unless the log already said more */
    if (!sc->s->virt[0])
        snprintf(sc->s->virt, sizeof sc->s->virt, "%s", has(ln, "Hyper-V") ? "Microsoft Hyper-V" : "QEMU");
}

/* ---- the table ------------------------------------------------------------------------ */

enum name_rule {
    N_NONE,   /* the event has no name, or `then` sets it */
    N_WORD,   /* the clocksource-like word after the anchor */
};

enum match_flags {
    M_AT_START = 1,   /* the anchor starts the message */
    M_EXACT = 2,      /* anchor and `with` match case-sensitively */
    M_GO_ON = 4,      /* after yielding, later rows still look at the line */
};

#define LIST(field) offsetof(struct logscan, field)
#define FLAG(field) offsetof(struct logscan, field)
/* Offset 0 is `read`, which no row yields: 0 means "no list" / "no flag". */
_Static_assert(offsetof(struct logscan, read) == 0, "0 must mean no list and no flag");

struct matcher {
    const char *anchor[3];   /* one of these (the first that occurs); the name follows it */
    const char *with[2];     /* and each of these */
    const char *with_any[3]; /* and at least one of these (when given) */
    const char *unless;      /* and not this */
    unsigned flags;          /* enum match_flags */
    size_t list;             /* LIST(x): adds an event to s->x, 0 none */
    enum name_rule name;
    size_t sets;             /* FLAG(x): sets the bool s->x, 0 none */
    enum event_kind kind;    /* given to the event it adds */
    void (*then)(THEN_ARGS);
};

/* In order: the first row that matches decides (M_GO_ON rows let the line go on).
 * docs/doctor.md lists the messages and the kernel files that print them. */
static const struct matcher matchers[] = {
    /* The command line: "Kernel command line: ..." (and "Command line:" on x86, 2.6.x). */
    {.anchor = {"Kernel command line:"}, .then = then_cmdline},
    {.anchor = {"Command line:"}, .flags = M_AT_START | M_EXACT, .then = then_cmdline},
    /* Clocksource switches: "clocksource: Switched to clocksource X" (3.x-6.x, with or
     * without the pr_fmt prefix), "Switching to clocksource X" (2.6.3x), "Time: X
     * clocksource has been installed." (2.6.1x-2.6.2x). */
    {.anchor = {"witched to clocksource ", "witching to clocksource "}, .list = LIST(switches), .name = N_WORD},
    {.anchor = {"Time: "}, .with = {"clocksource has been installed"}, .list = LIST(switches), .name = N_WORD},
    /* Registration: "clocksource: tsc: mask: 0x... max_cycles: ..." */
    {.anchor = {"clocksource: "}, .with = {": mask: "}, .flags = M_AT_START | M_EXACT,
     .list = LIST(registered), .name = N_WORD},
    /* The watchdog, modern: "clocksource: timekeeping watchdog on CPU2: Marking clocksource
     * 'tsc' as unstable because the skew is too large:" (4.x-6.x; "on CPUn" since 4.18). */
    {.anchor = {"Marking clocksource '"}, .list = LIST(demotions), .name = N_WORD, .then = then_watchdog},
    /* The watchdog, 2.6.x-3.x: "Clocksource tsc unstable (delta = -123 ns)" (RHEL 6 adds
     * "Enable clocksource failover by adding clocksource_failover kernel parameter."). */
    {.anchor = {"Clocksource "}, .with = {" unstable"}, .unless = "Override", .flags = M_EXACT,
     .list = LIST(demotions), .name = N_WORD, .then = then_failover},
    /* The watchdog's read-back check, 5.14+: "... clock-skew test skipped!" and retries
     * change nothing; "... excessive read-back delay ..., marking tsc unstable" demotes. */
    {.anchor = {"clock-skew test skipped", "Long readout interval", "skipping watchdog check"},
     .list = LIST(benign), .kind = EK_BENIGN_WATCHDOG},
    {.anchor = {"watchdog"}, .with = {"retried"}, .list = LIST(benign), .kind = EK_BENIGN_WATCHDOG},
    {.anchor = {"marking "}, .with = {"read-back delay"}, .list = LIST(demotions), .name = N_WORD},
    /* arch/x86/kernel/tsc.c mark_tsc_unstable(): "tsc: Marking TSC unstable due to R"
     * (RHEL 6 and older kernels print it without the "tsc: " prefix). */
    {.anchor = {"Marking TSC unstable due to", "TSC appears to be running slowly"},
     .list = LIST(tsc_unstable), .then = then_tsc_reason},
    {.anchor = {"TSC found unstable after boot"}, .list = LIST(tsc_found_unstable)},
    /* tsc_sync.c, 2.6.x: "checking TSC synchronization [CPU#0 -> CPU#1]: passed." */
    {.anchor = {"TSC synchronization [", "TSC sync"}, .with = {"passed"}, .list = LIST(benign),
     .kind = EK_BENIGN_TSC_SYNC},
    {.anchor = {"TSC warp between CPUs", "TSC synchronization [", "TSCs unsynchronized"}, .then = then_warp},
    /* Calibration (tsc.c): "HPET/PMTIMER calibration failed", "Fast TSC calibration
     * failed" (alone harmless: slower methods follow), "Unable to calibrate against PIT". */
    {.anchor = {"HPET/PMTIMER calibration failed", "could not calculate"}, .list = LIST(calibration),
     .kind = EK_CALIBRATION_FATAL},
    {.anchor = {"calibration failed", "Unable to calibrate"}, .list = LIST(calibration),
     .kind = EK_CALIBRATION_FIRST_TRY},
    /* "tsc: Detected ... MHz processor", "tsc: Refined TSC clocksource calibration: ... MHz"
     * (facts/tsc_calibration.c decides). */
    {.anchor = {"Detected ", "Refined TSC clocksource calibration"}, .flags = M_GO_ON,
     .then = then_tsc_calibration},
    /* TSC_DEADLINE erratum: the local APIC timer mode, not the clocksource. */
    {.anchor = {"TSC_DEADLINE disabled"}, .list = LIST(benign), .kind = EK_BENIGN_TSC_DEADLINE},
    {.anchor = {"TSC ADJUST", "Skipped synchronization checks"}, .list = LIST(benign),
     .kind = EK_BENIGN_TSC_SYNC},
    {.anchor = {"arch_timer", "arch-timer"}, .flags = M_GO_ON, .sets = FLAG(arch_timer)},
    {.anchor = {"workaround for "}, .with_any = {"arch_timer", "erratum"}, .then = then_timer_workaround},
    {.anchor = {"erratum "}, .with = {"CPU features: detected:"}, .then = then_cpucaps_erratum},
    /* "arch_timer: CPU0: Trapping CNTVCT access", and in old kernels "... disabling vDSO". */
    {.anchor = {"Trapping CNTVCT", "Trapping CNTPCT"}, .list = LIST(arm_errata), .then = then_trapped},
    {.anchor = {"arch_timer", "arch timer"}, .with = {"vdso"}, .with_any = {"disabl", "not using"},
     .list = LIST(arm_errata), .then = then_trapped},
    {.anchor = {"Override clocksource "}, .with_any = {"not HRT compatible", "unstable"},
     .list = LIST(override_refused), .name = N_WORD},
    {.anchor = {"vcpu_time_info placement not supported"}, .list = LIST(xen_no_vdso)},
    {.anchor = {"riscv-timer", "riscv_timer", "riscv_clocksource"}, .flags = M_GO_ON,
     .sets = FLAG(riscv_timer)},
    /* Virtualization, as the kernel saw it at boot. */
    {.anchor = {"Hypervisor detected: "}, .then = then_hypervisor_detected},
    {.anchor = {"Booting paravirtualized kernel on "}, .then = then_paravirt_on},
    {.anchor = {"Hyper-V"}, .sets = FLAG(hyperv), .then = then_virt_named},
    {.anchor = {"QEMU Virtual CPU", "DMI: QEMU"}, .then = then_virt_named},
};

/* Where the row's anchor occurs in the line (NULL: the row does not match). */
static const char *row_matches(const struct matcher *m, const struct line *ln)
{
    bool exact = m->flags & M_EXACT;
    const char *at = NULL;
    size_t alen = 0;
    for (size_t i = 0; i < 3 && m->anchor[i] && !at; i++) {
        alen = strlen(m->anchor[i]);
        if (m->flags & M_AT_START)
            at = (exact ? strncmp(ln->msg, m->anchor[i], alen) : strncasecmp(ln->msg, m->anchor[i], alen)) == 0
                     ? ln->msg : NULL;
        else
            at = line_find(ln, m->anchor[i], exact);
    }
    if (!at)
        return NULL;
    for (size_t i = 0; i < 2 && m->with[i]; i++)
        if (!line_find(ln, m->with[i], exact))
            return NULL;
    if (m->with_any[0]) {
        bool any = false;
        for (size_t i = 0; i < 3 && m->with_any[i] && !any; i++)
            any = line_find(ln, m->with_any[i], exact) != NULL;
        if (!any)
            return NULL;
    }
    if (m->unless && has(ln, m->unless))
        return NULL;
    return at + alen;
}

/* Applies the first matching rows to one line. */
static void match_rows(struct scanner *sc, const struct line *ln)
{
    for (size_t i = 0; i < sizeof matchers / sizeof matchers[0]; i++) {
        const struct matcher *m = &matchers[i];
        const char *after = row_matches(m, ln);
        if (!after)
            continue;
        struct log_event *e = NULL;
        if (m->list) {
            e = add((struct log_events *)((char *)sc->s + m->list), ln->kl);
            e->kind = m->kind;
            if (m->name == N_WORD)
                word_at(after, e->name, sizeof e->name);
        }
        if (m->sets)
            *(bool *)((char *)sc->s + m->sets) = true;
        if (m->then)
            m->then(sc, ln, after, e);
        if (!(m->flags & M_GO_ON))
            return;
    }
}

/* ---- the scan ------------------------------------------------------------------------- */

static void reset(struct logscan *s)
{
#define CLEAR_LIST(name) s->name.n = 0;
#define CLEAR_FLAG(name) s->name = false;
    LOGSCAN_EVENT_LISTS(CLEAR_LIST)
    LOGSCAN_FLAGS(CLEAR_FLAG)
#undef CLEAR_LIST
#undef CLEAR_FLAG
    s->read = true;
    s->lines = 0;
    s->cmdline[0] = s->version[0] = s->virt[0] = 0;
    memset(&s->tsc_claim, 0, sizeof s->tsc_claim);
}

/* Whether a line can matter at all: every message a row reads contains one of these
 * (lower-case) words.  Checking them on the lower-cased copy first keeps a 16 MiB log fast;
 * the unit test logscan_every_anchor_passes_the_prefilter holds them to the table. */
static bool worth_scanning(const struct line *ln)
{
    static const char *const words[] = {
        "clocksource", "tsc", "hpet", "acpi_pm", "timer", "cntvct", "cntpct", "erratum",
        "riscv", "linux version", "command line", "hypervisor", "hyper-v", "paravirtualized",
        "qemu", "xen", "wd_", "cs_", "time:", "calibrat", "watchdog", "x86/", "skew",
        "detected", "readout", "read-back", "vcpu_time_info", "synchronization",
        "could not calculate",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(ln->lower, words[i]))
            return true;
    return false;
}

/* The watchdog's second and third lines name the watchdog and the accused clock:
 *   "'hpet' wd_now: ... " / "'acpi_pm' wd_nsec: ..." and "'tsc' cs_now: ...".
 * True when the line was one of them. */
static const char *const watchdog_words[] = {"wd_now", "wd_nsec", "wd_last"};
static const char *const accused_words[] = {"cs_now", "cs_nsec", "cs_last"};
#define BOOT_START "Linux version " /* a boot's first line */

static bool has_any(const struct line *ln, const char *const words[3])
{
    return has(ln, words[0]) || has(ln, words[1]) || has(ln, words[2]);
}

static bool continues_watchdog(struct scanner *sc, const struct line *ln)
{
    struct log_event *e = sc->pending;
    sc->pending = NULL;
    const char *q = e ? strchr(ln->msg, '\'') : NULL;
    if (!q)
        return false;
    if (has_any(ln, watchdog_words)) {
        word_at(q + 1, e->watchdog, sizeof e->watchdog);
    } else if (!has_any(ln, accused_words)) {
        return false;
    }
    add_line(e, ln->kl);
    sc->pending = e;
    return true;
}

static void scan_line(struct scanner *sc, const struct klog_line *kl)
{
    struct logscan *s = sc->s;
    struct line ln;
    line_init(&ln, kl);
    if (!worth_scanning(&ln)) {
        sc->pending = NULL;
        s->lines++;
        return;
    }
    if (!s->x86_hint && (has(&ln, "tsc") || has(&ln, "hpet") || has(&ln, "acpi_pm") || has(&ln, "x86/")))
        s->x86_hint = true;
    if (continues_watchdog(sc, &ln))
        return;
    if (strncmp(ln.msg, BOOT_START, strlen(BOOT_START)) == 0) {
        /* A new boot: what the earlier one said no longer describes this machine. */
        int boots = s->boots + 1;
        reset(s); /* not memset: a log of many boots must not cost a 300 KB clear per line */
        s->boots = boots;
        snprintf(s->version, sizeof s->version, "%s", ln.msg);
        return;
    }
    s->lines++;
    match_rows(sc, &ln);
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
    struct scanner sc = {out, NULL};
    struct klog_iter it;
    struct klog_line line;
    klog_iter_init(&it, text, len);
    while (klog_next(&it, &line))
        scan_line(&sc, &line);
    if (strcasestr(out->virt, "Hyper-V") || strcasestr(out->virt, "Microsoft"))
        out->hyperv = true;
}

bool logscan_worth_scanning(const char *msg)
{
    struct klog_line kl;
    memset(&kl, 0, sizeof kl);
    snprintf(kl.raw, sizeof kl.raw, "%s", msg);
    kl.msg = kl.raw;
    struct line ln;
    line_init(&ln, &kl);
    return worth_scanning(&ln);
}

/* The least line each anchor of the table matches (the anchor, then the row's `with`
 * words and its first `with_any`), then the words of the lines read outside the table
 * (the watchdog's continuations, a boot's start). */
bool logscan_least_line(size_t i, char *out, size_t len)
{
    const size_t rows = sizeof matchers / sizeof matchers[0];
    for (size_t r = 0; r < rows; r++) {
        const struct matcher *m = &matchers[r];
        for (size_t k = 0; k < 3 && m->anchor[k]; k++)
            if (i-- == 0) {
                snprintf(out, len, "%s %s %s %s", m->anchor[k], m->with[0] ? m->with[0] : "",
                         m->with[1] ? m->with[1] : "", m->with_any[0] ? m->with_any[0] : "");
                return true;
            }
    }
    const char *word = i < 3 ? watchdog_words[i] : i < 6 ? accused_words[i - 3]
                     : i == 6 ? BOOT_START : NULL;
    if (word)
        snprintf(out, len, "%s", word);
    return word != NULL;
}

const char *logscan_last_switch(const struct logscan *s)
{
    return s->switches.n ? s->switches.e[s->switches.n - 1].name : NULL;
}
