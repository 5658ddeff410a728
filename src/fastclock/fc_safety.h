/* Whether libfastclock may use the counter: each check fills `why` when it says no.
 * The sysfs root can be redirected (FASTCLOCK_SYSFS_ROOT) so that tests can present a
 * demoted or foreign clocksource without touching the host. */
#ifndef FASTCLOCK_SAFETY_H
#define FASTCLOCK_SAFETY_H

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
 * never registered (source 004: TSC not calibrated) is not there either.  Fills current
 * with current_clocksource ("" if unreadable). */
bool fc_check_clocksource(const char *root, const char *expected, char *current, size_t clen,
                          char *why, size_t len);

/* A counter read costs less than 1 us (a read that traps to the kernel or firmware costs
 * microseconds: arm64 errata workarounds, riscv time CSR emulated by SBI firmware). */
bool fc_check_read_cost(uint64_t (*read)(void), fc_clock_fn clock, char *why, size_t len);

/* A short cross-CPU check: on up to 8 CPUs of the affinity mask, pairs (counter, kernel
 * CLOCK_MONOTONIC) read on that CPU must agree, through the rate `mult`, within the pairs'
 * own uncertainty plus 1 us.  Moves the calling thread and restores its affinity. */
bool fc_check_cross_cpu(uint64_t (*read)(void), fc_clock_fn clock, uint64_t mult, char *why,
                        size_t len);

/* One (counter, kernel clock) pair: the tightest of `tries` sandwiches counter-clock-counter.
 * *ticks is the sandwich midpoint, *width its width in ticks. */
void fc_sample_pair(uint64_t (*read)(void), fc_clock_fn clock, clockid_t id, int tries,
                    uint64_t *ticks, uint64_t *ns, uint64_t *width);

static inline uint64_t fc_ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

#endif
