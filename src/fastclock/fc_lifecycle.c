/* libfastclock's life cycle: initialisation (the safety checks, the first line, not live),
 * the cross-CPU check on its own thread (which makes the first line live), fork, the
 * ticker, and what fastclock_info() reports.  The refresh itself is fc_refresh.c. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "arch/counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_state.h"
#include "fastclock/fc_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATED_UNCERTAINTY 50e-6         /* assumed error of a stated frequency */

static _Atomic bool ticker_stop_flag;
static _Atomic uint64_t ticker_period_ns;

/* ---- the cross-CPU check, on its own thread ---- */

static void describe_safe(const char *cpus)
{
    const char *cs = arch_fast_counter_clocksource();
    /* The override must be visible wherever the source is reported: first. */
    const char *head = fc_w.invariance_assumed
                           ? "counter safe only if invariant (" FC_ASSUME_INVARIANT_ENV "=1):"
                           : "counter safe:";
    char text[400];
    if (strcmp(fc_w.clocksource, cs) == 0)
        snprintf(text, sizeof text, "%s clocksource %s, constant rate, reads cost < 1 us, %s",
                 head, cs, cpus);
    else
        snprintf(text, sizeof text, "%s %s listed in available_clocksource (current: %s, which "
                 "the vDSO may not read), constant rate, reads < 1 us, %s", head, cs,
                 fc_w.clocksource, cpus);
    snprintf(fc_w.why, sizeof fc_w.why, "%.*s", (int)sizeof fc_w.why - 1, text);
}

/* Moving between CPUs costs tens of microseconds each (milliseconds on a busy machine):
 * never on a user's read.  Until it has passed, the line is stale and reads are answered
 * by the kernel clock; then this thread makes the first line live. */
static void *checker_main(void *arg)
{
    (void)arg;
    char why[200];
    uint64_t mult = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
    bool ok = fc_check_cross_cpu(arch_fast_counter_ordered, fc_line.kernel_clock, mult, why, sizeof why);
    pthread_mutex_lock(&fc_lock);
    fc_take_refreshing();
    if (ok) {
        describe_safe("CPUs agree");
        atomic_store_explicit(&fc_w.live_allowed, true, memory_order_release);
        fc_refresh_locked();
    } else {
        fc_leave_counter(why);
    }
    fc_w.checker_running = false;
    fc_release_refreshing();
    pthread_mutex_unlock(&fc_lock);
    return NULL;
}

/* Called with fc_lock held. */
static void start_checker(void)
{
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int err = pthread_create(&th, &attr, checker_main, NULL);
    pthread_attr_destroy(&attr);
    fc_w.checker_running = err == 0;
    if (err) {
        char why[200];
        snprintf(why, sizeof why, "cannot start the cross-CPU check's thread: %s", strerror(err));
        fc_take_refreshing();
        fc_leave_counter(why);
        fc_release_refreshing();
    }
}

/* ---- fork ---- */

static void *ticker_main(void *arg);

static void atfork_prepare(void)
{
    pthread_mutex_lock(&fc_lock);
    fc_take_refreshing(); /* no half-written line in the child */
}

static void atfork_parent(void)
{
    fc_release_refreshing();
    pthread_mutex_unlock(&fc_lock);
}

static void atfork_child(void)
{
    /* Only this thread exists in the child; the locks were held by it across fork.  The
     * line stays valid: same counter, same kernel clocks. */
    pthread_mutex_init(&fc_lock, NULL);
    atomic_store_explicit(&fc_refreshing, 0u, memory_order_relaxed);
    if (fc_w.checker_running)
        start_checker();
    if (fc_w.ticker_running) {
        atomic_store(&ticker_stop_flag, false);
        if (pthread_create(&fc_w.ticker, NULL, ticker_main, NULL) != 0)
            fc_w.ticker_running = false;
    }
}

/* ---- initialisation ---- */

