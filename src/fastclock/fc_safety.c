/* SPDX-License-Identifier: MIT */
#include "fastclock/fc_safety.h"

#include "fastclock/fc_math.h"
#include "common/clocksource_sysfs.h"
#include "common/words.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


const char *fc_sysfs_root(void)
{
    const char *r = getenv("FASTCLOCK_SYSFS_ROOT");
    return r ? r : "";
}

/* open/read/close only: this runs at init and at the periodic re-check. */
static bool read_line(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    return true;
}

/* The provisional clocksource is current or listed: the kernel has not decided yet. */
static bool provisional_listed(const char *provisional, const char *current, const char *avail,
                               bool have_avail)
{
    return provisional && (strcmp(current, provisional) == 0 ||
                           (have_avail && words_has(avail, provisional)));
}

enum fc_clocksource_verdict fc_check_clocksource(const char *root, const char *expected,
                                                 const char *provisional, char *current,
                                                 size_t clen, char *why, size_t whylen)
{
    char path[512], avail[256];
    current[0] = 0;
    snprintf(path, sizeof path, "%s" CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_CURRENT, root);
    if (!read_line(path, current, clen)) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        return FC_CS_UNUSABLE;
    }
    snprintf(path, sizeof path, "%s" CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_AVAILABLE, root);
    bool have_avail = read_line(path, avail, sizeof avail);
    if (strcmp(current, expected) == 0) {
        if (have_avail && !words_has(avail, expected)) {
            snprintf(why, whylen, "'%s' is no longer in available_clocksource (%s)", expected, avail);
            return FC_CS_UNUSABLE;
        }
        return FC_CS_USABLE;
    }
    /* Another clocksource is current (booted with clocksource=hpet, or kvm-clock, xen):
     * the vDSO cannot read the counter then, which is where fastclock helps most.  The
     * counter is still usable if the kernel lists it: it is registered, passed the boot-
     * time sync check, and the watchdog has not marked it unstable (that hides it). */
    if (have_avail && words_has(avail, expected))
        return FC_CS_USABLE;
    if (provisional_listed(provisional, current, avail, have_avail)) {
        snprintf(why, whylen, "waiting for the kernel to register '%s': only its provisional '%s' "
                 "is listed (current: %s), the kernel's checks of the counter are not done",
                 expected, provisional, current);
        return FC_CS_PENDING;
    }
    if (!have_avail)
        snprintf(why, whylen, "the kernel's clocksource is '%s', and available_clocksource is "
                 "unreadable", current);
    else
        snprintf(why, whylen, "the kernel's clocksource is '%s' and '%s' is not in "
                 "available_clocksource (%s): not registered, or marked unstable",
                 current, expected, avail);
    return FC_CS_UNUSABLE;
}

bool fc_check_constant_rate(bool (*constant)(char *, size_t), int (*invariant)(void),
                            bool *assumed, char *why, size_t whylen)
{
    *assumed = false;
    if (constant(why, whylen))
        return true;
    const char *env = getenv(FC_ASSUME_INVARIANT_ENV);
    /* Exactly "1": not a tuning knob, so no "yes"/"true" spellings to trip over. */
    if (!env || strcmp(env, "1") != 0 || invariant() != 0)
        return false;
    *assumed = true;
    return true;
}

/* The best per-call cost of n calls of read() (or of clock(id) when read is NULL), timed
 * with the kernel's CLOCK_MONOTONIC over three rounds: the best round is the one least
 * disturbed by preemption.  The two CLOCK_MONOTONIC reads around the calls are timed too
 * (back to back, best of three: `bracket`) and taken off.  Where CLOCK_MONOTONIC is itself
 * slow (a syscall that reads the hpet, or one a seccomp supervisor answers: 10-100 us, and
 * as noisy) its own cost, spread over 32 reads, would pass for a counter that traps, and
 * fastclock would refuse the counter exactly where the kernel's clock is slowest; so n grows
 * with the bracket until a round of reads that cost the 1 us bound would take 10 brackets
 * (at most 4096 reads: 15 ms of a counter that traps under TCG). */
