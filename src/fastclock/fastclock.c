/* SPDX-License-Identifier: MIT */
/* libfastclock: the readers and the public calls (the writer is fc_refresh.c).
 *
 * Memory ordering, in one place (docs/fastclock.md has the proof in prose):
 *  - Readers (any number, lock-free): s1 = load-acquire(seq); t = ordered counter read
 *    (rdtscp or lfence;rdtsc / isb;mrs / fence r,i;rdtime: after s1, the riscv fence
 *    because the ISA classes a CSR read as device input, unordered with loads otherwise); load the line (the acquire on
 *    s1 keeps these loads after it); acquire fence; s2 = load(seq); retry if s1 != s2.  The
 *    acquire fence keeps the line loads before the s2 load, so an unchanged seq without
 *    SEQ_WRITING means the line was not torn.  The fence pairs with the writer's seq_cst
 *    fence after its odd store; s1's acquire pairs with the writer's release of the even seq.
 *  - The one writer (holds g_refreshing): seq |= WRITING; seq_cst fence (the value is visible
 *    to all CPUs before the writer goes on); wait WRITER_WAIT_NS; t_a = ordered read;
 *    compute the new line from t_a; store the line; seq = next even value with release.
 *  - Why that gives monotonicity across threads: a reader that accepted the OLD line saw
 *    the old seq in its s2 load, so that load executed before the odd store became
 *    visible; its counter read may have executed after that load (nothing orders a later
 *    load after rdtsc), but only within the CPU's out-of-order window, which is far
 *    shorter than WRITER_WAIT_NS.  So its t < t_a and its value is old(t) <= old(t_a) <=
 *    new(t_a).  A reader that accepted the NEW line read its s1 after the even store, which
 *    came after t_a was read, and its counter read is ordered after s1: t >= t_a.  The new
 *    line never starts below the old one (fc_next_line), and lines increase in t, so values
 *    never decrease across readers, provided the counters of all CPUs agree (the kernel's
 *    boot-time sync check, and ours, which must pass before the first line goes live).
 *  - Staleness: a reader never uses a line more than limit_ticks past its anchor, so no
 *    value returned from a line exceeds floor_ns = line(anchor + limit).  A reader that finds
 *    the line past its limit sets SEQ_STALE (a CAS from the even seq it validated) and from
 *    then on reads are answered by the kernel clock, max(kernel, floor_ns), validated by the
 *    same s1/s2 pair around the kernel read (acquire fence after it): such a kernel value was
 *    read before the writer's odd store was visible, hence more than WRITER_WAIT_NS before
 *    the kernel read the writer takes after its wait, which anchors the next line
 *    (fc_stale_line: max(that kernel value, floor_ns)).  So the switch to the kernel and back
 *    never steps backwards either.  Nothing in a read waits for or does a whole refresh: a
 *    read does at most one bounded step of one (fc_refresh.c), and only when its thread reads
 *    densely.
 *  - Signal handlers: a handler that interrupts its own thread inside the write section
 *    (seq has WRITING, fc_tl_in_writer) must not wait for it: it reads the writer's snapshot
 *    (fc_sig, complete before the odd store): before t_a is known, old(t) while t is within
 *    the old limit, else max(kernel, old floor), recording what it returned in fc_sig.floor,
 *    which the writer folds into the new line's start; once t_a is known (t >= t_a, read
 *    before the handler ran), new(t).  Both agree with what every other reader returns, by
 *    the argument above.  A handler inside its own thread's initialisation reads the kernel
 *    clock (no line has been served yet).  Other threads wait for the writer: it runs.
 *  - The ticker (fc_lifecycle.c) is one more writer under fc_refreshing: the write section,
 *    and so everything above, is the same whoever runs it.  It refreshes from half the
 *    period on (fc_refresh_ahead), which only moves t_a earlier: the new line still starts
 *    at old(t_a) or above, and no line is used past its limit.  It blocks every signal, so
 *    no handler runs inside its write sections (the fc_sig path serves readers' own steps).
 *    A parked ticker leaves the line to go stale: the stale path above, unchanged.  What it
 *    reads to decide whether to park (fc_recent_due_ticks, fc_stale_reads_seen) are hints,
 *    relaxed, ordering nothing: a wrong guess costs a refresh or a stale read, never a value.
 *  - `recent` (note_recent) is written only with a value the seqlock validated, after the
 *    validation; it is a value, relaxed, with a max: it never goes backwards either. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "arch/counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_math.h"
#include "fastclock/fc_state.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define RECENT_GRANULE_NS 100000ull  /* monotonic calls refresh `recent` this often */
#define DENSE_NS 100000ull           /* a thread whose slow reads are closer than this ... */
#define DENSE_RUN 16u                /* ... this many times in a row helps refresh */
#define REALTIME_HYSTERESIS_NS 2000ull

