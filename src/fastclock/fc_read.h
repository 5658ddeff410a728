/* SPDX-License-Identifier: MIT */
/* The read path of a line (fc_line.h): the one copy of the seqlock, the counter read and
 * the conversion.  libfastclock's readers (fastclock.c) are built on it, and so is a reader
 * injected into a program that does not link libfastclock (issue 25), which compiles this
 * header freestanding: static inline only, no libc, no TLS, no errno, no stack protector,
 * no call (tests/test_fastclock.py checks the object on x86_64, aarch64 and riscv64).
 * What a read cannot answer it says so (FC_READ_*): the caller then asks the kernel.
 *
 * Memory ordering, in one place (docs/fastclock.md has the proof in prose):
 *  - Readers (any number, lock-free): s1 = load-acquire(seq); t = ordered counter read
 *    (rdtscp or lfence;rdtsc / isb;mrs / fence r,i;rdtime: after s1; the riscv fence
 *    because the ISA classes a CSR read as device input, unordered with loads otherwise);
 *    load the line (the acquire on s1 keeps these loads after it); acquire fence;
 *    s2 = load(seq); retry if s1 != s2.  The acquire fence keeps the line loads before the
 *    s2 load, so an unchanged seq without FC_SEQ_WRITING means the line was not torn.  The
 *    fence pairs with the writer's seq_cst fence after its odd store; s1's acquire pairs
 *    with the writer's release of the even seq.
 *  - The one writer (libfastclock: whoever holds fc_refreshing, fc_refresh.c):
 *    seq |= WRITING; seq_cst fence (the value is visible to all CPUs before the writer goes
 *    on); wait WRITER_WAIT_NS; t_a = ordered read; compute the new segment from t_a; store
 *    the line; seq = next even value with release.
 *  - Why that gives monotonicity across threads: a reader that accepted the OLD line saw
 *    the old seq in its s2 load, so that load executed before the odd store became
 *    visible; its counter read may have executed after that load (nothing orders a later
 *    load after rdtsc), but only within the CPU's out-of-order window, which is far
 *    shorter than WRITER_WAIT_NS.  So its t < t_a and its value is old(t) <= old(t_a) <=
 *    new(t_a).  A reader that accepted the NEW line read its s1 after the even store, which
 *    came after t_a was read, and its counter read is ordered after s1: t >= t_a.  The new
 *    segment never starts below the old one (fc_next_segment), and segments increase in t,
 *    so values never decrease across readers, provided the counters of all CPUs agree (the
 *    kernel's boot-time sync check, and libfastclock's, which must pass before the first
 *    line goes live).
 *  - Staleness: a reader never uses a line more than limit_ticks past its anchor, so no
 *    value returned from a line exceeds floor_ns = segment(anchor + limit).  A reader that
 *    finds the line past its limit may set FC_SEQ_STALE (a CAS from the even seq it
 *    validated); from then on reads are answered by the kernel clock, max(kernel, floor_ns)
 *    (fc_line_stale_value), validated by the same s1/s2 pair around the kernel read (acquire
 *    fence after it): such a kernel value was read before the writer's odd store was
 *    visible, hence more than WRITER_WAIT_NS before the kernel read the writer takes after
 *    its wait, which anchors the next segment (fc_stale_segment: max(that kernel value,
 *    floor_ns)).  So the switch to the kernel and back never steps backwards either.
 *  - A line being written (FC_SEQ_WRITING) is never answered from the kernel: the old
 *    segment may be behind the kernel (a slew in progress), and a kernel value taken now
 *    could exceed what the new segment gives a later reader.  Readers wait (FC_READ_BUSY).
 * What is libfastclock's alone (refresh steps on dense reads, the signal-handler path, the
 * ticker, `recent`) is argued at the top of fastclock.c. */
#ifndef FASTCLOCK_READ_H
#define FASTCLOCK_READ_H

#include "arch/counter.h"
#include "fastclock/fc_line.h"

#include <stdint.h>

#define FC_INLINE static inline __attribute__((always_inline))
/* The counter read a pass makes: the arch's ordered read; a test build of libfastclock
 * substitutes its own (fc_counter.h, FC_COUNTER_SEAM). */
#ifndef FC_READ_COUNTER
#define FC_READ_COUNTER() arch_counter_ordered()
#endif

/* A REALTIME value from a stale line less than this below the line's floor is held at the
 * floor: the REALTIME offset's noise (the kernel's REALTIME and MONOTONIC are read one after
 * the other, so their difference moves by a few hundred ns from one refresh to the next),
 * not a step of the clock.  A refresh keeps an offset that moved by less (fc_refresh.c), so
 * the held value and the next line agree.  One definition for every reader: libfastclock's
 * and the one `run` injects (src/run/reader/reader.c). */
#define FC_REALTIME_HYSTERESIS_NS 2000ull

/* Which clock: the line is CLOCK_MONOTONIC's; the others add an offset. */
enum { FC_CLOCK_MONOTONIC = 0, FC_CLOCK_REALTIME = 1, FC_CLOCK_BOOTTIME = 2 };

