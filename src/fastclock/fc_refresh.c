/* SPDX-License-Identifier: MIT */
/* libfastclock's writer: the refresh in bounded steps, the write section, leaving the
 * counter.  It writes the shared state (fc_state.h, defined in fc_state.c) and calls neither
 * the readers (fastclock.c) nor the life cycle (fc_lifecycle.c: initialisation, the
 * cross-CPU check, fork, the ticker), which call it.
 *
 * No read ever does unbounded work (issue 18).  A refresh is cut into steps, each a few
 * kernel clock reads (or the sysfs re-check, or the write section's 2 us wait); a read does
 * at most one step, and only when its thread reads densely (reads closer than DENSE_NS,
 * fastclock.c), so that the steps are a small fraction of its reads: with the longest
 * period, 100 ms, a thread reading every 100 us spends a step on at most 5 of its 1000
 * reads.  A sparse reader never refreshes: the line goes stale and it is answered by the
 * kernel clock (fastclock.c).  The ticker thread and the cross-CPU checker do whole
 * refreshes, off every user's read.  The memory-ordering argument for the write section is
 * at the top of fc_read.h. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "arch/counter.h"
#include "fastclock/fc_counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_line.h"
#include "fastclock/fc_read.h"
#include "fastclock/fc_state.h"
#include "fastclock/fc_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REBASE_NS 64000000000ull         /* rate baseline at most ~64 s long */
#define WRITER_WAIT_NS 2000ull           /* see the ordering argument in fc_read.h */
#define SAMPLE_MAX_AGE_NS 1000000ull     /* a refresh's samples are at most this old at commit */
#define SUSPEND_JUMP_NS 1000000ll        /* BOOTTIME - MONOTONIC moved: suspended */
#define LOOK_MAX_NOISE_NS 20000ull       /* a wider look (preempted) is taken again */

_Static_assert(MAX_PERIOD_NS + GRACE_NS <= FC_MAX_EXTRAPOLATION_NS,
               "a line's limit must keep the read path's d * mult within 64 bits");
_Static_assert(SAMPLE_MAX_AGE_NS < GRACE_NS, "a refresh's samples fit in the grace period");

static const struct fc_slew_policy SLEW = {
    .max_slew_ppm = 200,
    .max_big_slew_ppm = 50000,
    .big_offset_ns = 100000,
    .step_forward_ns = 1000000,
};

static struct fc_segment current_segment(void)
{
    struct fc_segment l = {atomic_load_explicit(&fc_line.anchor_ticks, memory_order_relaxed),
                        atomic_load_explicit(&fc_line.anchor_ns, memory_order_relaxed),
                        atomic_load_explicit(&fc_line.mult, memory_order_relaxed)};
    return l;
}

/* ---- the write section ---- */

/* Opens the write section and returns the anchor counter value t_a, read WRITER_WAIT_NS
 * after the odd sequence is visible to every CPU (see the top of fc_read.h).  Before the
 * odd store, the snapshot a signal handler on this thread will use is complete. */
static uint64_t write_begin(uint64_t *seq, bool leaving)
{
    fc_sig.old = current_segment();
    fc_sig.old_limit = atomic_load_explicit(&fc_line.limit_ticks, memory_order_relaxed);
    fc_sig.old_real = atomic_load_explicit(&fc_line.real_offset, memory_order_relaxed);
    fc_sig.old_boot = atomic_load_explicit(&fc_line.boot_offset, memory_order_relaxed);
    fc_sig.t_a = 0;
    fc_sig.leaving = leaving;
    fc_sig.floor = 0;
    /* Signal fences: a handler on this thread sees the snapshot before the flag, the flag
     * before the odd sequence (program order is all a handler on the same thread needs). */
    atomic_signal_fence(memory_order_seq_cst);
    fc_tl_in_writer = true;
    atomic_signal_fence(memory_order_seq_cst);
    *seq = atomic_load_explicit(&fc_line.seq, memory_order_relaxed) & ~(FC_SEQ_WRITING | FC_SEQ_STALE);
    /* An exchange, not a store: a reader's CAS setting FC_SEQ_STALE may race with it, and
     * whichever lands first, the writer's value wins. */
    atomic_exchange_explicit(&fc_line.seq, *seq | FC_SEQ_WRITING, memory_order_relaxed);
    /* Pairs with the acquire fence before every reader's s2 load: the odd value is visible
     * to all CPUs before any counter read below. */
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t mult = fc_sig.old.mult;
    uint64_t t0 = fc_counter_ordered();
    uint64_t wait = fc_ns_to_ticks(WRITER_WAIT_NS, mult);
    while (fc_counter_ordered() - t0 < wait)
        ;
    return fc_counter_ordered();
}

