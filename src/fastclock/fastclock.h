/* SPDX-License-Identifier: MIT */
/* libfastclock: the cheapest correct timestamp.
 *
 * Reads the CPU's counter (x86 TSC, arm64 CNTVCT_EL0, riscv time CSR) and converts it to
 * nanoseconds in the CLOCK_MONOTONIC domain, following the kernel's clock with bounded
 * slews.  Uses the counter only while it is safe (the kernel's clocksource is that counter,
 * constant rate, not trapping, consistent across CPUs); otherwise every call is answered by
 * clock_gettime() of the same clock.  docs/fastclock.md states the guarantees and the math.
 *
 * Thread-safe, lock-free reads, lazy initialisation on first use (no constructor), fork-safe.
 * Link: pkg-config --cflags --libs fastclock */
#ifndef FASTCLOCK_H
#define FASTCLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(FASTCLOCK_BUILD)
#define FASTCLOCK_API __attribute__((visibility("default")))
#else
#define FASTCLOCK_API
#endif

#define FASTCLOCK_VERSION_MAJOR 1

/* Nanoseconds in the CLOCK_MONOTONIC domain.  Ordered (the counter is read after every
 * earlier load of the calling thread) and never smaller than a value any thread obtained
 * before.  Within a documented bound of clock_gettime(CLOCK_MONOTONIC). */
FASTCLOCK_API uint64_t fastclock_monotonic_ns(void);
/* Nanoseconds since the epoch: fastclock_monotonic_ns() plus CLOCK_REALTIME's offset from
 * CLOCK_MONOTONIC, re-read at every refresh (at most 100 ms apart while the clock is used).
 * Follows clock steps (settimeofday) within one refresh; may step, as CLOCK_REALTIME does. */
FASTCLOCK_API uint64_t fastclock_realtime_ns(void);
/* Nanoseconds in the CLOCK_BOOTTIME domain (monotonic plus time spent suspended). */
FASTCLOCK_API uint64_t fastclock_boottime_ns(void);

/* Raw counter ticks, unordered: the bare counter, for intervals inside one thread.  When
 * the counter is not used, CLOCK_MONOTONIC nanoseconds (one tick = 1 ns). */
FASTCLOCK_API uint64_t fastclock_ticks(void);
/* An interval in ticks (the difference of two fastclock_ticks()) in nanoseconds. */
FASTCLOCK_API uint64_t fastclock_ticks_to_ns(uint64_t ticks);

/* The last fastclock_monotonic_ns() value any thread produced, or the ticker stored: costs
 * one load.  Staleness: at most the ticker period while an explicit ticker runs (the
 * automatic one: about 50 ms, until it parks); without one, however long since any thread
 * last called fastclock_monotonic_ns()/realtime. */
FASTCLOCK_API uint64_t fastclock_recent_ns(void);
/* The value behind it, for fastclock_recent_ns_inline(): 0 until the first call. */
extern FASTCLOCK_API uint64_t fastclock_recent_cache;
/* fastclock_recent_ns() without the call: one load (GCC/Clang atomic builtin). */
static inline uint64_t fastclock_recent_ns_inline(void)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    return r ? r : fastclock_recent_ns();
}
/* The ticker: a background thread (all signals blocked, a 64 KiB stack) that refreshes the
 * line before it is due, so that reads of any pattern stay on the counter.  On by default
 * once the counter is live (unless FASTCLOCK_TICKER=0): that automatic ticker parks when
 * the process has not read the clock for 2 s (docs/fastclock.md).  period_ns 0 starts the
 * automatic one again; period_ns >= 100000 starts (or re-periods) one that also refreshes
 * the recent value every period_ns and never parks.  Restarted in a forked child.  Returns
 * 0, or an errno value.  _stop() ends it (the automatic one too) until the next _start(). */
FASTCLOCK_API int fastclock_ticker_start(uint64_t period_ns);
FASTCLOCK_API void fastclock_ticker_stop(void);
/* The automatic ticker parks after this long without a read ... */
#define FASTCLOCK_TICKER_IDLE_NS 2000000000ull
/* ... and, parked, looks for reads this often: reads that resume after an idle spell are
 * answered by the kernel clock (plus fastclock's own code and line) for at most this long,
 * then by the counter again.  An idle process is woken once a second. */
#define FASTCLOCK_TICKER_PARKED_POLL_NS 1000000000ull

enum fastclock_source {
    FASTCLOCK_SOURCE_COUNTER = 1, /* the CPU counter, calibrated */
    FASTCLOCK_SOURCE_KERNEL = 2,  /* clock_gettime() of the same clock */
};

struct fastclock_info {
    int source;                 /* enum fastclock_source */
    char counter[24];           /* "rdtsc", "cntvct_el0", "rdtime" */
    char kernel_clocksource[32];/* as read from sysfs at the last check, "" if unreadable */
    char why[200];              /* why this source: the failed check, or "counter safe: ..." */
    uint64_t stated_hz;         /* the frequency the platform states, 0 if none */
    char stated_source[48];
    double hz;                  /* the calibrated rate in use */
    uint64_t refreshes;         /* calibration refreshes so far */
    uint64_t suspends;          /* suspends seen (CLOCK_BOOTTIME - CLOCK_MONOTONIC jumped) */
    uint64_t init_ns;           /* what initialisation cost, ns */
};

/* Initialises if needed and fills *info.  Returns 0. */
FASTCLOCK_API int fastclock_info(struct fastclock_info *info);

#ifdef __cplusplus
}
#endif
#endif