/* What a read on the live line touches, in one page: the line, `recent` and its due point.
 * A sparse read finds them cold (evicted from the caches and the TLB during the pause): each
 * page costs a page walk, in a VM a two-dimensional one of hundreds of ns, which is why the
 * vDSO's cold read, one data page, is cheap.  One named section, in definition order
 * (no_reorder), the line 256-aligned: 128 + 64 + 8 bytes that never straddle a page. */
#define FC_HOT_DATA __attribute__((section(".data.fastclock_hot"), no_reorder))
/* The code a read runs when nothing is wrong, in one section: the entry points, a sparse
 * reader's tail calls (note_recent, stale_read).  After a pause every page a read touches
 * can be a TLB miss (a two-level walk in a VM): spread over three pages as the compiler
 * laid them out (the entry point, note_recent, and the recent CAS in fc_refresh.c), a read
 * 20-150 ms after the last cost 1.4-1.7 us at the median against the vDSO's 0.84-1.06;
 * in one page, 0.74-0.84 us (bench --gap on the development machine, a KVM guest).  no_reorder keeps them in source order, so the first (stale_read)
 * starts the section and its 2 KiB alignment is the section's: under 2 KiB, the section
 * never straddles a page. */
#define FC_HOT_TEXT __attribute__((section(".text.fastclock_read"), no_reorder))
FC_HIDDEN struct fc_shared fc_line FC_HOT_DATA __attribute__((aligned(256))) = {
    .kernel_clock = clock_gettime};
/* `recent`: exported for fastclock_recent_ns_inline(); accessed only through __atomic
 * builtins (relaxed: it is a value, not a flag guarding other data). */
uint64_t fastclock_recent_cache FC_HOT_DATA __attribute__((aligned(64)));
/* Counter value of the next `recent` update (same line).  The automatic ticker also watches
 * it: a change means reads on the live line (fc_lifecycle.c: it parks when nobody reads). */
FC_HIDDEN _Atomic uint64_t fc_recent_due_ticks FC_HOT_DATA;
_Static_assert(sizeof(struct fc_shared) + 64 + 8 <= 256, "the hot data fits in 256 bytes");
/* Set by stale reads (which do not update `recent`), cleared by the ticker when it sees it
 * set.  Neither is written by the ticker while reads come on the live line: a sparse read
 * finds them in its own cache.  Hints: relaxed, ordered with nothing. */
FC_HIDDEN _Atomic unsigned fc_stale_reads_seen;
/* The monotonic value of this thread's last slow read (density: see maybe_step). */
static _Thread_local uint64_t tl_last_slow_ns FC_TLS;
/* How many of this thread's slow reads in a row came closer than DENSE_NS (up to DENSE_RUN). */
static _Thread_local uint32_t tl_dense_run FC_TLS;



static inline int source(void)
{
    int s = atomic_load_explicit(&fc_line.source, memory_order_acquire);
    if (__builtin_expect(s != ST_UNINIT, 1))
        return s;
    if (fc_tl_in_init)
        return ST_KERNEL; /* a signal handler inside this thread's initialisation */
    return fc_init();
}

/* ---- readers ---- */

