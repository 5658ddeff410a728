/* SPDX-License-Identifier: MIT */
/* libfastclock's shared state between its readers (fastclock.c) and its writer
 * (fc_refresh.c).  The ordering argument is at the top of fastclock.c. */
#ifndef FASTCLOCK_STATE_H
#define FASTCLOCK_STATE_H

#include "fastclock/fastclock.h"
#include "fastclock/fc_math.h"
#include "fastclock/fc_safety.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define FC_HIDDEN __attribute__((visibility("hidden")))
/* Thread-local flags read from signal handlers: initial-exec, so that reading them never
 * calls __tls_get_addr (which may allocate in a dlopen'ed library). */
#define FC_TLS __attribute__((tls_model("initial-exec")))

enum { ST_UNINIT = 0, ST_COUNTER = 1, ST_KERNEL = 2 };

/* seq: bit 0 set while the writer changes the line; bit 1 set (by a reader, with a CAS
 * from an even value) once the line is stale: readers then answer from the kernel clock
 * without reading the counter.  The writer advances seq by 4 and clears both bits. */
#define SEQ_WRITING 1ull
#define SEQ_STALE 2ull
#define SEQ_STEP 4ull

/* What readers read.  The first 64 bytes are what a read touches (the fast path and a
 * stale read); the rest only slow paths.  Fields are atomics accessed relaxed: the seq
 * loads and fences order them. */
struct fc_shared {
    _Atomic uint64_t seq;
    _Atomic int source;             /* ST_* */
    _Atomic uint64_t anchor_ticks;
    _Atomic uint64_t anchor_ns;
    _Atomic uint64_t mult;
    _Atomic uint64_t refresh_ticks; /* past anchor+this, a read may do a refresh step */
    _Atomic uint64_t floor_ns;      /* line(anchor + limit): no value from this line is above */
    /* The kernel's clocks: clock_gettime, or the shim's real one (set before the first call;
     * here so that a stale read touches one cache line of fastclock's). */
    fc_clock_fn kernel_clock;
    /* second cache line */
    _Atomic uint64_t limit_ticks;   /* past anchor+this, the line is stale */
    _Atomic int64_t real_offset;    /* CLOCK_REALTIME - CLOCK_MONOTONIC */
    _Atomic int64_t boot_offset;    /* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
} __attribute__((aligned(64)));

_Static_assert(__builtin_offsetof(struct fc_shared, limit_ticks) == 64,
               "a read (fast or stale) touches only the first cache line");

extern FC_HIDDEN struct fc_shared fc_line;
extern FC_HIDDEN _Atomic uint64_t fc_kernel_floor; /* after leaving the counter */
extern FC_HIDDEN _Atomic uint64_t fc_recent_due_ticks; /* changes while reads come (fastclock.c) */
extern FC_HIDDEN _Atomic unsigned fc_stale_reads_seen; /* stale reads since the ticker looked */

/* The writer's snapshot, for a signal handler that interrupted its own thread's write
 * section (fc_read_in_own_writer): the line before, and from t_a on the line after. */
struct fc_sig_snapshot {
    struct fc_line old;
    uint64_t old_limit;
    int64_t old_real, old_boot;
    struct fc_line next;
    int64_t next_real, next_boot;
    volatile uint64_t t_a;    /* 0 until the new line is computed */
    volatile bool leaving;    /* the write section is leave_counter's */
    volatile uint64_t floor;  /* the largest monotonic value handlers returned meanwhile */
};
extern FC_HIDDEN struct fc_sig_snapshot fc_sig;
extern FC_HIDDEN _Thread_local bool fc_tl_in_writer FC_TLS; /* this thread is in a write section */
extern FC_HIDDEN _Thread_local bool fc_tl_in_init FC_TLS;   /* this thread is initialising */

static inline uint64_t fc_kernel_ns(clockid_t id)
{
    struct timespec ts;
    fc_line.kernel_clock(id, &ts);
    return fc_ts_ns(&ts);
}

static inline uint64_t fc_ns_to_ticks(uint64_t ns, uint64_t mult)
{
    return (uint64_t)(((unsigned __int128)ns << FC_SHIFT) / (mult ? mult : 1));
}

/* The writer (fc_refresh.c). */
FC_HIDDEN int fc_init(void);               /* initialises if needed; returns the source */
/* One bounded piece of refresh work if nobody else is at it (never waits).  Called by reads
 * that find the line due or stale while this thread reads densely. */
FC_HIDDEN void fc_refresh_step(void);
/* A whole refresh if the line is due (the ticker and the cross-CPU checker: not a user's read). */
FC_HIDDEN void fc_refresh_full(void);
/* The ticker's refresh: a whole refresh if the line is past half its period (or stale);
 * takes and releases fc_refreshing (sleeping: never on a read); returns the line's period. */
FC_HIDDEN uint64_t fc_refresh_ahead(void);
FC_HIDDEN void fc_writer_info(char *clocksource, size_t clen, char *why, size_t wlen,
                              uint64_t *stated_hz, char *stated_source, size_t slen,
                              uint64_t *refreshes, uint64_t *suspends, uint64_t *init_ns);
/* Raises `recent` to v (never lowers it).  Inline: a sparse reader's read ends here, and a
 * call into another file's code is one more cold code page for it (see FC_HOT_TEXT). */
static inline void fc_atomic_max_recent(uint64_t v)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    while (v > r && !__atomic_compare_exchange_n(&fastclock_recent_cache, &r, v, true,
                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

#endif