static bool counter_safe(uint64_t *mult, char *why, size_t len)
{
    const char *off = getenv("FASTCLOCK_DISABLE");
    if (off && *off && strcmp(off, "0") != 0) {
        snprintf(why, len, "disabled by FASTCLOCK_DISABLE");
        return false;
    }
    if (!fc_check_clocksource(fc_sysfs_root(), arch_fast_counter_clocksource(), fc_w.clocksource,
                              sizeof fc_w.clocksource, why, len))
        return false;
    if (!fc_check_constant_rate(arch_fast_counter_constant, arch_counter_invariant,
                                &fc_w.invariance_assumed, why, len))
        return false;
    if (!fc_check_read_cost(arch_fast_counter_raw, fc_line.kernel_clock, why, len))
        return false;
    fc_w.stated_hz = arch_counter_stated_hz(fc_w.stated_source, sizeof fc_w.stated_source);
    *mult = fc_mult_from_hz(fc_w.stated_hz);
    fc_w.rate_uncertainty = STATED_UNCERTAINTY;
    if (!*mult) {
        /* Not stated: measure over ~100 us (refined at the first refreshes). */
        uint64_t t1, k1, w1, t2, k2, w2;
        fc_sample_pair(arch_fast_counter_ordered, fc_line.kernel_clock, CLOCK_MONOTONIC, 3, &t1, &k1, &w1);
        do
            fc_sample_pair(arch_fast_counter_ordered, fc_line.kernel_clock, CLOCK_MONOTONIC, 3, &t2,
                           &k2, &w2);
        while (k2 - k1 < 100000);
        if (t2 <= t1) {
            snprintf(why, len, "the counter did not advance");
            return false;
        }
        *mult = fc_mult_from_ratio(k2 - k1, t2 - t1);
        fc_w.rate_uncertainty = 1.0;
    }
    return true;
}

static uint64_t hook_ns(const char *name, uint64_t unit, uint64_t dflt)
{
    const char *v = getenv(name);
    long n = v ? atol(v) : 0;
    return n > 0 ? (uint64_t)n * unit : dflt;
}

static void init_locked(void)
{
    if (atomic_load_explicit(&fc_line.source, memory_order_relaxed) != ST_UNINIT)
        return;
    fc_tl_in_init = true;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t start = fc_kernel_ns(CLOCK_MONOTONIC);
    if (!fc_w.atfork_registered) {
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
        fc_w.atfork_registered = true;
    }
    snprintf(fc_w.stated_source, sizeof fc_w.stated_source, "not read");
    uint64_t mult = 0;
    char why[200];
    if (!counter_safe(&mult, why, sizeof why)) {
        snprintf(fc_w.why, sizeof fc_w.why, "%s", why);
        fc_w.init_ns = fc_kernel_ns(CLOCK_MONOTONIC) - start;
        atomic_store_explicit(&fc_line.source, ST_KERNEL, memory_order_release);
        fc_tl_in_init = false;
        return;
    }
    uint64_t t0, k0, w0;
    fc_sample_pair(arch_fast_counter_ordered, fc_line.kernel_clock, CLOCK_MONOTONIC, 5, &t0, &k0, &w0);
    fc_w.base_ticks = t0, fc_w.base_ns = k0, fc_w.base_width = w0;
    fc_w.max_period_ns = hook_ns("FASTCLOCK_PERIOD_US", 1000, MAX_PERIOD_NS);
    if (fc_w.max_period_ns > MAX_PERIOD_NS) /* the hook only shortens (FC_MAX_EXTRAPOLATION_NS) */
        fc_w.max_period_ns = MAX_PERIOD_NS;
    fc_w.period_ns = FIRST_PERIOD_NS < fc_w.max_period_ns ? FIRST_PERIOD_NS : fc_w.max_period_ns;
    fc_w.last_check_ns = k0;
    fc_w.recheck_ns = hook_ns("FASTCLOCK_RECHECK_MS", 1000000, RECHECK_NS);
    /* Not live yet: limit 0 and SEQ_STALE, so every read is the kernel clock's (floor k0)
     * until the cross-CPU check has passed and its thread commits the first line. */
    atomic_store_explicit(&fc_line.anchor_ticks, t0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, k0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.mult, mult, memory_order_relaxed);
    fc_w.rate_mult = mult;
    atomic_store_explicit(&fc_line.refresh_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.limit_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.floor_ns, k0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.real_offset, fc_clock_offset(CLOCK_REALTIME), memory_order_relaxed);
    atomic_store_explicit(&fc_line.boot_offset, fc_clock_offset(CLOCK_BOOTTIME), memory_order_relaxed);
    atomic_store_explicit(&fc_line.seq, SEQ_STALE, memory_order_relaxed);
    __atomic_store_n(&fastclock_recent_cache, k0, __ATOMIC_RELAXED);
    describe_safe("CPUs being compared (the kernel clock answers until then)");
    /* Release: a reader that sees ST_COUNTER (acquire) sees the line above. */
    atomic_store_explicit(&fc_line.source, ST_COUNTER, memory_order_release);
    start_checker();
    fc_w.init_ns = fc_kernel_ns(CLOCK_MONOTONIC) - start;
    atomic_signal_fence(memory_order_seq_cst);
    fc_tl_in_init = false;
}