/* The kernel's answer when fastclock is not on the counter. */
static uint64_t kernel_value(int which, clockid_t id)
{
    uint64_t v = fc_kernel_ns(id);
    if (which != 0)
        return v;
    uint64_t floor = atomic_load_explicit(&fc_kernel_floor, memory_order_relaxed);
    return v > floor ? v : floor;
}

/* A stale line's read: the kernel value of `which`, never below what the line returned.
 * Realtime may step as CLOCK_REALTIME does; only a difference below the offset's noise is
 * held (as the writer holds realtime offset changes below REALTIME_HYSTERESIS_NS). */
static uint64_t clamp_to_floor(int which, uint64_t k, uint64_t floor_mono, int64_t off)
{
    uint64_t floor = floor_mono + (uint64_t)off;
    if (which == 1)
        return k < floor && floor - k < REALTIME_HYSTERESIS_NS ? floor : k;
    return k > floor ? k : floor;
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

static inline int64_t load_offset(int which)
{
    return which == 1 ? atomic_load_explicit(&fc_line.real_offset, memory_order_relaxed)
         : which == 2 ? atomic_load_explicit(&fc_line.boot_offset, memory_order_relaxed)
                      : 0;
}

/* A stale line's read (SEQ_STALE in s1): the kernel clock, validated by s1/s2 like a line
 * read, at or above the line's floor.  False if the seq changed (read again).  Inline in
 * read_slow, where a stale read goes. */
static inline __attribute__((always_inline)) bool read_stale(int which, clockid_t id, uint64_t s1,
                                                             uint64_t *out)
{
    uint64_t k = fc_kernel_ns(id);
    /* The kernel read before the s2 load (pairs with the writer's seq_cst fence). */
    atomic_thread_fence(memory_order_acquire);
    uint64_t floor = atomic_load_explicit(&fc_line.floor_ns, memory_order_relaxed);
    int64_t off = load_offset(which);
    atomic_thread_fence(memory_order_acquire);
    if (__builtin_expect(atomic_load_explicit(&fc_line.seq, memory_order_relaxed) != s1, 0))
        return false;
    maybe_step(k - (uint64_t)off);
    fc_note_stale_read();
    *out = clamp_to_floor(which, k, floor, off);
    return true;
}

/* A signal handler that interrupted this thread's own write section (see the top). */
static __attribute__((noinline)) uint64_t read_in_own_writer(int which, clockid_t id)
{
    if (atomic_load_explicit(&fc_line.source, memory_order_acquire) != ST_COUNTER)
        return kernel_value(which, id); /* leave_counter already switched: its floor holds */
    uint64_t t = arch_counter_ordered();
    uint64_t t_a = fc_sig.t_a;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t v;
    int64_t real, boot;
    if (t_a && !fc_sig.leaving) {
        v = fc_line_eval(&fc_sig.next, t);
        real = fc_sig.next_real, boot = fc_sig.next_boot;
    } else {
        const struct fc_line *old = &fc_sig.old;
        real = fc_sig.old_real, boot = fc_sig.old_boot;
        if (t - old->anchor_ticks < fc_sig.old_limit) {
            v = fc_line_eval(old, t);
        } else {
            uint64_t k = fc_kernel_ns(CLOCK_MONOTONIC);
            uint64_t floor = fc_line_eval(old, old->anchor_ticks + fc_sig.old_limit);
            v = k > floor ? k : floor;
        }
        if (v > fc_sig.floor)
            fc_sig.floor = v; /* the writer starts its new line at or above this */
    }
    return v + (uint64_t)(which == 1 ? real : which == 2 ? boot : 0);
}

/* Everything but the fast path: initialisation, the kernel source, a write in progress, a
 * stale line, a due line (a refresh step if dense), the `recent` update. */
static __attribute__((noinline)) uint64_t read_slow(int which, clockid_t id)
{
    for (;;) {
        if (source() != ST_COUNTER)
            return kernel_value(which, id);
        uint64_t s1 = atomic_load_explicit(&fc_line.seq, memory_order_acquire);
        if (s1 & SEQ_WRITING) {
            if (fc_tl_in_writer)
                return read_in_own_writer(which, id);
            arch_spin_pause(); /* another thread's write section: ~2 us */
            continue;
        }
        if (s1 & SEQ_STALE) {
            uint64_t v;
            if (read_stale(which, id, s1, &v))
                return v;
            continue;
        }
        uint64_t t = arch_counter_ordered();
        uint64_t at = atomic_load_explicit(&fc_line.anchor_ticks, memory_order_relaxed);
        uint64_t an = atomic_load_explicit(&fc_line.anchor_ns, memory_order_relaxed);
        uint64_t m = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
        uint64_t rt = atomic_load_explicit(&fc_line.refresh_ticks, memory_order_relaxed);
        uint64_t lim = atomic_load_explicit(&fc_line.limit_ticks, memory_order_relaxed);
        int64_t off = load_offset(which);
        /* Pairs with the writer's seq_cst fence after its odd store (see the top). */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&fc_line.seq, memory_order_relaxed) != s1)
            continue;
        uint64_t d = t - at; /* t < at (other CPU, just refreshed) wraps: checked below */
        if (d >= lim) {
            if ((int64_t)d < 0 && (uint64_t)-(int64_t)d < lim) {
                d = 0; /* t a hair before the anchor (CPUs a few ticks apart): the anchor */
            } else {
                /* Past the limit (or a counter far behind the anchor: reset): stale.  The
                 * CAS fails if a writer started meanwhile; either way, read again. */
                uint64_t expected = s1;
                atomic_compare_exchange_strong_explicit(&fc_line.seq, &expected, s1 | SEQ_STALE,
                                                        memory_order_relaxed, memory_order_relaxed);
                continue;
            }
        }
        /* d < lim (~102 ms at most): d * m fits in 64 bits (FC_MAX_EXTRAPOLATION_NS). */
        uint64_t v = an + ((d * m) >> FC_SHIFT);
        if (d >= rt)
            maybe_step(v);
        /* `recent` is updated by calls every RECENT_GRANULE_NS. */
        if (t >= atomic_load_explicit(&fc_recent_due_ticks, memory_order_relaxed)) {
            atomic_store_explicit(&fc_recent_due_ticks, t + fc_ns_to_ticks(RECENT_GRANULE_NS, m),
                                  memory_order_relaxed);
            fc_atomic_max_recent(v);
        }
        return v + (uint64_t)off;
    }
}