static uint64_t best_cost_ns(uint64_t (*read)(void), fc_clock_fn clock, clockid_t id,
                             uint64_t bracket)
{
    uint64_t n = 10 * bracket / FC_TRAP_ABSOLUTE_NS;
    n = n < 32 ? 32 : n > 4096 ? 4096 : n;
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < 3; round++) {
        struct timespec a, b, scratch;
        clock(CLOCK_MONOTONIC, &a);
        for (uint64_t i = 0; i < n; i++) {
            if (read) {
                uint64_t v = read();
                __asm__ volatile("" : : "r"(v));
            } else {
                clock(id, &scratch);
                __asm__ volatile("" : : "r"(&scratch) : "memory");
            }
        }
        clock(CLOCK_MONOTONIC, &b);
        if (clock_ns_of(&b) - clock_ns_of(&a) < best)
            best = clock_ns_of(&b) - clock_ns_of(&a);
    }
    return best > bracket ? (best - bracket) / n : 0;
}

/* What two back-to-back CLOCK_MONOTONIC reads take (best of three). */
static uint64_t bracket_ns(fc_clock_fn clock)
{
    uint64_t bracket = UINT64_MAX;
    for (int round = 0; round < 3; round++) {
        struct timespec a, b;
        clock(CLOCK_MONOTONIC, &a);
        clock(CLOCK_MONOTONIC, &b);
        if (clock_ns_of(&b) - clock_ns_of(&a) < bracket)
            bracket = clock_ns_of(&b) - clock_ns_of(&a);
    }
    return bracket;
}

bool fc_check_read_cost(uint64_t (*read)(void), fc_clock_fn clock, char *why, size_t whylen)
{
    uint64_t bracket = bracket_ns(clock);
    uint64_t counter = best_cost_ns(read, clock, 0, bracket);
    if (counter >= FC_TRAP_ABSOLUTE_NS) {
        snprintf(why, whylen, "a counter read costs %llu ns: it traps to the kernel or firmware",
                 (unsigned long long)counter);
        return false;
    }
    /* A trap on real hardware costs a few hundred ns, below any absolute bound that also
     * holds under emulation; so judge it against this machine's own CLOCK_MONOTONIC_COARSE,
     * which the vDSO serves from its data page without reading any counter (also when it
     * has turned its counter path off, as arm64 erratum workarounds do). */
    uint64_t coarse = best_cost_ns(NULL, clock, CLOCK_MONOTONIC_COARSE, bracket);
    if (counter >= FC_TRAP_FLOOR_NS && counter >= FC_TRAP_COARSE_RATIO * coarse) {
        snprintf(why, whylen,
                 "a counter read costs %llu ns, %llux a CLOCK_MONOTONIC_COARSE read (%llu ns, "
                 "which reads no counter): it traps to the kernel or firmware",
                 (unsigned long long)counter, (unsigned long long)(counter / (coarse ? coarse : 1)),
                 (unsigned long long)coarse);
        return false;
    }
    return true;
}

void fc_sample_pair(uint64_t (*read)(void), fc_clock_fn clock, clockid_t id, int tries,
                    uint64_t *ticks, uint64_t *ns, uint64_t *width)
{
    *width = UINT64_MAX;
    for (int i = 0; i < tries; i++) {
        struct timespec ts;
        uint64_t t1 = read();
        clock(id, &ts);
        uint64_t t2 = read();
        if (t2 >= t1 && t2 - t1 < *width) {
            *width = t2 - t1;
            *ticks = t1 + (t2 - t1) / 2;
            *ns = clock_ns_of(&ts);
        }
    }
    if (*width == UINT64_MAX) { /* the counter went backwards on this CPU every time */
        *ticks = read();
        struct timespec ts;
        clock(id, &ts);
        *ns = clock_ns_of(&ts);
    }
}

/* One pair taken on one CPU: the counter (midpoint of the pair), the kernel's ns minus the
 * counter's ns since t_ref (constant while the CPUs agree and mult is exact), the pair's
 * width in ns.  False if this thread could not be moved there. */
struct cpu_pair {
    uint64_t ticks;
    int64_t offset;
    uint64_t width_ns;
};