/* Tells a handler on this thread the new segment (from t_a on), after folding in what
 * handlers returned meanwhile (fc_read_in_own_writer, fastclock.c): a value above the new
 * segment's start (a kernel value read after t_a, by a handler that found the old segment
 * past its limit) re-anchors the segment at a counter value read now, at that value or the
 * segment's own, whichever is higher: never below what the handler returned, and not ahead of the kernel by the handler's
 * duration.  A handler that runs after the last fold uses fc_sig.next: it ran at least a
 * signal delivery (> 1 us) after the earlier handler's kernel read, far more than the new
 * segment's offset from the kernel (one kernel read's duration), so it does not go below it. */
static void fold_handler_floor(struct fc_segment *next, uint64_t t_a)
{
    uint64_t f = fc_sig.floor;
    atomic_signal_fence(memory_order_seq_cst);
    if (fc_segment_eval(next, t_a) < f) {
        uint64_t now = fc_counter_ordered();
        uint64_t own = fc_segment_eval(next, now);
        next->anchor_ticks = now;
        next->anchor_ns = own > f ? own : f;
    }
}

static void write_next(struct fc_segment *next, uint64_t t_a, int64_t real, int64_t boot)
{
    fold_handler_floor(next, t_a);
    fc_sig.next = *next;
    fc_sig.next_real = real, fc_sig.next_boot = boot;
    atomic_signal_fence(memory_order_seq_cst);
    fc_sig.t_a = t_a; /* from here on a handler uses fc_sig.next and records no floor */
    atomic_signal_fence(memory_order_seq_cst);
    /* A handler between the fold and t_a: fold again into what is published (not into
     * fc_sig.next, which a handler may be reading; the published line is at or above it). */
    fold_handler_floor(next, t_a);
}

