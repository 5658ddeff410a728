/* SPDX-License-Identifier: MIT */
/* The line: what fastclock publishes for its readers, the one data layout they read.
 *
 * Between two refreshes fastclock's clock is a straight segment of counter -> nanoseconds
 * (fc_math.h); the line is that segment as published, with what a reader needs around it
 * (how far it may be extrapolated, the REALTIME/BOOTTIME offsets) under a sequence word.
 * libfastclock keeps one in its own memory (fc_state.c); a reader injected into another
 * program (issue 25) can map one from a shared page.  So the layout is a format:
 *   - position-independent and pointer-free (nothing in it means anything at one address
 *     only: the kernel clock function libfastclock calls lives beside it, fc_state.h);
 *   - fixed-size fields at fixed offsets (static asserts below), little-endian as the
 *     machine is (all three arches);
 *   - a magic and a version word, so that a reader that was compiled against another layout
 *     refuses it (fc_line_understood) rather than reading garbage as a time.
 * Every field is written with atomic stores and read with atomic loads (relaxed: the seq
 * word's acquire/release and fences order them; the argument is in fc_read.h).
 *
 * Freestanding: <stdint.h> only (a freestanding header), no libc, no TLS. */
#ifndef FASTCLOCK_LINE_H
#define FASTCLOCK_LINE_H

#include <stdint.h>

/* "fcln" read as a little-endian word. */
#define FC_LINE_MAGIC 0x6e6c6366u
/* Bump when a field moves, changes meaning or the read protocol changes. */
#define FC_LINE_VERSION 1u
#define FC_LINE_SHIFT 32u /* mult is ns per tick in 32.32 fixed point */

/* The kernel's CLOCK_MONOTONIC and the line more than this apart: the counter-to-clock
 * mapping changed under the process (a child forked into a new time namespace, a restored
 * checkpoint, a VM migrated with another counter offset).  Readers and the writer then
 * follow the kernel at once, in either direction, as the kernel's own values do; slewing
 * at 5% across such a jump would serve wrong values for hours.  Nothing else parts them
 * this far: a line serves at most ~102 ms past its anchor, and a refresh corrects its
 * offset within a few periods. */
#define FC_CLOCK_JUMP_NS 250000000ull

/* The line's source: where its answers come from. */
enum { FC_SOURCE_UNINIT = 0, FC_SOURCE_COUNTER = 1, FC_SOURCE_KERNEL = 2 };

/* seq: bit 0 set while the writer changes the line; bit 1 set (by a reader, with a CAS
 * from an even value) once the line is stale: readers then answer from the kernel clock
 * without reading the counter.  The writer advances seq by 4 and clears both bits. */
#define FC_SEQ_WRITING 1ull
#define FC_SEQ_STALE 2ull
#define FC_SEQ_STEP 4ull

/* The first 64 bytes are what a monotonic read touches (the fast path and a stale read);
 * the rest only slow paths and the REALTIME/BOOTTIME offsets. */
struct fc_line {
    _Atomic uint64_t seq;
    _Atomic uint32_t magic;         /* FC_LINE_MAGIC, constant */
    _Atomic uint32_t version;       /* FC_LINE_VERSION, constant */
    _Atomic uint32_t source;        /* FC_SOURCE_* */
    _Atomic uint32_t shift;         /* FC_LINE_SHIFT, constant */
    _Atomic uint64_t anchor_ticks;  /* the segment: value anchor_ns at counter anchor_ticks */
    _Atomic uint64_t anchor_ns;     /*   (CLOCK_MONOTONIC's domain) ... */
    _Atomic uint64_t mult;          /*   ... slope: ns per tick << FC_LINE_SHIFT */
    _Atomic uint64_t refresh_ticks; /* past anchor+this, libfastclock's reads may do a refresh step */
    _Atomic uint64_t floor_ns;      /* segment(anchor + limit): no value from this line is above */
    /* second cache line */
    _Atomic uint64_t limit_ticks;   /* past anchor+this, the line is stale */
    _Atomic int64_t real_offset;    /* CLOCK_REALTIME - CLOCK_MONOTONIC */
    _Atomic int64_t boot_offset;    /* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
} __attribute__((aligned(64)));

#define FC_LINE_AT(field, off) \
    _Static_assert(__builtin_offsetof(struct fc_line, field) == (off), "fc_line: " #field)
FC_LINE_AT(seq, 0);
FC_LINE_AT(magic, 8);
FC_LINE_AT(version, 12);
FC_LINE_AT(source, 16);
FC_LINE_AT(shift, 20);
FC_LINE_AT(anchor_ticks, 24);
FC_LINE_AT(anchor_ns, 32);
FC_LINE_AT(mult, 40);
FC_LINE_AT(refresh_ticks, 48);
FC_LINE_AT(floor_ns, 56);
FC_LINE_AT(limit_ticks, 64); /* a monotonic read (fast or stale) touches only the first 64 bytes */
FC_LINE_AT(real_offset, 72);
FC_LINE_AT(boot_offset, 80);
#undef FC_LINE_AT
_Static_assert(sizeof(struct fc_line) == 128, "fc_line: two cache lines");
_Static_assert(sizeof(_Atomic uint64_t) == 8 && _Alignof(_Atomic uint64_t) == 8,
               "fc_line: 64-bit atomics are plain 8-byte words (lock-free on every arch)");

/* The constant words of a new line (a static initializer). */
#define FC_LINE_INITIALIZER \
    {.magic = FC_LINE_MAGIC, .version = FC_LINE_VERSION, .shift = FC_LINE_SHIFT}

/* Whether a reader compiled against this header may read l (a line it mapped). */
static inline __attribute__((always_inline)) int fc_line_understood(const struct fc_line *l)
{
    return __atomic_load_n(&l->magic, __ATOMIC_RELAXED) == FC_LINE_MAGIC &&
           __atomic_load_n(&l->version, __ATOMIC_RELAXED) == FC_LINE_VERSION &&
           __atomic_load_n(&l->shift, __ATOMIC_RELAXED) == FC_LINE_SHIFT;
}

#endif