/* A stale line's read, out of line so that the hot path below saves no registers for it;
 * placed beside it, so that a sparse reader touches no far code. */
static FC_HOT_TEXT __attribute__((noinline, aligned(2048))) uint64_t stale_read(int which, clockid_t id, uint64_t s1)
{
    uint64_t v;
    return read_stale(which, id, s1, &v) ? v : read_slow(which, id);
}

/* A live read whose `recent` update is due (every RECENT_GRANULE_NS; every read of a
 * sparse reader): the value is already validated; only the update is left.  A tail call
 * with the read's values, beside the hot path: no second counter read, no read_slow (far,
 * cold code after a pause), no saved registers on the hot path. */
static FC_HOT_TEXT __attribute__((noinline)) uint64_t note_recent(uint64_t t, uint64_t v, uint64_t m, int64_t off)
{
    atomic_store_explicit(&fc_recent_due_ticks, t + fc_ns_to_ticks(RECENT_GRANULE_NS, m),
                          memory_order_relaxed);
    fc_atomic_max_recent(v);
    return v + (uint64_t)off;
}

/* The common case, kept small: live line, not due, no writer, recent not due.  Only s1
 * lives across the counter read (one saved register); the line is loaded after the read,
 * which the seqlock allows (every load between s1 and s2 is checked) and the ordering
 * argument above does not change (it rests on s1 -> t and t -> s2). */
