/* SPDX-License-Identifier: MIT */
/* libfastclock's hooks for the clockscope run shim: never exported from libfastclock.so. */
#ifndef FASTCLOCK_INTERNAL_H
#define FASTCLOCK_INTERNAL_H

#include "fastclock/fc_safety.h"

#include <stdbool.h>
#include <stdint.h>

/* The function fastclock uses for the kernel's clocks.  The shim, which interposes
 * clock_gettime itself, passes the real one (dlsym RTLD_NEXT) before the first call. */
void fc_set_kernel_clock(fc_clock_fn fn);
/* Initialises if needed; true when the counter is in use. */
bool fc_counter_in_use(void);
/* Tests: the longest refresh period from now on (FASTCLOCK_PERIOD_US at start does the
 * same); at most the built-in 100 ms. */
void fc_set_max_period(uint64_t ns);
/* Tests: how long without reads before the automatic ticker parks, and its longest sleep
 * when parked (0: the built-in FASTCLOCK_TICKER_IDLE_NS and FASTCLOCK_TICKER_PARKED_POLL_NS,
 * 2 s and 1 s). */
void fc_set_ticker_idle(uint64_t idle_ns, uint64_t parked_max_ns);
/* Tests: opens a write section, leaves the line torn (anchor_ns 0) for about `ns`, then
 * restores it and closes the section: readers on other threads must wait, not use it. */
void fc_hold_torn_line(uint64_t ns);

#endif