static void write_end(uint64_t seq)
{
    /* Release: pairs with the acquire load of s1 in readers; the line's stores are visible
     * to a reader that sees the new even value.  Clears FC_SEQ_STALE too. */
    atomic_store_explicit(&fc_line.seq, seq + FC_SEQ_STEP, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    fc_tl_in_writer = false;
}

static void publish(const struct fc_segment *l, uint64_t period_ns, int64_t real, int64_t boot)
{
    uint64_t refresh = fc_ns_to_ticks(period_ns, l->mult);
    uint64_t limit = fc_ns_to_ticks(period_ns + GRACE_NS, l->mult);
    atomic_store_explicit(&fc_line.anchor_ticks, l->anchor_ticks, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, l->anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&fc_line.mult, l->mult, memory_order_relaxed);
    atomic_store_explicit(&fc_line.refresh_ticks, refresh, memory_order_relaxed);
    atomic_store_explicit(&fc_line.limit_ticks, limit, memory_order_relaxed);
    atomic_store_explicit(&fc_line.floor_ns, fc_segment_eval(l, l->anchor_ticks + limit),
                          memory_order_relaxed);
    atomic_store_explicit(&fc_line.real_offset, real, memory_order_relaxed);
    atomic_store_explicit(&fc_line.boot_offset, boot, memory_order_relaxed);
}

void fc_leave_counter(const char *why)
{
    /* Everything returned so far is at most the line's value at its limit. */
    uint64_t seq;
    uint64_t t = write_begin(&seq, true);
    struct fc_segment cur = fc_sig.old;
    uint64_t lim = fc_sig.old_limit;
    uint64_t until = t - cur.anchor_ticks < lim ? t : cur.anchor_ticks + lim;
    uint64_t floor = fc_segment_eval(&cur, until);
    if (lim == 0) /* never live: kernel values only so far */
        floor = 0;
    atomic_store_explicit(&fc_kernel_floor, floor > fc_sig.floor ? floor : fc_sig.floor,
                          memory_order_relaxed);
    snprintf(fc_w.why, sizeof fc_w.why, "%s", why);
    /* Readers that retry see the kernel source; readers that did not retry read their
     * counter before t (see the top of fc_read.h), so their values are at most the floor. */
    atomic_store_explicit(&fc_line.source, FC_SOURCE_KERNEL, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    /* A handler on this thread between the two loads of fc_sig.floor: fold it in too. */
    uint64_t late = fc_sig.floor, cur_floor = atomic_load(&fc_kernel_floor);
    while (late > cur_floor && !atomic_compare_exchange_weak(&fc_kernel_floor, &cur_floor, late))
        ;
    write_end(seq);
}

/* ---- the refresh, in steps ---- */

/* Due: the line is stale or past its refresh point; for the ticker (fc_w.ahead), already
 * past half of it, so that a ticker that wakes late by up to half a period (a loaded
 * machine) still refreshes before the line's limit and its readers stay on the counter. */
static bool line_due(uint64_t now)
{
    uint64_t s = atomic_load_explicit(&fc_line.seq, memory_order_acquire);
    uint64_t at = atomic_load_explicit(&fc_line.anchor_ticks, memory_order_relaxed);
    uint64_t rt = atomic_load_explicit(&fc_line.refresh_ticks, memory_order_relaxed);
    return (s & FC_SEQ_STALE) || now - at >= (fc_w.ahead ? rt / 2 : rt);
}

/* The write section of a refresh: the new segment from the samples of the earlier steps. */
/* Whether the process entered another time namespace since the last look (setns: its
 * MONOTONIC and BOOTTIME moved, REALTIME did not; fc_namespace_shift, exact to the looks'
 * noise).  The line then re-anchors on the kernel in the same write that publishes the new
 * offsets: REALTIME = line + real_offset never moves with it, and MONOTONIC follows the
 * kernel's at once, down too, as the kernel's own values do.  A change shaped like a suspend
 * with a running counter is left to the suspend's handling, which never steps back: values
 * were served between the two looks.  The look taken now is the next one's reference. */
static bool entered_namespace(const struct fc_segment *cur)
{
    bool like_suspend = false;
    int64_t ns_shift = fc_w.look_ok ? fc_namespace_shift(&fc_w.look, &fc_w.now,
                                                         fc_w.rate_mult ? fc_w.rate_mult : cur->mult,
                                                         &like_suspend)
                                    : 0;
    fc_w.look = fc_w.now, fc_w.look_ok = true;
    return ns_shift != 0 && !like_suspend;
}

/* The offsets to publish, in *real and *boot (step 1's samples): the tight single-clock
 * sandwiches of step 1, or, after a namespace change (which may have come after step 1),
 * sampled again now.  Never the look's own: its REALTIME read lies off its midpoint, and a
 * signal taken inside it widens it by the handler's time (its noise bounds the detection,
 * not the value).  Returns whether the machine was suspended since the last refresh. */
static bool settle_offsets(bool namespaced, int64_t *real, int64_t *boot)
{
    int64_t old_boot = atomic_load_explicit(&fc_line.boot_offset, memory_order_relaxed);
    int64_t old_real = atomic_load_explicit(&fc_line.real_offset, memory_order_relaxed);
    if (namespaced)
        *real = fc_clock_offset(CLOCK_REALTIME), *boot = fc_clock_offset(CLOCK_BOOTTIME);
    /* A sample is off by at most half its sandwich's width: an offset that moved by no
     * more than that is kept.  Every try of a sample can be stretched when a signal
     * handler that outlasts its timer's period, or a busy CPU, leaves the thread a few
     * instructions at a time; a BOOTTIME offset published that far off (24 us seen under
     * the SIGALRM test with a CPU kept busy) would serve BOOTTIME below the kernel's. */
    else if (*boot - old_boot <= (int64_t)(fc_w.boot_width / 2) &&
             old_boot - *boot <= (int64_t)(fc_w.boot_width / 2))
        *boot = old_boot;
    /* Suspended since the last refresh: BOOTTIME - MONOTONIC moved.  The rate baseline
     * spans the suspend, so it restarts (docs/fastclock.md, "Suspend"). */
    bool suspended = !namespaced && (*boot - old_boot > SUSPEND_JUMP_NS || old_boot - *boot > SUSPEND_JUMP_NS);
    /* A REALTIME offset that moved by less than the readers' hysteresis, or than its
     * sample's noise (above), is noise: kept. */
    int64_t real_noise = (int64_t)(fc_w.real_width / 2) > (int64_t)FC_REALTIME_HYSTERESIS_NS
                       ? (int64_t)(fc_w.real_width / 2) : (int64_t)FC_REALTIME_HYSTERESIS_NS;
    if (!namespaced && *real - old_real < real_noise && old_real - *real < real_noise)
        *real = old_real;
    return suspended;
}

/* The rate the next segment takes: the measured one, never the published (bent) slope:
 * bending a bent slope again would make the offset correction an integrator that
 * oscillates.  The baseline restarts at this sample when `restart` (a suspend, a jump, a
 * step) or when the sample is not past it; a better-known rate replaces the measured one. */
static uint64_t measured_rate(const struct fc_segment *cur, bool restart)
{
    uint64_t rate = fc_w.rate_mult;
    if (restart || fc_w.t_s <= fc_w.base_ticks || fc_w.k_s <= fc_w.base_ns) {
        fc_w.base_ticks = fc_w.t_s, fc_w.base_ns = fc_w.k_s, fc_w.base_width = fc_w.w_s;
        return rate;
    }
    double span = (double)(fc_w.k_s - fc_w.base_ns);
    double uncertainty = (double)fc_ticks_to_ns(fc_w.base_width + fc_w.w_s, cur->mult) / span;
    if (uncertainty < fc_w.rate_uncertainty) {
        rate = fc_mult_from_ratio(fc_w.k_s - fc_w.base_ns, fc_w.t_s - fc_w.base_ticks);
        fc_w.rate_mult = rate;
        fc_w.rate_uncertainty = uncertainty;
    }
    if (fc_w.k_s - fc_w.base_ns >= REBASE_NS) {
        fc_w.base_ticks = fc_w.t_s, fc_w.base_ns = fc_w.k_s, fc_w.base_width = fc_w.w_s;
        fc_w.rate_uncertainty *= 2;
    }
    return rate;
}

/* In the write section: a line that jumped or went stale anchored on the kernel's value
 * read after the writer's wait (*t_a moved to it), above every value a stale reader
 * returned (read before its s2 load saw the old even seq, so WRITER_WAIT_NS before t_a):
 * the tightest of three counter/kernel/counter sandwiches, t_a their midpoint, so that a
 * preemption inside one does not anchor the line on a stale kernel value. */
static struct fc_segment anchored_on_kernel(const struct fc_segment *cur, uint64_t *t_a,
                                            bool jumped, uint64_t limit, uint64_t rate)
{
    uint64_t k, width;
    fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 3, t_a, &k, &width);
    if (jumped)
        return (struct fc_segment){*t_a, k, rate ? rate : cur->mult};
    return fc_stale_segment(cur, *t_a, k, limit, rate);
}

static void commit(void)
{
    uint64_t now = fc_counter_ordered();
    struct fc_segment cur = current_segment();
    uint64_t limit = atomic_load_explicit(&fc_line.limit_ticks, memory_order_relaxed);
    bool stale = (atomic_load_explicit(&fc_line.seq, memory_order_relaxed) & FC_SEQ_STALE) ||
                 now - cur.anchor_ticks >= limit;
    int64_t real = fc_w.real, boot = fc_w.boot;
    bool namespaced = entered_namespace(&cur);
    bool suspended = settle_offsets(namespaced, &real, &boot);

    /* The kernel's clock moved against the counter by more than FC_CLOCK_JUMP_NS (a new
     * time namespace, a restored checkpoint, a migrated VM), or by a namespace change of any
     * size: the new segment starts at the kernel's value, never a slew across it (hours at
     * 5%); the rate baseline restarts.  The segment extrapolated to t_s (128-bit: a stale
     * line's too) against the kernel: the rate is known to 50 ppm from the start, so only an
     * idle spell of over an hour could part them this far without a jump, and re-anchoring
     * is then what a stale line does anyway.  A missed jump would poison the rate. */
    int64_t offset = (int64_t)(fc_segment_eval(&cur, fc_w.t_s) - fc_w.k_s);
    bool jumped = namespaced || offset > (int64_t)FC_CLOCK_JUMP_NS || offset < -(int64_t)FC_CLOCK_JUMP_NS;
    fc_w.suspends += suspended;
    fc_w.jumps += jumped;
    /* An offset too big for a rate error to explain (the counter stalled or jumped: a
     * paused VM, an NMI storm; SLEW.big_offset_ns) also ends the baseline: a rate measured
     * across it would carry the step (5 ms over a 1 s baseline: 0.5%) and keep fastclock
     * hundreds of us off until the next rebase (tests/progs/fc_seam.c found it). */
    bool stepped = !stale && (offset >= (int64_t)SLEW.big_offset_ns ||
                              offset <= -(int64_t)SLEW.big_offset_ns);
    uint64_t rate = measured_rate(&cur, suspended || jumped || stepped);
    /* Stale (the readers were sparse, or preempted past the grace period): same period.
     * Not for the ticker: a ticker that woke late (a loaded machine, an emulator) says
     * nothing about the rate, and keeping a short period there kept it late for ever (under
     * qemu-user at load 7: stuck at 2 ms, 800 refreshes a second, the line stale between). */
    uint64_t next_period = stale && !fc_w.ahead ? fc_w.period_ns : fc_w.period_ns * 2;
    if (next_period > fc_w.max_period_ns)
        next_period = fc_w.max_period_ns;
    uint64_t seq;
    uint64_t t_a = write_begin(&seq, false);
    /* Offsets are corrected over two periods: the remaining offset halves at each refresh. */
    struct fc_segment next = jumped || stale ? anchored_on_kernel(&cur, &t_a, jumped, limit, rate)
                                             : fc_next_segment(&cur, t_a, offset, rate, next_period * 2, &SLEW);
    write_next(&next, t_a, real, boot);
    publish(&next, next_period, real, boot);
    write_end(seq);
    fc_w.period_ns = next_period;
    atomic_fetch_add_explicit(&fc_w.refreshes, 1, memory_order_relaxed);
    /* Back with the clock after a jump: `recent` is a value of the clock, not a floor; one
     * far above the new segment was taken before a jump back, whichever refresh saw it. */
    uint64_t recent = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    if (jumped || recent > next.anchor_ns + FC_CLOCK_JUMP_NS)
        __atomic_store_n(&fastclock_recent_cache, next.anchor_ns, __ATOMIC_RELAXED);
    else
        fc_atomic_max_recent(next.anchor_ns);
}

/* Inside a write section: segment s with the offsets, published on a live line; on a line
 * not live yet (the kernel answers it), its anchor as the new floor. */
static void install(const struct fc_segment *s, bool live, int64_t real, int64_t boot)
{
    if (live) {
        publish(s, fc_w.period_ns, real, boot);
        return;
    }
    atomic_store_explicit(&fc_line.anchor_ticks, s->anchor_ticks, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, s->anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&fc_line.floor_ns, s->anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&fc_line.real_offset, real, memory_order_relaxed);
    atomic_store_explicit(&fc_line.boot_offset, boot, memory_order_relaxed);
}

/* A write section that publishes the REALTIME and BOOTTIME offsets alone, the segment
 * unchanged (the fork child: the kernel's offsets changed, its MONOTONIC did not). */
static void publish_offsets(int64_t real, int64_t boot)
{
    uint64_t seq;
    uint64_t t_a = write_begin(&seq, false);
    struct fc_segment same = fc_sig.old;
    write_next(&same, t_a, real, boot);
    if (same.anchor_ticks != fc_sig.old.anchor_ticks) { /* a handler's value, folded in */
        install(&same, fc_sig.old_limit != 0, real, boot);
    } else {
        atomic_store_explicit(&fc_line.real_offset, real, memory_order_relaxed);
        atomic_store_explicit(&fc_line.boot_offset, boot, memory_order_relaxed);
    }
    write_end(seq);
}

static bool apart(int64_t a, int64_t b, int64_t bound) { return a - b > bound || b - a > bound; }

bool fc_follow_moved_clock(const struct fc_look *before)
{
    /* The counter only when on it: a counter that traps is why a line is on the kernel. */
    bool counter = atomic_load_explicit(&fc_line.source, memory_order_relaxed) == FC_SOURCE_COUNTER;
    uint64_t t = 0, k = fc_kernel_ns(CLOCK_MONOTONIC), w;
    struct fc_look now = {0};
    int64_t ns_shift = 0;
    if (counter) {
        fc_take_look(&now, FC_LOOK_TRIES);
        /* A namespace change between the parent's look and this one (the child was forked
         * into another time namespace).  A suspend-shaped change counts too: this child has
         * served no value yet, and its parent's were all below the kernel's MONOTONIC now
         * unless a namespace moved it (then lower values are the kernel's own). */
        bool like_suspend;
        if (before)
            ns_shift = fc_namespace_shift(before, &now, fc_w.rate_mult ? fc_w.rate_mult
                                                                       : atomic_load(&fc_line.mult),
                                          &like_suspend);
        fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 3, &t, &k, &w);
    }
    uint64_t floor = atomic_load_explicit(&fc_kernel_floor, memory_order_relaxed);
    bool moved = false;
    if (floor > k + FC_CLOCK_JUMP_NS) { /* on the kernel clock: a floor from before */
        atomic_store_explicit(&fc_kernel_floor, 0, memory_order_relaxed);
        moved = true;
    }
    if (counter) {
        struct fc_segment cur = current_segment();
        uint64_t limit = atomic_load_explicit(&fc_line.limit_ticks, memory_order_relaxed);
        bool live = limit != 0 && !(atomic_load_explicit(&fc_line.seq, memory_order_relaxed) &
                                    FC_SEQ_STALE) && t - cur.anchor_ticks < limit;
        /* Live: the segment's value now; else what a stale read holds to, the floor (below
         * the kernel by how long ago it was set: only a floor above it means a jump). */
        int64_t off = live ? (int64_t)(fc_segment_eval(&cur, t) - k)
                           : (int64_t)(atomic_load_explicit(&fc_line.floor_ns, memory_order_relaxed) - k);
        if (ns_shift || off > (int64_t)FC_CLOCK_JUMP_NS || (live && off < -(int64_t)FC_CLOCK_JUMP_NS)) {
            /* The offsets as they are now, no hysteresis: the line moves with them.  From
             * their own tight sandwiches, not the look's (its noise bounds the detection). */
            int64_t real = fc_clock_offset(CLOCK_REALTIME), boot = fc_clock_offset(CLOCK_BOOTTIME);
            uint64_t seq;
            uint64_t t_a = write_begin(&seq, false);
            fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 3, &t_a,
                           &k, &w);
            struct fc_segment next = {t_a, k, cur.mult};
            write_next(&next, t_a, real, boot);
            install(&next, live, real, boot);
            /* A new seq, FC_SEQ_STALE cleared; a line that is not live (limit 0) goes stale
             * again at its first read. */
            write_end(seq);
            fc_w.base_ticks = t_a, fc_w.base_ns = k, fc_w.base_width = w;
            fc_w.step = 0;
            fc_w.jumps++;
            moved = true;
        } else if (before && (apart(now.boot, before->boot, (int64_t)(now.noise_ns + before->noise_ns)) ||
                              apart(now.real, before->real, (int64_t)FC_REALTIME_HYSTERESIS_NS))) {
            /* BOOTTIME moved alone (a namespace whose BOOTTIME offset differs from its
             * MONOTONIC one, a suspend), or REALTIME was set: served at once, not at the
             * next refresh. */
            publish_offsets(fc_clock_offset(CLOCK_REALTIME), fc_clock_offset(CLOCK_BOOTTIME));
        }
        fc_w.look = now, fc_w.look_ok = true;
    }
    if (moved)
        __atomic_store_n(&fastclock_recent_cache, k, __ATOMIC_RELAXED);
    return moved;
}