/* What one pass over the line gave. */
enum fc_read_status {
    FC_READ_VALUE = 0, /* a value (sample.v, plus sample.offset for REALTIME/BOOTTIME) */
    FC_READ_CHANGED,   /* the line changed during the read: read again */
    FC_READ_BUSY,      /* a write in progress or a stale line (sample.s1 says which) */
    FC_READ_PAST,      /* the counter is past the bound (or far before the anchor) */
    FC_READ_KERNEL,    /* the line is not on the counter: ask the kernel */
};

struct fc_line_sample {
    uint64_t s1;      /* the seq the pass validated against */
    uint64_t t;       /* the counter */
    uint64_t d;       /* ticks past the anchor */
    uint64_t v;       /* the monotonic value (FC_READ_VALUE) */
    uint64_t mult;
    uint64_t refresh; /* refresh_ticks (passes bounded by the limit only) */
    int64_t offset;   /* the clock's offset from monotonic */
};

FC_INLINE uint64_t fc_line_seq_begin(const struct fc_line *l)
{
    /* Acquire: pairs with the writer's release of the even seq. */
    return __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE);
}

/* True when nothing in the line changed since s1 was read: every load before this call is
 * ordered before the second seq load (pairs with the writer's seq_cst fence after its odd
 * store). */
FC_INLINE int fc_line_seq_unchanged(const struct fc_line *l, uint64_t s1)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&l->seq, __ATOMIC_RELAXED) == s1;
}

FC_INLINE int64_t fc_line_offset(const struct fc_line *l, int which)
{
    return which == FC_CLOCK_REALTIME ? __atomic_load_n(&l->real_offset, __ATOMIC_RELAXED)
         : which == FC_CLOCK_BOOTTIME ? __atomic_load_n(&l->boot_offset, __ATOMIC_RELAXED)
                                      : 0;
}

/* The segment's value d ticks past its anchor.  d < bound <= limit keeps d * mult in 64 bits
 * (FC_MAX_EXTRAPOLATION_NS, fc_math.h): no 128-bit arithmetic, no libgcc call. */
FC_INLINE uint64_t fc_line_value(uint64_t anchor_ns, uint64_t d, uint64_t mult)
{
    return anchor_ns + ((d * mult) >> FC_LINE_SHIFT);
}

/* One pass: s1, one ordered counter read, the segment, s2.  to_limit (a constant where it
 * is inlined) picks the bound: 0 refresh_ticks (libfastclock's fast path: past it the slow
 * path may help refresh), 1 limit_ticks (anyone else: past it the line is stale), 2
 * limit_ticks for a caller that does not look at s->refresh (left 0: one load and one
 * register fewer, what lets the injected reader's fast path go without a stack frame).  A
 * counter a hair before the anchor (another CPU's, read just after a refresh; less than
 * the bound before it) reads as the anchor.  Loads only the first 64 bytes when
 * !to_limit and which is monotonic. */
FC_INLINE enum fc_read_status fc_line_pass(const struct fc_line *l, int which, int to_limit,
                                           struct fc_line_sample *s)
{
    uint64_t s1 = fc_line_seq_begin(l);
    s->s1 = s1;
    if (__builtin_expect(s1 & (FC_SEQ_WRITING | FC_SEQ_STALE), 0))
        return FC_READ_BUSY; /* before the counter read: a stale line needs none */
    uint64_t t = FC_READ_COUNTER();
    /* t < anchor wraps: checked below, once the line is validated. */
    uint64_t d = t - __atomic_load_n(&l->anchor_ticks, __ATOMIC_RELAXED);
    uint64_t an = __atomic_load_n(&l->anchor_ns, __ATOMIC_RELAXED);
    uint64_t m = __atomic_load_n(&l->mult, __ATOMIC_RELAXED);
    uint64_t rt = to_limit == 2 ? 0 : __atomic_load_n(&l->refresh_ticks, __ATOMIC_RELAXED);
    uint64_t bound = to_limit ? __atomic_load_n(&l->limit_ticks, __ATOMIC_RELAXED) : rt;
    int64_t off = fc_line_offset(l, which);
    if (__builtin_expect(!fc_line_seq_unchanged(l, s1), 0))
        return FC_READ_CHANGED;
    s->t = t;
    s->mult = m;
    s->refresh = rt;
    s->offset = off;
    if (__builtin_expect(d >= bound, 0)) {
        if (!((int64_t)d < 0 && (uint64_t)-(int64_t)d < bound)) {
            s->d = d;
            return FC_READ_PAST;
        }
        d = 0;
    }
    s->d = d;
    s->v = fc_line_value(an, d, m);
    return FC_READ_VALUE;
}

