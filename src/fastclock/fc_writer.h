/* SPDX-License-Identifier: MIT */
/* libfastclock's writer (fc_refresh.c): the refresh in bounded steps, the write section,
 * leaving the counter.  Used by the readers (a refresh step on a dense read) and the life
 * cycle (fc_lifecycle.c: the first refresh, the ticker's, fork); it calls neither.  Its
 * state is in fc_state.h. */
#ifndef FASTCLOCK_WRITER_H
#define FASTCLOCK_WRITER_H

#include "fastclock/fc_state.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* One bounded piece of refresh work if nobody else is at it (never waits).  Called by reads
 * that find the line due or stale while this thread reads densely. */
FC_HIDDEN void fc_refresh_step(void);
/* A whole refresh if the line is due (the checker, explicit requests: not a user's read). */
FC_HIDDEN void fc_refresh_full(void);
/* The ticker's refresh: a whole refresh if the line is past half its period (or stale);
 * takes and releases fc_refreshing (sleeping: never on a read); returns the line's period. */
FC_HIDDEN uint64_t fc_refresh_ahead(void);
FC_HIDDEN void fc_take_refreshing(void);  /* waits (sleeping): never on a read */
FC_HIDDEN void fc_release_refreshing(void);
/* Refresh steps until one refresh completed (or none was due); fc_refreshing held. */
FC_HIDDEN void fc_refresh_locked(void);
/* Leaves the counter for the kernel clock without a backward step; fc_refreshing held. */
FC_HIDDEN void fc_leave_counter(const char *why);
/* The fork child's handler (fc_refreshing held, no other thread): compares the kernel's
 * clocks now with `before` (the parent's look, taken in the prepare handler; NULL: none)
 * and with the line.  A time namespace change (fc_namespace_shift, exact to the looks'
 * noise), or the line or the kernel floor more than FC_CLOCK_JUMP_NS from the kernel's
 * CLOCK_MONOTONIC (a restored checkpoint: no look from before), re-anchors the line on the
 * kernel with fresh offsets; a changed REALTIME or BOOTTIME offset alone is published at
 * once.  True when it re-anchored. */
FC_HIDDEN bool fc_follow_moved_clock(const struct fc_look *before);
/* A look's sandwiches: 4 kernel reads each, so that a refresh step stays within 9. */
#define FC_LOOK_TRIES 2
/* A look at the kernel's clocks against the counter (fc_math.h): the tightest of `tries`
 * sandwiches.  Reads the counter: only while fastclock is on it. */
FC_HIDDEN void fc_take_look(struct fc_look *out, int tries);
/* The REALTIME or BOOTTIME offset from MONOTONIC: REALTIME exactly where the COARSE clocks
 * allow, else the middle of what MONOTONIC sandwiches allow (fc_offsets.c; with
 * fc_clock_offset_w, the width of that interval, twice the most the offset is off by). */
FC_HIDDEN int64_t fc_clock_offset(clockid_t id);
FC_HIDDEN int64_t fc_clock_offset_w(clockid_t id, uint64_t *width);

#endif
