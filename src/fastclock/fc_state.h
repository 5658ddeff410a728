/* SPDX-License-Identifier: MIT */
/* libfastclock's shared state, in one place (defined in fc_state.c): the line its readers
 * read (format: fc_line.h; read path: fc_read.h), the kernel clock function beside it, the
 * floor after leaving the counter, the writer's snapshot for signal handlers, the
 * thread-local flags, the locks and the writer's state (fc_writer.h).  The readers
 * (fastclock.c), the writer (fc_refresh.c) and the life cycle (fc_lifecycle.c) depend on
 * it; it depends on none of them.  Calls go one way: readers -> life cycle (fc_init) and
 * writer (fc_refresh_step); life cycle -> writer; the writer calls neither. */
#ifndef FASTCLOCK_STATE_H
#define FASTCLOCK_STATE_H

#include "fastclock/fastclock.h"
#include "fastclock/fc_line.h"
#include "fastclock/fc_math.h"
#include "fastclock/fc_safety.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define FC_HIDDEN __attribute__((visibility("hidden")))
/* Thread-local flags read from signal handlers: initial-exec, so that reading them never
 * calls __tls_get_addr (which may allocate in a dlopen'ed library). */
#define FC_TLS __attribute__((tls_model("initial-exec")))

_Static_assert(FC_SHIFT == FC_LINE_SHIFT, "the writer's fixed point is the line's");

/* What a read on the live line touches, in one page (fc_state.c): the line, the kernel
 * clock function, `recent` and its due point.  A sparse read finds them cold (evicted from
 * the caches and the TLB during the pause): each page costs a page walk, in a VM a
 * two-dimensional one of hundreds of ns, which is why the vDSO's cold read, one data page,
 * is cheap.  One named section, in definition order (no_reorder), the line page-aligned:
 * the line (128 bytes), the function (8), `recent` at 192 and its due point (208 bytes),
 * then fc_hot_page_end to the page's end.  Nothing else shares the page, so that a process
 * can map it from shared memory (clockscope run's helper, src/run/run_refresher.c) knowing
 * that only libfastclock's writer and readers ever write it. */
#define FC_HOT_DATA __attribute__((section(".data.fastclock_hot"), no_reorder))
#define FC_HOT_PAGE_SIZE 4096
extern FC_HIDDEN char fc_hot_page_end[]; /* the padding: ends the hot page */

extern FC_HIDDEN struct fc_line fc_line;
/* The kernel's clocks: clock_gettime, or the shim's real one (set before the first call,
 * fc_set_kernel_clock).  Not in the line: a pointer means something in this process only. */
extern FC_HIDDEN fc_clock_fn fc_kernel_clock;
extern FC_HIDDEN _Atomic uint64_t fc_kernel_floor; /* after leaving the counter */
extern FC_HIDDEN _Atomic uint64_t fc_recent_due_ticks; /* changes while reads come (fastclock.c) */
extern FC_HIDDEN _Atomic unsigned fc_stale_reads_seen; /* stale reads since the ticker looked */

/* The writer's snapshot, for a signal handler that interrupted its own thread's write
 * section (fc_read_in_own_writer, fastclock.c): the segment before, and from t_a on the segment after. */
struct fc_sig_snapshot {
    struct fc_segment old;
    uint64_t old_limit;
    int64_t old_real, old_boot;
    struct fc_segment next;
    int64_t next_real, next_boot;
    volatile uint64_t t_a;    /* 0 until the new segment is computed */
    volatile bool leaving;    /* the write section is leave_counter's */
    volatile uint64_t floor;  /* the largest monotonic value handlers returned meanwhile */
};
extern FC_HIDDEN struct fc_sig_snapshot fc_sig;
extern FC_HIDDEN _Thread_local bool fc_tl_in_writer FC_TLS; /* this thread is in a write section */
extern FC_HIDDEN _Thread_local bool fc_tl_in_init FC_TLS;   /* this thread is initialising */

/* ---- the writer's state: fc_refresh.c and fc_lifecycle.c ---- */

#define FIRST_PERIOD_NS 2000000ull       /* first refresh 2 ms after going live, then doubling */
#define MAX_PERIOD_NS 100000000ull       /* at most every 100 ms while reads are dense */
#define GRACE_NS 2000000ull              /* a line serves this long past its due refresh */
#define RECHECK_NS 10000000000ull        /* re-read current_clocksource every 10 s */
                                         /* (test hooks: FASTCLOCK_RECHECK_MS, FASTCLOCK_PERIOD_US) */

/* The writer's state, under fc_refreshing (and fc_lock for the fields info reports). */
struct fc_writer {
    uint64_t base_ticks, base_ns, base_width;
    uint64_t period_ns, max_period_ns;
    double rate_uncertainty;
    uint64_t rate_mult; /* the measured rate (ns per tick, 32.32), unbent */
    uint64_t last_check_ns;
    uint64_t recheck_ns;
    _Atomic uint64_t refreshes;
    uint64_t suspends; /* BOOTTIME - MONOTONIC jumps seen */
    uint64_t jumps;    /* re-anchors on a kernel clock that moved (a time namespace, or
                          more than FC_CLOCK_JUMP_NS) */
    uint64_t init_ns;
    uint64_t stated_hz;
    char stated_source[48];
    char clocksource[32];
    char why[200];
    bool invariance_assumed; /* FC_ASSUME_INVARIANT_ENV overrode the CPU's "not invariant" */
    bool clocksource_pending; /* at init only the provisional clocksource was listed */
    _Atomic bool live_allowed; /* the cross-CPU check passed: the line may go live */
    bool checker_running;
    bool atfork_registered;
    bool ticker_running;
    bool ticker_wanted;  /* start the ticker when the line goes live (FASTCLOCK_TICKER) */
    pthread_t ticker;
    bool ahead;          /* the ticker's refresh: due from half the period on (line_due) */
    /* the refresh in progress */
    int step;
    uint64_t t_s, k_s, w_s;
    int64_t real, boot;  /* this refresh's REALTIME and BOOTTIME offsets, to publish */
    uint64_t real_width, boot_width; /* their sandwiches' widths (ns) */
    struct fc_look now;  /* this refresh's look at the kernel's clocks (a namespace's witness) */
    struct fc_look look; /* the last refresh's (or initialisation's, or the fork's) */
    bool look_ok;
};
extern FC_HIDDEN struct fc_writer fc_w;

/* Init, info and the ticker's start/stop hold fc_lock; refresh steps hold fc_refreshing
 * (taken with an exchange, never waited for on a read: a read that finds it taken goes on). */
extern FC_HIDDEN pthread_mutex_t fc_lock;
extern FC_HIDDEN _Atomic unsigned fc_refreshing;

static inline uint64_t fc_kernel_ns(clockid_t id)
{
    struct timespec ts;
    fc_kernel_clock(id, &ts);
    return clock_ns_of(&ts);
}

static inline uint64_t fc_ns_to_ticks(uint64_t ns, uint64_t mult)
{
    return (uint64_t)(((unsigned __int128)ns << FC_SHIFT) / (mult ? mult : 1));
}

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