static inline __attribute__((always_inline)) uint64_t read_now(int which, clockid_t id)
{
    if (__builtin_expect(atomic_load_explicit(&fc_line.source, memory_order_acquire) != ST_COUNTER, 0))
        return read_slow(which, id);
    /* Acquire: pairs with the writer's release of the even seq (write_end). */
    uint64_t s1 = atomic_load_explicit(&fc_line.seq, memory_order_acquire);
    /* A stale line (a sparse reader) skips the counter read: the kernel answers.  A tail
     * call: inlining the kernel call here made every hot read save and restore three
     * callee-saved registers (~2% of a read); sending it through read_slow cost a sparse
     * read 0.5 us more (read_slow's code is cold after a pause). */
    if (__builtin_expect(s1 & SEQ_STALE, 0))
        return stale_read(which, id, s1);
    uint64_t t = arch_counter_ordered();
    uint64_t at = atomic_load_explicit(&fc_line.anchor_ticks, memory_order_relaxed);
    uint64_t an = atomic_load_explicit(&fc_line.anchor_ns, memory_order_relaxed);
    uint64_t m = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
    uint64_t rt = atomic_load_explicit(&fc_line.refresh_ticks, memory_order_relaxed);
    int64_t off = load_offset(which);
    uint64_t due = atomic_load_explicit(&fc_recent_due_ticks, memory_order_relaxed);
    /* Pairs with the writer's seq_cst fence after its odd store (write_begin). */
    atomic_thread_fence(memory_order_acquire);
    uint64_t s2 = atomic_load_explicit(&fc_line.seq, memory_order_relaxed);
    uint64_t d = t - at;
    /* SEQ_WRITING and SEQ_STALE both send the read to the slow path. */
    if (__builtin_expect((s1 != s2) | (s1 & (SEQ_WRITING | SEQ_STALE)) | (d >= rt), 0))
        return read_slow(which, id);
    /* d < rt < limit: d * m fits in 64 bits (FC_MAX_EXTRAPOLATION_NS, fc_math.h). */
    uint64_t v = an + ((d * m) >> FC_SHIFT);
    if (__builtin_expect(t >= due, 0))
        return note_recent(t, v, m, off);
    return v + (uint64_t)off;
}

FC_HOT_TEXT uint64_t fastclock_monotonic_ns(void)
{
    return read_now(0, CLOCK_MONOTONIC);
}

FC_HOT_TEXT uint64_t fastclock_realtime_ns(void)
{
    return read_now(1, CLOCK_REALTIME);
}

FC_HOT_TEXT uint64_t fastclock_boottime_ns(void)
{
    return read_now(2, CLOCK_BOOTTIME);
}

uint64_t fastclock_ticks(void)
{
    if (__builtin_expect(source() == ST_COUNTER, 1))
        return arch_counter_raw();
    return fc_kernel_ns(CLOCK_MONOTONIC);
}

uint64_t fastclock_ticks_to_ns(uint64_t ticks)
{
    if (source() != ST_COUNTER)
        return ticks;
    return fc_ticks_to_ns(ticks, atomic_load_explicit(&fc_line.mult, memory_order_relaxed));
}

FC_HOT_TEXT uint64_t fastclock_recent_ns(void)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    return __builtin_expect(r != 0, 1) ? r : fastclock_monotonic_ns();
}

bool fc_counter_in_use(void) { return source() == ST_COUNTER; }

int fastclock_info(struct fastclock_info *info)
{
    int s = source();
    memset(info, 0, sizeof *info);
    info->source = s == ST_COUNTER ? FASTCLOCK_SOURCE_COUNTER : FASTCLOCK_SOURCE_KERNEL;
    snprintf(info->counter, sizeof info->counter, "%s", arch_fast_counter_name());
    fc_writer_info(info->kernel_clocksource, sizeof info->kernel_clocksource, info->why,
                   sizeof info->why, &info->stated_hz, info->stated_source,
                   sizeof info->stated_source, &info->refreshes, &info->suspends, &info->init_ns);
    /* The writer may have left the counter meanwhile: the source as of now. */
    s = atomic_load_explicit(&fc_line.source, memory_order_acquire);
    info->source = s == ST_COUNTER ? FASTCLOCK_SOURCE_COUNTER : FASTCLOCK_SOURCE_KERNEL;
    info->hz = s == ST_COUNTER ? fc_mult_hz(atomic_load(&fc_line.mult)) : 1e9;
    return 0;
}
