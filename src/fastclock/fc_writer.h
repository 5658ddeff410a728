/* SPDX-License-Identifier: MIT */
/* libfastclock's writer state, shared by fc_refresh.c (the refresh and its write section)
 * and fc_lifecycle.c (initialisation, the cross-CPU check, fork, the ticker, info). */
#ifndef FASTCLOCK_WRITER_H
#define FASTCLOCK_WRITER_H

#include "fastclock/fc_state.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    int64_t real, boot;
};
extern FC_HIDDEN struct fc_writer fc_w;

/* Init, info and the ticker's start/stop hold fc_lock; refresh steps hold fc_refreshing
 * (taken with an exchange, never waited for on a read: a read that finds it taken goes on). */
extern FC_HIDDEN pthread_mutex_t fc_lock;
extern FC_HIDDEN _Atomic unsigned fc_refreshing;

FC_HIDDEN void fc_take_refreshing(void);  /* waits (sleeping): never on a read */
FC_HIDDEN void fc_release_refreshing(void);
/* Refresh steps until one refresh completed (or none was due); fc_refreshing held. */
FC_HIDDEN void fc_refresh_locked(void);
/* Leaves the counter for the kernel clock without a backward step; fc_refreshing held. */
FC_HIDDEN void fc_leave_counter(const char *why);
/* The REALTIME or BOOTTIME offset from MONOTONIC: the tighter of 3 MONOTONIC sandwiches. */
FC_HIDDEN int64_t fc_clock_offset(clockid_t id);

#endif