int fc_init(void)
{
    pthread_mutex_lock(&fc_lock);
    init_locked();
    pthread_mutex_unlock(&fc_lock);
    return atomic_load_explicit(&fc_line.source, memory_order_acquire);
}

void fc_writer_info(char *clocksource, size_t clen, char *why, size_t wlen, uint64_t *stated_hz,
                    char *stated_source, size_t slen, uint64_t *refreshes, uint64_t *suspends,
                    uint64_t *init_ns)
{
    fc_init();
    pthread_mutex_lock(&fc_lock);
    fc_take_refreshing();
    snprintf(clocksource, clen, "%s", fc_w.clocksource);
    snprintf(why, wlen, "%s", fc_w.why);
    *stated_hz = fc_w.stated_hz;
    snprintf(stated_source, slen, "%s", fc_w.stated_source);
    *refreshes = atomic_load(&fc_w.refreshes);
    *suspends = fc_w.suspends;
    *init_ns = fc_w.init_ns;
    fc_release_refreshing();
    pthread_mutex_unlock(&fc_lock);
}

/* ---- ticker ---- */

static void *ticker_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&ticker_stop_flag)) {
        uint64_t p = atomic_load(&ticker_period_ns);
        struct timespec ts = {(time_t)(p / FC_NS_PER_S), (long)(p % FC_NS_PER_S)};
        nanosleep(&ts, NULL);
        fc_refresh_full(); /* the refresh work, off the readers' threads */
        fc_atomic_max_recent(fastclock_monotonic_ns());
    }
    return NULL;
}

int fastclock_ticker_start(uint64_t period_ns)
{
    if (period_ns < 100000)
        return EINVAL;
    fc_init();
    pthread_mutex_lock(&fc_lock);
    atomic_store(&ticker_period_ns, period_ns);
    int err = 0;
    if (!fc_w.ticker_running) {
        atomic_store(&ticker_stop_flag, false);
        err = pthread_create(&fc_w.ticker, NULL, ticker_main, NULL);
        fc_w.ticker_running = err == 0;
    }
    pthread_mutex_unlock(&fc_lock);
    return err;
}

void fastclock_ticker_stop(void)
{
    pthread_mutex_lock(&fc_lock);
    bool running = fc_w.ticker_running;
    pthread_t t = fc_w.ticker;
    fc_w.ticker_running = false;
    atomic_store(&ticker_stop_flag, true);
    pthread_mutex_unlock(&fc_lock);
    if (running)
        pthread_join(t, NULL);
}