static bool pair_on(int cpu, uint64_t (*read)(void), fc_clock_fn clock, uint64_t mult,
                    uint64_t *t_ref, struct cpu_pair *p)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return false;
    uint64_t t, k, w;
    fc_sample_pair(read, clock, CLOCK_MONOTONIC, 3, &t, &k, &w);
    if (!*t_ref)
        *t_ref = t;
    p->ticks = t;
    p->offset = t >= *t_ref ? (int64_t)k - (int64_t)fc_ticks_to_ns(t - *t_ref, mult)
                            : (int64_t)k + (int64_t)fc_ticks_to_ns(*t_ref - t, mult);
    p->width_ns = w == UINT64_MAX ? UINT64_MAX : fc_ticks_to_ns(w, mult);
    return true;
}

/* Each CPU is compared with the first one sampled just before and just after it, and
 * against the first one's offset interpolated to its moment.  mult is the first rate
 * estimate, off by up to a few hundred ppm; on a busy machine the moves between CPUs take
 * milliseconds, and 200 ppm over 15 ms is 3 us of apparent disagreement between CPUs that
 * agree exactly.  That error grows linearly with the counter, so interpolating between
 * the two reference pairs cancels it; what remains is the CPUs' own difference. */
bool fc_check_cross_cpu(uint64_t (*read)(void), fc_clock_fn clock, uint64_t mult, char *why,
                        size_t whylen)
{
    cpu_set_t saved;
    if (sched_getaffinity(0, sizeof saved, &saved) != 0)
        return true; /* cannot move: nothing to compare (documented) */
    int cpus[8], n = 0, total = CPU_COUNT(&saved);
    /* Up to 8 CPUs spread over the mask: first, last and evenly between. */
    for (int c = 0, seen = 0; c < CPU_SETSIZE && n < 8; c++) {
        if (!CPU_ISSET(c, &saved))
            continue;
        if (total <= 8 || seen % ((total + 7) / 8) == 0 || seen == total - 1)
            cpus[n++] = c;
        seen++;
    }
    if (n < 2)
        return true;
    uint64_t t_ref = 0;
    struct cpu_pair before, after, other;
    bool ok = true;
    if (!pair_on(cpus[0], read, clock, mult, &t_ref, &before)) {
        sched_setaffinity(0, sizeof saved, &saved);
        return true;
    }
    for (int i = 1; i < n && ok; i++) {
        if (!pair_on(cpus[i], read, clock, mult, &t_ref, &other))
            continue; /* offline since the mask was read */
        if (!pair_on(cpus[0], read, clock, mult, &t_ref, &after))
            break;
        const struct cpu_pair *p[3] = {&before, &other, &after};
        int bad = -1;
        for (int k = 0; k < 3; k++)
            if (p[k]->width_ns == UINT64_MAX)
                bad = k;
        if (bad >= 0) {
            snprintf(why, whylen, "the counter went backwards within one CPU (%d)",
                     bad == 1 ? cpus[i] : cpus[0]);
            ok = false;
            break;
        }
        /* The reference's offset at the other CPU's moment.  A counter that did not move
         * forward across the three pairs (different CPUs' counters far apart) makes the
         * span zero or negative: then compare with the nearer pair. */
        double expected = (double)before.offset;
        if (after.ticks > before.ticks && other.ticks >= before.ticks && other.ticks <= after.ticks)
            expected += (double)(after.offset - before.offset) *
                        ((double)(other.ticks - before.ticks) / (double)(after.ticks - before.ticks));
        double gap = (double)other.offset - expected;
        uint64_t widest = before.width_ns;
        widest = other.width_ns > widest ? other.width_ns : widest;
        widest = after.width_ns > widest ? after.width_ns : widest;
        if ((gap < 0 ? -gap : gap) > (double)(widest + 1000)) {
            snprintf(why, whylen,
                     "counters disagree across CPUs by %.0f ns (CPU %d against CPU %d, pairs "
                     "within %llu ns)",
                     gap < 0 ? -gap : gap, cpus[i], cpus[0], (unsigned long long)widest);
            ok = false;
        }
        before = after;
    }
    sched_setaffinity(0, sizeof saved, &saved);
    return ok;
}