/* One step; returns true when a refresh just completed (or none was due). */
static bool step_once(void)
{
    if (atomic_load_explicit(&fc_line.source, memory_order_relaxed) != FC_SOURCE_COUNTER ||
        !atomic_load_explicit(&fc_w.live_allowed, memory_order_acquire))
        return true;
    uint64_t now = fc_counter_ordered();
    uint64_t mult = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
    switch (fc_w.step) {
    case 0:
        if (!line_due(now))
            return true;
        fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 3, &fc_w.t_s,
                       &fc_w.k_s, &fc_w.w_s);
        fc_w.step = 1;
        return false;
    case 1:
        /* The offsets to publish (fc_clock_offset_w). */
        fc_w.real = fc_clock_offset_w(CLOCK_REALTIME, &fc_w.real_width);
        fc_w.step = 2;
        return false;
    case 2:
        fc_w.boot = fc_clock_offset_w(CLOCK_BOOTTIME, &fc_w.boot_width);
        fc_w.step = 5;
        return false;
    case 5:
        /* The namespace's witnesses, in one sandwich (fc_take_look): a namespace entered
         * between two separate samples would pass for a clock step.  A preempted look is
         * taken again at the next step. */
        fc_take_look(&fc_w.now, FC_LOOK_TRIES);
        if (fc_w.now.noise_ns <= LOOK_MAX_NOISE_NS)
            fc_w.step = 3;
        return false;
    case 3:
        fc_w.step = 4;
        if (fc_w.k_s - fc_w.last_check_ns >= fc_w.recheck_ns) {
            char why[200];
            fc_w.last_check_ns = fc_w.k_s;
            /* No provisional name: live means the kernel had listed the counter, and
             * only that counts now. */
            if (fc_check_clocksource(fc_sysfs_root(), arch_fast_counter_clocksource(), NULL,
                                     fc_w.clocksource, sizeof fc_w.clocksource, why,
                                     sizeof why) != FC_CS_USABLE) {
                fc_leave_counter(why);
                fc_w.step = 0;
                return true;
            }
            return false;
        }
        /* no re-check due: the commit is this step */
        __attribute__((fallthrough));
    default:
        fc_w.step = 0;
        if (now - fc_w.t_s > fc_ns_to_ticks(SAMPLE_MAX_AGE_NS, mult))
            return false; /* samples too old (reads thinned out): start again */
        commit();
        return true;
    }
}

