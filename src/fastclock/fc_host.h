/* SPDX-License-Identifier: MIT */
/* libfastclock lending its line to other processes: `clockscope run`'s helper maps the page
 * that holds the line (and nothing else: fc_state.h) from a memfd that the programs it
 * serves map too (src/run/run_refresher.c).  What the helper may know of libfastclock's
 * insides is here, named; the rest stays private to src/fastclock/. */
#ifndef FASTCLOCK_HOST_H
#define FASTCLOCK_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The page the line sits at the start of, alone (FC_HOST_PAGE_SIZE bytes). */
#define FC_HOST_PAGE_SIZE 4096u

/* The address of the line's page, or 0 when the line does not have its page to itself
 * (the linker did not place the hot section as fc_state.c asks): then it cannot be lent. */
uintptr_t fc_host_line_page(void);
/* On the counter (its source says so from initialisation on) but the first line not yet
 * committed: every read is still the kernel's. */
bool fc_host_line_pending(void);
/* The first line committed (its limit set). */
bool fc_host_line_live(void);
/* Holds libfastclock's writer off (sleeping: never on a read), so that the page can be
 * copied and mapped over without a write in between; and lets it go again. */
void fc_host_hold_writer(void);
void fc_host_release_writer(void);

/* Whether clock_gettime(id) through `real` (libc: the vDSO where it works) costs at least
 * half of a raw syscall here, i.e. enters the kernel or traps: compared directly, both
 * timed with the bare counter, best of 4 rounds (about 20 calls).  Fills both costs in
 * counter ticks.  run's auto mode and the shim's ask it. */
typedef int (*fc_host_clock_fn)(clockid_t, struct timespec *);
int fc_host_kernel_path_slow(fc_host_clock_fn real, clockid_t id, uint64_t *libc_ticks,
                             uint64_t *syscall_ticks);
/* Counter ticks per nanosecond against the kernel's CLOCK_MONOTONIC (50 us), for saying
 * what fc_host_kernel_path_slow measured in ns; 0 when the counter did not move. */
double fc_host_counter_ticks_per_ns(fc_host_clock_fn real);

#endif
