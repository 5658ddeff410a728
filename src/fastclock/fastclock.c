/* SPDX-License-Identifier: MIT */
/* libfastclock: the readers and the public calls (the writer is fc_refresh.c, the life
 * cycle fc_lifecycle.c, the state they share fc_state.h).  A read is fc_read.h's pass over
 * the line, the one copy of the seqlock, counter read and conversion, whose memory-ordering
 * argument is at the top of fc_read.h.  What libfastclock adds to it:
 *  - Refresh steps: nothing in a read waits for or does a whole refresh: a read does at
 *    most one bounded step of one (fc_refresh.c), and only when its thread reads densely.
 *    The step is a write section like any other (fc_read.h's writer).
 *  - Stale lines: the reader that finds the line past its limit sets FC_SEQ_STALE (a CAS
 *    from the even seq it validated); stale reads are answered by the kernel clock held at
 *    the line's floor (fc_line_stale_value).
 *  - Signal handlers: a handler that interrupts its own thread inside the write section
 *    (seq has WRITING, fc_tl_in_writer) must not wait for it: it reads the writer's snapshot
 *    (fc_sig, complete before the odd store): before t_a is known, old(t) while t is within
 *    the old limit, else max(kernel, old floor), recording what it returned in fc_sig.floor,
 *    which the writer folds into the new segment's start; once t_a is known (t >= t_a, read
 *    before the handler ran), new(t).  Both agree with what every other reader returns, by
 *    fc_read.h's argument.  A handler inside its own thread's initialisation reads the
 *    kernel clock (no line has been served yet).  Other threads wait for the writer: it runs.
 *  - The ticker (fc_lifecycle.c) is one more writer under fc_refreshing: the write section,
 *    and so everything above, is the same whoever runs it.  It refreshes from half the
 *    period on (fc_refresh_ahead), which only moves t_a earlier: the new segment still
 *    starts at old(t_a) or above, and no line is used past its limit.  It blocks every
 *    signal, so no handler runs inside its write sections (the fc_sig path serves readers'
 *    own steps).  A parked ticker leaves the line to go stale: the stale path, unchanged.
 *    What it reads to decide whether to park (fc_recent_due_ticks, fc_stale_reads_seen) are
 *    hints, relaxed, ordering nothing: a wrong guess costs a refresh or a stale read, never
 *    a value.
 *  - `recent` (fc_read_note_recent) is written only with a value the seqlock validated, after
 *    the validation; it is a value, relaxed, with a max: it never goes backwards either. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "arch/counter.h"
#include "fastclock/fc_counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_lifecycle.h"
#include "fastclock/fc_math.h"
#include "fastclock/fc_read.h"
#include "fastclock/fc_state.h"
#include "fastclock/fc_writer.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define RECENT_GRANULE_NS 100000ull  /* monotonic calls refresh `recent` this often */
#define DENSE_NS 100000ull           /* a thread whose slow reads are closer than this ... */
#define DENSE_RUN 16u                /* ... this many times in a row helps refresh */

/* The code a read runs when nothing is wrong, in one section: the entry points, a sparse
 * reader's tail calls (fc_read_note_recent, fc_read_stale).  After a pause every page a read touches
 * can be a TLB miss (a two-level walk in a VM): spread over three pages as the compiler
 * laid them out (the entry point, the `recent` update, and its CAS in another file), a read
 * 20-150 ms after the last cost 1.4-1.7 us at the median against the vDSO's 0.84-1.06;
 * in one page, 0.74-0.84 us (bench --gap on the development machine, a KVM guest).  no_reorder keeps them in source order, so the first (fc_read_stale)
 * starts the section and its 2 KiB alignment is the section's: under 2 KiB, the section
 * never straddles a page. */
#define FC_HOT_TEXT __attribute__((section(".text.fastclock_read"), no_reorder))
/* The monotonic value of this thread's last slow read (density: see maybe_step). */
static _Thread_local uint64_t tl_last_slow_ns FC_TLS;
/* How many of this thread's slow reads in a row came closer than DENSE_NS (up to DENSE_RUN). */
static _Thread_local uint32_t tl_dense_run FC_TLS;



static inline int source(void)
{
    int s = atomic_load_explicit(&fc_line.source, memory_order_acquire);
    if (__builtin_expect(s != FC_SOURCE_UNINIT, 1))
        return s;
    if (fc_tl_in_init)
        return FC_SOURCE_KERNEL; /* a signal handler inside this thread's initialisation */
    return fc_init();
}

/* ---- readers ---- */

/* The kernel's answer when fastclock is not on the counter. */
static uint64_t kernel_value(int which, clockid_t id)
{
    uint64_t v = fc_kernel_ns(id);
    if (which != FC_CLOCK_MONOTONIC)
        return v;
    uint64_t floor = atomic_load_explicit(&fc_kernel_floor, memory_order_relaxed);
    return v > floor ? v : floor;
}