/* A stale line's answer: the kernel's value k of `which` (read by the caller after s1,
 * which had FC_SEQ_STALE), never below what the line returned (unless the kernel's clock
 * jumped back by more than FC_CLOCK_JUMP_NS).  MONOTONIC and BOOTTIME are held at the floor; REALTIME may
 * step as CLOCK_REALTIME does, only a difference below FC_REALTIME_HYSTERESIS_NS (the
 * offset's noise) is held.  False if the line changed since s1 (read
 * again): the acquire fence keeps the caller's kernel read before the s2 load. */
FC_INLINE int fc_line_stale_value(const struct fc_line *l, int which, uint64_t s1, uint64_t k,
                                  uint64_t *out)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t floor = __atomic_load_n(&l->floor_ns, __ATOMIC_RELAXED);
    int64_t off = fc_line_offset(l, which);
    if (!fc_line_seq_unchanged(l, s1))
        return 0;
    /* A floor far above the kernel: the kernel's clock moved back under the process (a new
     * time namespace, FC_CLOCK_JUMP_NS): the kernel's values, not a floor from before. */
    if (floor > k - (uint64_t)off + FC_CLOCK_JUMP_NS)
        floor = 0;
    floor += (uint64_t)off;
    if (which == FC_CLOCK_REALTIME)
        *out = k < floor && floor - k < FC_REALTIME_HYSTERESIS_NS ? floor : k;
    else
        *out = k > floor ? k : floor;
    return 1;
}

/* fc_line_read_once: one pass of fc_line_read, for a caller that takes anything but
 * FC_READ_VALUE to its own slow path (the injected reader's entry points: without the
 * retry loop nothing but the sample lives across the counter read); s->v + s->offset is
 * the value.
 * fc_line_read: a whole read for a reader that does not write the line (an injected reader): the value
 * of `which`, or why not.  FC_READ_BUSY with FC_SEQ_WRITING in *s1: read again (never the
 * kernel, see the top); with FC_SEQ_STALE, and FC_READ_PAST: answer from the kernel through
 * fc_line_stale_value (after FC_READ_PAST, the line's own s1 is not stale: the writer, not
 * the reader, decides; a reader may set FC_SEQ_STALE with a CAS from *s1 as libfastclock's
 * do).  FC_READ_KERNEL: the line is not on the counter, or its format is not this one. */
/* fc_line_understood() and source == FC_SOURCE_COUNTER.  Where a 64-bit constant is part of
 * the instruction (arch/<arch>/counter.h: ARCH_WORD_CONSTANTS_IN_CODE, x86_64's movabs) in
 * two 64-bit loads, not four: the words at offsets 8 (magic, version) and 16 (source, shift)
 * read whole (aligned 8-byte loads are single-copy atomic; little-endian: the
 * lower-addressed field is the low half).  Elsewhere the constant would be data beside the
 * code, which a reader copied alone to another address would not carry: field by field.  The source's load is an acquire
 * either way: a line switched to the counter is read after what the writer stored before. */
typedef uint64_t __attribute__((may_alias)) fc_line_word;
#define FC_LINE_WORD_FORMAT ((uint64_t)FC_LINE_VERSION << 32 | FC_LINE_MAGIC)
#define FC_LINE_WORD_ON_COUNTER ((uint64_t)FC_LINE_SHIFT << 32 | FC_SOURCE_COUNTER)
FC_INLINE int fc_line_on_counter(const struct fc_line *l)
{
#if ARCH_WORD_CONSTANTS_IN_CODE
    return __atomic_load_n((const fc_line_word *)(const void *)&l->magic, __ATOMIC_RELAXED) ==
               FC_LINE_WORD_FORMAT &&
           __atomic_load_n((const fc_line_word *)(const void *)&l->source, __ATOMIC_ACQUIRE) ==
               FC_LINE_WORD_ON_COUNTER;
#else
    return fc_line_understood(l) &&
           __atomic_load_n(&l->source, __ATOMIC_ACQUIRE) == FC_SOURCE_COUNTER;
#endif
}
_Static_assert(__builtin_offsetof(struct fc_line, version) == __builtin_offsetof(struct fc_line, magic) + 4 &&
               __builtin_offsetof(struct fc_line, shift) == __builtin_offsetof(struct fc_line, source) + 4 &&
               __builtin_offsetof(struct fc_line, magic) % 8 == 0 &&
               __builtin_offsetof(struct fc_line, source) % 8 == 0,
               "fc_line_on_counter reads (magic, version) and (source, shift) as aligned words");

FC_INLINE enum fc_read_status fc_line_read_once(const struct fc_line *l, int which,
                                                struct fc_line_sample *s)
{
    if (!fc_line_on_counter(l))
        return FC_READ_KERNEL;
    return fc_line_pass(l, which, 2, s);
}

FC_INLINE enum fc_read_status fc_line_read(const struct fc_line *l, int which, uint64_t *out,
                                           uint64_t *s1)
{
    struct fc_line_sample s;
    enum fc_read_status r;
    do
        r = fc_line_read_once(l, which, &s);
    while (r == FC_READ_CHANGED);
    *s1 = s.s1;
    if (r == FC_READ_VALUE)
        *out = s.v + (uint64_t)s.offset;
    return r;
}

#endif
