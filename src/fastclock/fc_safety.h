/* SPDX-License-Identifier: MIT */
/* Whether libfastclock may use the counter: each check fills `why` when it says no.
 * The sysfs root can be redirected (FASTCLOCK_SYSFS_ROOT) so that tests can present a
 * demoted or foreign clocksource without touching the host. */
#ifndef FASTCLOCK_SAFETY_H
#define FASTCLOCK_SAFETY_H

#include "common/clock_ns.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef int (*fc_clock_fn)(clockid_t, struct timespec *);

/* "" (the real root) or $FASTCLOCK_SYSFS_ROOT. */
const char *fc_sysfs_root(void);

/* The kernel still lists the counter as usable: it is current_clocksource (and, if
 * available_clocksource is readable, listed there), or another clocksource is current
 * and the counter is listed in available_clocksource.  The kernel hides a clocksource its
 * watchdog marked unstable from that list (and switches away if it was current); one that
 * never registered (TSC not calibrated, as in the 2019 report "A performance issue caused by
 * the TSC clocksource missing") is not there either.  Fills current
 * with current_clocksource ("" if unreadable).
 * Pending: the counter is not listed, but the kernel's provisional clocksource for it is
 * (`provisional`, "tsc-early" on x86; NULL: none): early in boot the kernel has not
 * finished checking the counter, and will either list it or drop both; ask again later. */
enum fc_clocksource_verdict { FC_CS_USABLE, FC_CS_PENDING, FC_CS_UNUSABLE };
enum fc_clocksource_verdict fc_check_clocksource(const char *root, const char *expected,
                                                 const char *provisional, char *current,
                                                 size_t clen, char *why, size_t whylen);

/* The CPU promises a constant-rate counter (arch_fast_counter_constant, passed in as
 * `constant`; `invariant` is arch_counter_invariant).  TEST ONLY: with
 * FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1 in the environment, a CPU that explicitly reports
 * the counter as not invariant (invariant() == 0: x86 CPUID 0x80000007 present with EDX bit
 * 8 clear, as under QEMU TCG, which cannot advertise invtsc) passes, and *assumed is set so
 * that the "why" says so.  It flips nothing else: a CPU with no such leaf, or a counter that
 * fails for another reason, still fails, and every other check still applies.  For
 * emulators only, never in production: a real non-invariant TSC changes rate with P-states. */
#define FC_ASSUME_INVARIANT_ENV "FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC"
bool fc_check_constant_rate(bool (*constant)(char *, size_t), int (*invariant)(void),
                            bool *assumed, char *why, size_t whylen);

/* The counter read does not trap (arm64 errata workarounds trap CNTVCT to the kernel, many
 * riscv cores emulate the time CSR in SBI firmware): it costs less than 1 us, and less than
 * 10x a CLOCK_MONOTONIC_COARSE read (no counter behind it) unless it costs under 100 ns.
 * The same judgement as the doctor's (a ratio to this machine's own cheap calls), so that
 * it holds under emulation and on real boards alike. */
#define FC_TRAP_ABSOLUTE_NS 1000
#define FC_TRAP_FLOOR_NS 100
#define FC_TRAP_COARSE_RATIO 10
bool fc_check_read_cost(uint64_t (*read)(void), fc_clock_fn clock, char *why, size_t whylen);

/* A short cross-CPU check: on up to 8 CPUs of the affinity mask, pairs (counter, kernel
 * CLOCK_MONOTONIC) read on that CPU must agree, through the rate `mult`, with the first
 * CPU's pairs read just before and after it (interpolated: the error of `mult` cancels),
 * within the pairs' own uncertainty plus 1 us.  Moves the calling thread and restores its affinity. */
bool fc_check_cross_cpu(uint64_t (*read)(void), fc_clock_fn clock, uint64_t mult, char *why,
                        size_t whylen);

/* One (counter, kernel clock) pair: the tightest of `tries` sandwiches counter-clock-counter.
 * *ticks is the sandwich midpoint, *width its width in ticks. */
void fc_sample_pair(uint64_t (*read)(void), fc_clock_fn clock, clockid_t id, int tries,
                    uint64_t *ticks, uint64_t *ns, uint64_t *width);


#endif