/* Density: a thread whose last DENSE_RUN slow reads each came closer than DENSE_NS to the
 * one before does one bounded refresh step in this read; a sparse one never does (its reads
 * are answered by the kernel clock once the line is stale).  A step costs a few kernel
 * reads (about 1.5 us on a vDSO kernel, several us where the kernel falls back to the
 * syscall), so a short burst (a request that reads the time two or three times) must not
 * pay it: only a run long enough to amortize it does.  Per thread: no shared write. */
static inline void maybe_step(uint64_t now_ns)
{
    uint64_t last = tl_last_slow_ns;
    tl_last_slow_ns = now_ns;
    if (now_ns - last >= DENSE_NS) {
        tl_dense_run = 0;
        return;
    }
    if (tl_dense_run < DENSE_RUN)
        tl_dense_run++;
    else
        fc_refresh_step();
}

/* Tells the automatic ticker that the clock is read on a stale line (it parks when nobody
 * reads).  Stored only when clear: stale reads do not write the flag's line again and again. */
static inline void fc_note_stale_read(void)
{
    if (!atomic_load_explicit(&fc_stale_reads_seen, memory_order_relaxed))
        atomic_store_explicit(&fc_stale_reads_seen, 1u, memory_order_relaxed);
}

/* A stale line's read (FC_SEQ_STALE in s1): the kernel clock, validated by s1/s2 like a line
 * read, at or above the line's floor (fc_line_stale_value).  False if the seq changed (read
 * again).  Inline in fc_read_slow and fc_read_stale, where stale reads go. */
static inline __attribute__((always_inline)) bool read_stale(int which, clockid_t id, uint64_t s1,
                                                             uint64_t *out)
{
    uint64_t k = fc_kernel_ns(id);
    if (__builtin_expect(!fc_line_stale_value(&fc_line, which, s1, k, out), 0))
        return false;
    maybe_step(k - (uint64_t)fc_line_offset(&fc_line, which));
    fc_note_stale_read();
    return true;
}

/* A signal handler that interrupted this thread's own write section (see the top). */
static __attribute__((noinline)) uint64_t fc_read_in_own_writer(int which, clockid_t id)
{
    if (atomic_load_explicit(&fc_line.source, memory_order_acquire) != FC_SOURCE_COUNTER)
        return kernel_value(which, id); /* leave_counter already switched: its floor holds */
    uint64_t t = fc_counter_ordered();
    uint64_t t_a = fc_sig.t_a;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t v;
    int64_t real, boot;
    if (t_a && !fc_sig.leaving) {
        v = fc_segment_eval(&fc_sig.next, t);
        real = fc_sig.next_real, boot = fc_sig.next_boot;
    } else {
        const struct fc_segment *old = &fc_sig.old;
        real = fc_sig.old_real, boot = fc_sig.old_boot;
        if (t - old->anchor_ticks < fc_sig.old_limit) {
            v = fc_segment_eval(old, t);
        } else {
            uint64_t k = fc_kernel_ns(CLOCK_MONOTONIC);
            uint64_t floor = fc_segment_eval(old, old->anchor_ticks + fc_sig.old_limit);
            v = k > floor ? k : floor;
        }
        if (v > fc_sig.floor)
            fc_sig.floor = v; /* the writer starts its new segment at or above this */
    }
    return v + (uint64_t)(which == FC_CLOCK_REALTIME ? real : which == FC_CLOCK_BOOTTIME ? boot : 0);
}

/* Everything but the fast path: initialisation, the kernel source, a write in progress, a
 * stale line, a due line (a refresh step if dense), the `recent` update.  Passes bounded by
 * the line's limit, not its refresh point. */
static __attribute__((noinline)) uint64_t fc_read_slow(int which, clockid_t id)
{
    for (;;) {
        if (source() != FC_SOURCE_COUNTER)
            return kernel_value(which, id);
        struct fc_line_sample s;
        enum fc_read_status r = fc_line_pass(&fc_line, which, 1, &s);
        if (r == FC_READ_CHANGED)
            continue;
        if (r == FC_READ_BUSY && (s.s1 & FC_SEQ_WRITING)) {
            if (fc_tl_in_writer)
                return fc_read_in_own_writer(which, id);
            arch_spin_pause(); /* another thread's write section: ~2 us */
            continue;
        }
        if (r == FC_READ_BUSY) {
            uint64_t v;
            if (read_stale(which, id, s.s1, &v))
                return v;
            continue;
        }
        if (r == FC_READ_PAST) {
            /* Past the limit (or a counter far behind the anchor: reset): stale.  The CAS
             * fails if a writer started meanwhile; either way, read again. */
            uint64_t expected = s.s1;
            atomic_compare_exchange_strong_explicit(&fc_line.seq, &expected, s.s1 | FC_SEQ_STALE,
                                                    memory_order_relaxed, memory_order_relaxed);
            continue;
        }
        if (s.d >= s.refresh)
            maybe_step(s.v);
        /* `recent` is updated by calls every RECENT_GRANULE_NS. */
        if (s.t >= atomic_load_explicit(&fc_recent_due_ticks, memory_order_relaxed)) {
            atomic_store_explicit(&fc_recent_due_ticks, s.t + fc_ns_to_ticks(RECENT_GRANULE_NS, s.mult),
                                  memory_order_relaxed);
            fc_atomic_max_recent(s.v);
        }
        return s.v + (uint64_t)s.offset;
    }
}