void fc_refresh_step(void)
{
    if (atomic_exchange_explicit(&fc_refreshing, 1u, memory_order_acquire))
        return;
    step_once();
    atomic_store_explicit(&fc_refreshing, 0u, memory_order_release);
}

void fc_take_refreshing(void)
{
    while (atomic_exchange_explicit(&fc_refreshing, 1u, memory_order_acquire)) {
        struct timespec nap = {0, 10000};
        nanosleep(&nap, NULL);
    }
}

void fc_release_refreshing(void)
{
    atomic_store_explicit(&fc_refreshing, 0u, memory_order_release);
}

/* A whole refresh: up to 48 steps, 8 attempts of its 6 steps (a look taken again counts
 * as a step).  An attempt starts again when its samples are older than SAMPLE_MAX_AGE_NS
 * at the commit, which happens when this thread is preempted (a loaded machine, an
 * emulated CPU); callers are background threads (the checker, the ticker) or explicit
 * requests, never a user's read. */
void fc_refresh_locked(void)
{
    fc_w.step = 0;
    for (int i = 0; i < 8 * 6 && !step_once(); i++)
        ;
}

void fc_refresh_full(void)
{
    fc_take_refreshing();
    fc_refresh_locked();
    fc_release_refreshing();
}

uint64_t fc_refresh_ahead(void)
{
    fc_take_refreshing();
    fc_w.ahead = true;
    fc_refresh_locked();
    fc_w.ahead = false;
    uint64_t period = fc_w.period_ns;
    fc_release_refreshing();
    return period;
}

void fc_hold_torn_line(uint64_t ns)
{
    fc_take_refreshing();
    uint64_t seq;
    write_begin(&seq, false);
    uint64_t an = atomic_load_explicit(&fc_line.anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, 0, memory_order_relaxed);
    uint64_t end = fc_kernel_ns(CLOCK_MONOTONIC) + ns;
    while (fc_kernel_ns(CLOCK_MONOTONIC) < end)
        ;
    atomic_store_explicit(&fc_line.anchor_ns, an, memory_order_relaxed);
    write_end(seq);
    atomic_store_explicit(&fc_refreshing, 0u, memory_order_release);
}