/* A stale line's read, out of line so that the hot path below saves no registers for it;
 * placed beside it, so that a sparse reader touches no far code. */
static FC_HOT_TEXT __attribute__((noinline, aligned(2048))) uint64_t fc_read_stale(int which, clockid_t id, uint64_t s1)
{
    uint64_t v;
    return read_stale(which, id, s1, &v) ? v : fc_read_slow(which, id);
}

/* A live read whose `recent` update is due (every RECENT_GRANULE_NS; every read of a
 * sparse reader): the value is already validated; only the update is left.  A tail call
 * with the read's values, beside the hot path: no second counter read, no fc_read_slow
 * (far, cold code after a pause), no saved registers on the hot path. */
static FC_HOT_TEXT __attribute__((noinline)) uint64_t fc_read_note_recent(uint64_t t, uint64_t v, uint64_t m, int64_t off)
{
    atomic_store_explicit(&fc_recent_due_ticks, t + fc_ns_to_ticks(RECENT_GRANULE_NS, m),
                          memory_order_relaxed);
    fc_atomic_max_recent(v);
    return v + (uint64_t)off;
}

/* The common case, kept small: live line, not due, no writer, recent not due: fc_read.h's
 * pass bounded by the refresh point.  A stale line (a sparse reader) skips the counter
 * read: the kernel answers, in a tail call (inlining the kernel call here made every hot
 * read save and restore three callee-saved registers, ~2% of a read; sending it through
 * fc_read_slow cost a sparse read 0.5 us more: its code is cold after a pause). */
static inline __attribute__((always_inline)) uint64_t read_now(int which, clockid_t id)
{
    if (__builtin_expect(atomic_load_explicit(&fc_line.source, memory_order_acquire) != FC_SOURCE_COUNTER, 0))
        return fc_read_slow(which, id);
    struct fc_line_sample s;
    enum fc_read_status r = fc_line_pass(&fc_line, which, 0, &s);
    if (__builtin_expect(r != FC_READ_VALUE, 0)) {
        /* FC_SEQ_STALE without FC_SEQ_WRITING: only a stale line is busy that way. */
        if (r == FC_READ_BUSY && (s.s1 & (FC_SEQ_STALE | FC_SEQ_WRITING)) == FC_SEQ_STALE)
            return fc_read_stale(which, id, s.s1);
        return fc_read_slow(which, id);
    }
    if (__builtin_expect(s.t >= atomic_load_explicit(&fc_recent_due_ticks, memory_order_relaxed), 0))
        return fc_read_note_recent(s.t, s.v, s.mult, s.offset);
    return s.v + (uint64_t)s.offset;
}

FC_HOT_TEXT uint64_t fastclock_monotonic_ns(void)
{
    return read_now(FC_CLOCK_MONOTONIC, CLOCK_MONOTONIC);
}

FC_HOT_TEXT uint64_t fastclock_realtime_ns(void)
{
    return read_now(FC_CLOCK_REALTIME, CLOCK_REALTIME);
}

FC_HOT_TEXT uint64_t fastclock_boottime_ns(void)
{
    return read_now(FC_CLOCK_BOOTTIME, CLOCK_BOOTTIME);
}

uint64_t fastclock_ticks(void)
{
    if (__builtin_expect(source() == FC_SOURCE_COUNTER, 1))
        return fc_counter_raw();
    return fc_kernel_ns(CLOCK_MONOTONIC);
}

uint64_t fastclock_ticks_to_ns(uint64_t ticks)
{
    if (source() != FC_SOURCE_COUNTER)
        return ticks;
    return fc_ticks_to_ns(ticks, atomic_load_explicit(&fc_line.mult, memory_order_relaxed));
}

FC_HOT_TEXT uint64_t fastclock_recent_ns(void)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    return __builtin_expect(r != 0, 1) ? r : fastclock_monotonic_ns();
}

bool fc_counter_in_use(void) { return source() == FC_SOURCE_COUNTER; }

int fastclock_info(struct fastclock_info *info)
{
    int s = source();
    memset(info, 0, sizeof *info);
    info->source = s == FC_SOURCE_COUNTER ? FASTCLOCK_SOURCE_COUNTER : FASTCLOCK_SOURCE_KERNEL;
    snprintf(info->counter, sizeof info->counter, "%s", arch_fast_counter_name());
    fc_writer_info(info->kernel_clocksource, sizeof info->kernel_clocksource, info->why,
                   sizeof info->why, &info->stated_hz, info->stated_source,
                   sizeof info->stated_source, &info->refreshes, &info->suspends, &info->init_ns);
    /* The writer may have left the counter meanwhile: the source as of now. */
    s = atomic_load_explicit(&fc_line.source, memory_order_acquire);
    info->source = s == FC_SOURCE_COUNTER ? FASTCLOCK_SOURCE_COUNTER : FASTCLOCK_SOURCE_KERNEL;
    info->hz = s == FC_SOURCE_COUNTER ? fc_mult_hz(atomic_load(&fc_line.mult)) : 1e9;
    return 0;
}
