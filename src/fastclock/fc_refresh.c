/* libfastclock's writer: initialisation, the refresh in bounded steps, the write section,
 * leaving the counter, the cross-CPU check on its own thread, the ticker, fork.
 *
 * No read ever does unbounded work (issue 18).  A refresh is cut into steps, each a few
 * kernel clock reads (or the sysfs re-check, or the write section's 2 us wait); a read does
 * at most one step, and only when its thread reads densely (reads closer than DENSE_NS), so
 * that the steps are a small fraction of its reads.  A sparse reader never refreshes: the
 * line goes stale and it is answered by the kernel clock (fastclock.c).  The ticker thread
 * and the cross-CPU checker do whole refreshes, off every user's read.  The memory-ordering
 * argument for the write section is at the top of fastclock.c. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "arch/counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_state.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_PERIOD_NS 2000000ull       /* first refresh 2 ms after going live, then doubling */
#define MAX_PERIOD_NS 100000000ull       /* at most every 100 ms while reads are dense */
#define GRACE_NS 2000000ull              /* a line serves this long past its due refresh */
#define RECHECK_NS 10000000000ull        /* re-read current_clocksource every 10 s */
                                         /* (test hooks: FASTCLOCK_RECHECK_MS, FASTCLOCK_PERIOD_US) */
#define REBASE_NS 64000000000ull         /* rate baseline at most ~64 s long */
#define WRITER_WAIT_NS 2000ull           /* see the ordering argument in fastclock.c */
#define SAMPLE_MAX_AGE_NS 1000000ull     /* a refresh's samples are at most this old at commit */
#define SUSPEND_JUMP_NS 1000000ll        /* BOOTTIME - MONOTONIC moved: suspended */
#define REALTIME_HYSTERESIS_NS 2000ll    /* REALTIME offset changes smaller than this kept */
#define STATED_UNCERTAINTY 50e-6         /* assumed error of a stated frequency */

_Static_assert(MAX_PERIOD_NS + GRACE_NS <= FC_MAX_EXTRAPOLATION_NS,
               "a line's limit must keep the read path's d * mult within 64 bits");
_Static_assert(SAMPLE_MAX_AGE_NS < GRACE_NS, "a refresh's samples fit in the grace period");

static const struct fc_slew_policy SLEW = {
    .max_slew_ppm = 200,
    .max_big_slew_ppm = 50000,
    .big_offset_ns = 100000,
    .step_forward_ns = 1000000,
};

FC_HIDDEN struct fc_shared fc_line = {.kernel_clock = clock_gettime};
FC_HIDDEN _Atomic uint64_t fc_kernel_floor;
FC_HIDDEN struct fc_sig_snapshot fc_sig;
FC_HIDDEN _Thread_local bool fc_tl_in_writer FC_TLS;
FC_HIDDEN _Thread_local bool fc_tl_in_init FC_TLS;

void fc_set_kernel_clock(fc_clock_fn fn) { fc_line.kernel_clock = fn; }


/* Init, info and the ticker's start/stop hold g_lock; refresh steps hold g_refreshing
 * (taken with an exchange, never waited for on a read: a read that finds it taken goes on). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned g_refreshing; /* word-sized: riscv has no 1-byte exchange without libatomic */

/* The writer's state, under g_refreshing (and g_lock for the fields info reports). */
static struct {
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
    _Atomic bool live_allowed; /* the cross-CPU check passed: the line may go live */
    bool checker_running;
    bool atfork_registered;
    bool ticker_running;
    pthread_t ticker;
    /* the refresh in progress */
    int step;
    uint64_t t_s, k_s, w_s;
    int64_t real, boot;
} W;
static _Atomic bool ticker_stop_flag;
static _Atomic uint64_t ticker_period_ns;

/* The REALTIME or BOOTTIME offset from MONOTONIC: the tighter of 3 MONOTONIC sandwiches. */
static int64_t clock_offset(clockid_t id)
{
    int64_t best = 0;
    uint64_t best_w = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t a = fc_kernel_ns(CLOCK_MONOTONIC), x = fc_kernel_ns(id), b = fc_kernel_ns(CLOCK_MONOTONIC);
        if (b - a < best_w) {
            best_w = b - a;
            best = (int64_t)(x - (a + (b - a) / 2));
        }
    }
    return best;
}

void fc_atomic_max_recent(uint64_t v)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    while (v > r && !__atomic_compare_exchange_n(&fastclock_recent_cache, &r, v, true,
                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static struct fc_line current_line(void)
{
    struct fc_line l = {atomic_load_explicit(&fc_line.anchor_ticks, memory_order_relaxed),
                        atomic_load_explicit(&fc_line.anchor_ns, memory_order_relaxed),
                        atomic_load_explicit(&fc_line.mult, memory_order_relaxed)};
    return l;
}

/* ---- the write section ---- */

/* Opens the write section and returns the anchor counter value t_a, read WRITER_WAIT_NS
 * after the odd sequence is visible to every CPU (see the top of fastclock.c).  Before the
 * odd store, the snapshot a signal handler on this thread will use is complete. */
static uint64_t write_begin(uint64_t *seq, bool leaving)
{
    fc_sig.old = current_line();
    fc_sig.old_limit = atomic_load_explicit(&fc_line.limit_ticks, memory_order_relaxed);
    fc_sig.old_real = atomic_load_explicit(&fc_line.real_offset, memory_order_relaxed);
    fc_sig.old_boot = atomic_load_explicit(&fc_line.boot_offset, memory_order_relaxed);
    fc_sig.t_a = 0;
    fc_sig.leaving = leaving;
    fc_sig.floor = 0;
    /* Signal fences: a handler on this thread sees the snapshot before the flag, the flag
     * before the odd sequence (program order is all a handler on the same thread needs). */
    atomic_signal_fence(memory_order_seq_cst);
    fc_tl_in_writer = true;
    atomic_signal_fence(memory_order_seq_cst);
    *seq = atomic_load_explicit(&fc_line.seq, memory_order_relaxed) & ~(SEQ_WRITING | SEQ_STALE);
    /* An exchange, not a store: a reader's CAS setting SEQ_STALE may race with it, and
     * whichever lands first, the writer's value wins. */
    atomic_exchange_explicit(&fc_line.seq, *seq | SEQ_WRITING, memory_order_relaxed);
    /* Pairs with the acquire fence before every reader's s2 load: the odd value is visible
     * to all CPUs before any counter read below. */
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t mult = fc_sig.old.mult;
    uint64_t t0 = arch_counter_ordered();
    uint64_t wait = fc_ns_to_ticks(WRITER_WAIT_NS, mult);
    while (arch_counter_ordered() - t0 < wait)
        ;
    return arch_counter_ordered();
}

/* Tells a handler on this thread the new line (from t_a on), after folding in what handlers
 * returned meanwhile (fc_read_in_own_writer): a value above the new line's start (a kernel
 * value read after t_a, by a handler that found the old line past its limit) re-anchors the
 * line at a counter value read now, at that value or the line's own, whichever is higher:
 * never below what the handler returned, and not ahead of the kernel by the handler's
 * duration.  A handler that runs after the last fold uses fc_sig.next: it ran at least a
 * signal delivery (> 1 us) after the earlier handler's kernel read, far more than the new
 * line's offset from the kernel (one kernel read's duration), so it does not go below it. */
static void fold_handler_floor(struct fc_line *next, uint64_t t_a)
{
    uint64_t f = fc_sig.floor;
    atomic_signal_fence(memory_order_seq_cst);
    if (fc_line_eval(next, t_a) < f) {
        uint64_t now = arch_counter_ordered();
        uint64_t own = fc_line_eval(next, now);
        next->anchor_ticks = now;
        next->anchor_ns = own > f ? own : f;
    }
}

static void write_next(struct fc_line *next, uint64_t t_a, int64_t real, int64_t boot)
{
    fold_handler_floor(next, t_a);
    fc_sig.next = *next;
    fc_sig.next_real = real, fc_sig.next_boot = boot;
    atomic_signal_fence(memory_order_seq_cst);
    fc_sig.t_a = t_a; /* from here on a handler uses fc_sig.next and records no floor */
    atomic_signal_fence(memory_order_seq_cst);
    /* A handler between the fold and t_a: fold again into what is published (not into
     * fc_sig.next, which a handler may be reading; the published line is at or above it). */
    fold_handler_floor(next, t_a);
}

static void write_end(uint64_t seq)
{
    /* Release: pairs with the acquire load of s1 in readers; the line's stores are visible
     * to a reader that sees the new even value.  Clears SEQ_STALE too. */
    atomic_store_explicit(&fc_line.seq, seq + SEQ_STEP, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    fc_tl_in_writer = false;
}

static void publish(const struct fc_line *l, uint64_t period_ns, int64_t real, int64_t boot)
{
    uint64_t refresh = fc_ns_to_ticks(period_ns, l->mult);
    uint64_t limit = fc_ns_to_ticks(period_ns + GRACE_NS, l->mult);
    atomic_store_explicit(&fc_line.anchor_ticks, l->anchor_ticks, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, l->anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&fc_line.mult, l->mult, memory_order_relaxed);
    atomic_store_explicit(&fc_line.refresh_ticks, refresh, memory_order_relaxed);
    atomic_store_explicit(&fc_line.limit_ticks, limit, memory_order_relaxed);
    atomic_store_explicit(&fc_line.floor_ns, fc_line_eval(l, l->anchor_ticks + limit),
                          memory_order_relaxed);
    atomic_store_explicit(&fc_line.real_offset, real, memory_order_relaxed);
    atomic_store_explicit(&fc_line.boot_offset, boot, memory_order_relaxed);
}

static void leave_counter(const char *why)
{
    /* Everything returned so far is at most the line's value at its limit. */
    uint64_t seq;
    uint64_t t = write_begin(&seq, true);
    struct fc_line cur = fc_sig.old;
    uint64_t lim = fc_sig.old_limit;
    uint64_t until = t - cur.anchor_ticks < lim ? t : cur.anchor_ticks + lim;
    uint64_t floor = fc_line_eval(&cur, until);
    if (lim == 0) /* never live: kernel values only so far */
        floor = 0;
    atomic_store_explicit(&fc_kernel_floor, floor > fc_sig.floor ? floor : fc_sig.floor,
                          memory_order_relaxed);
    snprintf(W.why, sizeof W.why, "%s", why);
    /* Readers that retry see the kernel source; readers that did not retry read their
     * counter before t (see the top of fastclock.c), so their values are at most the floor. */
    atomic_store_explicit(&fc_line.source, ST_KERNEL, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    /* A handler on this thread between the two loads of fc_sig.floor: fold it in too. */
    uint64_t late = fc_sig.floor, cur_floor = atomic_load(&fc_kernel_floor);
    while (late > cur_floor && !atomic_compare_exchange_weak(&fc_kernel_floor, &cur_floor, late))
        ;
    write_end(seq);
}

/* ---- the refresh, in steps ---- */

static bool line_due(uint64_t now)
{
    uint64_t s = atomic_load_explicit(&fc_line.seq, memory_order_acquire);
    uint64_t at = atomic_load_explicit(&fc_line.anchor_ticks, memory_order_relaxed);
    uint64_t rt = atomic_load_explicit(&fc_line.refresh_ticks, memory_order_relaxed);
    return (s & SEQ_STALE) || now - at >= rt;
}

/* The write section of a refresh: the new line from the samples of the earlier steps. */
static void commit(void)
{
    uint64_t now = arch_counter_ordered();
    struct fc_line cur = current_line();
    uint64_t limit = atomic_load_explicit(&fc_line.limit_ticks, memory_order_relaxed);
    bool stale = (atomic_load_explicit(&fc_line.seq, memory_order_relaxed) & SEQ_STALE) ||
                 now - cur.anchor_ticks >= limit;
    int64_t real = W.real, boot = W.boot;
    int64_t old_boot = atomic_load_explicit(&fc_line.boot_offset, memory_order_relaxed);
    int64_t old_real = atomic_load_explicit(&fc_line.real_offset, memory_order_relaxed);
    /* Suspended since the last refresh: BOOTTIME - MONOTONIC moved.  The rate baseline
     * spans the suspend, so it restarts (docs/fastclock.md, "Suspend"). */
    bool suspended = boot - old_boot > SUSPEND_JUMP_NS || old_boot - boot > SUSPEND_JUMP_NS;
    if (real - old_real < REALTIME_HYSTERESIS_NS && old_real - real < REALTIME_HYSTERESIS_NS)
        real = old_real;

    /* The measured rate, never the published (bent) slope: bending a bent slope again
     * would make the offset correction an integrator that oscillates. */
    uint64_t rate = W.rate_mult;
    W.suspends += suspended;
    if (suspended || W.t_s <= W.base_ticks || W.k_s <= W.base_ns) {
        W.base_ticks = W.t_s, W.base_ns = W.k_s, W.base_width = W.w_s;
    } else {
        double span = (double)(W.k_s - W.base_ns);
        double uncertainty = (double)fc_ticks_to_ns(W.base_width + W.w_s, cur.mult) / span;
        if (uncertainty < W.rate_uncertainty) {
            rate = fc_mult_from_ratio(W.k_s - W.base_ns, W.t_s - W.base_ticks);
            W.rate_mult = rate;
            W.rate_uncertainty = uncertainty;
        }
        if (W.k_s - W.base_ns >= REBASE_NS) {
            W.base_ticks = W.t_s, W.base_ns = W.k_s, W.base_width = W.w_s;
            W.rate_uncertainty *= 2;
        }
    }
    /* Stale (the readers were sparse, or preempted past the grace period): same period. */
    uint64_t next_period = stale ? W.period_ns : W.period_ns * 2;
    if (next_period > W.max_period_ns)
        next_period = W.max_period_ns;
    /* Offsets are corrected over two periods: the remaining offset halves at each refresh. */
    uint64_t horizon = next_period * 2;
    uint64_t seq;
    uint64_t t_a = write_begin(&seq, false);
    struct fc_line next;
    if (stale) {
        /* Stale readers returned kernel values read before their s2 load saw the old even
         * seq, so before t_a by at least WRITER_WAIT_NS: a kernel read taken now, after the
         * wait, is above all of them.  (t_a, k): the tightest of three sandwiches
         * counter/kernel/counter, t_a their midpoint (after the wait), so that a preemption
         * inside one sandwich does not anchor the line on a stale kernel value. */
        uint64_t k, width;
        fc_sample_pair(arch_fast_counter_ordered, fc_line.kernel_clock, CLOCK_MONOTONIC, 3, &t_a,
                       &k, &width);
        next = fc_stale_line(&cur, t_a, k, limit, rate);
    } else {
        int64_t offset = (int64_t)(fc_line_eval(&cur, W.t_s) - W.k_s);
        next = fc_next_line(&cur, t_a, offset, rate, horizon, &SLEW);
    }
    write_next(&next, t_a, real, boot);
    publish(&next, next_period, real, boot);
    write_end(seq);
    W.period_ns = next_period;
    atomic_fetch_add_explicit(&W.refreshes, 1, memory_order_relaxed);
    fc_atomic_max_recent(next.anchor_ns);
}

/* One step; returns true when a refresh just completed (or none was due). */
static bool step_once(void)
{
    if (atomic_load_explicit(&fc_line.source, memory_order_relaxed) != ST_COUNTER ||
        !atomic_load_explicit(&W.live_allowed, memory_order_acquire))
        return true;
    uint64_t now = arch_counter_ordered();
    uint64_t mult = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
    switch (W.step) {
    case 0:
        if (!line_due(now))
            return true;
        fc_sample_pair(arch_fast_counter_ordered, fc_line.kernel_clock, CLOCK_MONOTONIC, 3, &W.t_s,
                       &W.k_s, &W.w_s);
        W.step = 1;
        return false;
    case 1:
        W.real = clock_offset(CLOCK_REALTIME);
        W.step = 2;
        return false;
    case 2:
        W.boot = clock_offset(CLOCK_BOOTTIME);
        W.step = 3;
        return false;
    case 3:
        W.step = 4;
        if (W.k_s - W.last_check_ns >= W.recheck_ns) {
            char why[200];
            W.last_check_ns = W.k_s;
            if (!fc_check_clocksource(fc_sysfs_root(), arch_fast_counter_clocksource(),
                                      W.clocksource, sizeof W.clocksource, why, sizeof why)) {
                leave_counter(why);
                W.step = 0;
                return true;
            }
            return false;
        }
        /* no re-check due: the commit is this step */
        __attribute__((fallthrough));
    default:
        W.step = 0;
        if (now - W.t_s > fc_ns_to_ticks(SAMPLE_MAX_AGE_NS, mult))
            return false; /* samples too old (reads thinned out): start again */
        commit();
        return true;
    }
}

void fc_refresh_step(void)
{
    if (atomic_exchange_explicit(&g_refreshing, 1u, memory_order_acquire))
        return;
    step_once();
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
}

static void take_refreshing(void)
{
    while (atomic_exchange_explicit(&g_refreshing, 1u, memory_order_acquire)) {
        struct timespec nap = {0, 10000};
        nanosleep(&nap, NULL);
    }
}

void fc_refresh_full(void)
{
    take_refreshing();
    W.step = 0;
    for (int i = 0; i < 8 && !step_once(); i++)
        ;
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
}

void fc_set_max_period(uint64_t ns)
{
    fc_init();
    take_refreshing();
    W.max_period_ns = ns && ns < MAX_PERIOD_NS ? ns : MAX_PERIOD_NS;
    if (W.period_ns > W.max_period_ns)
        W.period_ns = W.max_period_ns;
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
}

void fc_hold_torn_line(uint64_t ns)
{
    take_refreshing();
    uint64_t seq;
    write_begin(&seq, false);
    uint64_t an = atomic_load_explicit(&fc_line.anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, 0, memory_order_relaxed);
    uint64_t end = fc_kernel_ns(CLOCK_MONOTONIC) + ns;
    while (fc_kernel_ns(CLOCK_MONOTONIC) < end)
        ;
    atomic_store_explicit(&fc_line.anchor_ns, an, memory_order_relaxed);
    write_end(seq);
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
}

/* ---- the cross-CPU check, on its own thread ---- */

static void describe_safe(const char *cpus)
{
    const char *cs = arch_fast_counter_clocksource();
    /* The override must be visible wherever the source is reported: first. */
    const char *head = W.invariance_assumed
                           ? "counter safe only if invariant (" FC_ASSUME_INVARIANT_ENV "=1):"
                           : "counter safe:";
    char text[400];
    if (strcmp(W.clocksource, cs) == 0)
        snprintf(text, sizeof text, "%s clocksource %s, constant rate, reads cost < 1 us, %s",
                 head, cs, cpus);
    else
        snprintf(text, sizeof text, "%s %s listed in available_clocksource (current: %s, which "
                 "the vDSO may not read), constant rate, reads < 1 us, %s", head, cs,
                 W.clocksource, cpus);
    snprintf(W.why, sizeof W.why, "%.*s", (int)sizeof W.why - 1, text);
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
    pthread_mutex_lock(&g_lock);
    take_refreshing();
    if (ok) {
        describe_safe("CPUs agree");
        atomic_store_explicit(&W.live_allowed, true, memory_order_release);
        W.step = 0;
        for (int i = 0; i < 8 && !step_once(); i++)
            ;
    } else {
        leave_counter(why);
    }
    W.checker_running = false;
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

/* Called with g_lock held. */
static void start_checker(void)
{
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int err = pthread_create(&th, &attr, checker_main, NULL);
    pthread_attr_destroy(&attr);
    W.checker_running = err == 0;
    if (err) {
        char why[200];
        snprintf(why, sizeof why, "cannot start the cross-CPU check's thread: %s", strerror(err));
        take_refreshing();
        leave_counter(why);
        atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
    }
}

/* ---- fork ---- */

static void *ticker_main(void *arg);

static void atfork_prepare(void)
{
    pthread_mutex_lock(&g_lock);
    take_refreshing(); /* no half-written line in the child */
}

static void atfork_parent(void)
{
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
    pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
    /* Only this thread exists in the child; the locks were held by it across fork.  The
     * line stays valid: same counter, same kernel clocks. */
    pthread_mutex_init(&g_lock, NULL);
    atomic_store_explicit(&g_refreshing, 0u, memory_order_relaxed);
    if (W.checker_running)
        start_checker();
    if (W.ticker_running) {
        atomic_store(&ticker_stop_flag, false);
        if (pthread_create(&W.ticker, NULL, ticker_main, NULL) != 0)
            W.ticker_running = false;
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
    if (!fc_check_clocksource(fc_sysfs_root(), arch_fast_counter_clocksource(), W.clocksource,
                              sizeof W.clocksource, why, len))
        return false;
    if (!fc_check_constant_rate(arch_fast_counter_constant, arch_counter_invariant,
                                &W.invariance_assumed, why, len))
        return false;
    if (!fc_check_read_cost(arch_fast_counter_raw, fc_line.kernel_clock, why, len))
        return false;
    W.stated_hz = arch_counter_stated_hz(W.stated_source, sizeof W.stated_source);
    *mult = fc_mult_from_hz(W.stated_hz);
    W.rate_uncertainty = STATED_UNCERTAINTY;
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
        W.rate_uncertainty = 1.0;
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
    if (!W.atfork_registered) {
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
        W.atfork_registered = true;
    }
    snprintf(W.stated_source, sizeof W.stated_source, "not read");
    uint64_t mult = 0;
    char why[200];
    if (!counter_safe(&mult, why, sizeof why)) {
        snprintf(W.why, sizeof W.why, "%s", why);
        W.init_ns = fc_kernel_ns(CLOCK_MONOTONIC) - start;
        atomic_store_explicit(&fc_line.source, ST_KERNEL, memory_order_release);
        fc_tl_in_init = false;
        return;
    }
    uint64_t t0, k0, w0;
    fc_sample_pair(arch_fast_counter_ordered, fc_line.kernel_clock, CLOCK_MONOTONIC, 5, &t0, &k0, &w0);
    W.base_ticks = t0, W.base_ns = k0, W.base_width = w0;
    W.max_period_ns = hook_ns("FASTCLOCK_PERIOD_US", 1000, MAX_PERIOD_NS);
    if (W.max_period_ns > MAX_PERIOD_NS) /* the hook only shortens (FC_MAX_EXTRAPOLATION_NS) */
        W.max_period_ns = MAX_PERIOD_NS;
    W.period_ns = FIRST_PERIOD_NS < W.max_period_ns ? FIRST_PERIOD_NS : W.max_period_ns;
    W.last_check_ns = k0;
    W.recheck_ns = hook_ns("FASTCLOCK_RECHECK_MS", 1000000, RECHECK_NS);
    /* Not live yet: limit 0 and SEQ_STALE, so every read is the kernel clock's (floor k0)
     * until the cross-CPU check has passed and its thread commits the first line. */
    atomic_store_explicit(&fc_line.anchor_ticks, t0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.anchor_ns, k0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.mult, mult, memory_order_relaxed);
    W.rate_mult = mult;
    atomic_store_explicit(&fc_line.refresh_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.limit_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.floor_ns, k0, memory_order_relaxed);
    atomic_store_explicit(&fc_line.real_offset, clock_offset(CLOCK_REALTIME), memory_order_relaxed);
    atomic_store_explicit(&fc_line.boot_offset, clock_offset(CLOCK_BOOTTIME), memory_order_relaxed);
    atomic_store_explicit(&fc_line.seq, SEQ_STALE, memory_order_relaxed);
    __atomic_store_n(&fastclock_recent_cache, k0, __ATOMIC_RELAXED);
    describe_safe("CPUs being compared (the kernel clock answers until then)");
    /* Release: a reader that sees ST_COUNTER (acquire) sees the line above. */
    atomic_store_explicit(&fc_line.source, ST_COUNTER, memory_order_release);
    start_checker();
    W.init_ns = fc_kernel_ns(CLOCK_MONOTONIC) - start;
    atomic_signal_fence(memory_order_seq_cst);
    fc_tl_in_init = false;
}

int fc_init(void)
{
    pthread_mutex_lock(&g_lock);
    init_locked();
    pthread_mutex_unlock(&g_lock);
    return atomic_load_explicit(&fc_line.source, memory_order_acquire);
}

void fc_writer_info(char *clocksource, size_t clen, char *why, size_t wlen, uint64_t *stated_hz,
                    char *stated_source, size_t slen, uint64_t *refreshes, uint64_t *suspends,
                    uint64_t *init_ns)
{
    fc_init();
    pthread_mutex_lock(&g_lock);
    take_refreshing();
    snprintf(clocksource, clen, "%s", W.clocksource);
    snprintf(why, wlen, "%s", W.why);
    *stated_hz = W.stated_hz;
    snprintf(stated_source, slen, "%s", W.stated_source);
    *refreshes = atomic_load(&W.refreshes);
    *suspends = W.suspends;
    *init_ns = W.init_ns;
    atomic_store_explicit(&g_refreshing, 0u, memory_order_release);
    pthread_mutex_unlock(&g_lock);
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
    pthread_mutex_lock(&g_lock);
    atomic_store(&ticker_period_ns, period_ns);
    int err = 0;
    if (!W.ticker_running) {
        atomic_store(&ticker_stop_flag, false);
        err = pthread_create(&W.ticker, NULL, ticker_main, NULL);
        W.ticker_running = err == 0;
    }
    pthread_mutex_unlock(&g_lock);
    return err;
}

void fastclock_ticker_stop(void)
{
    pthread_mutex_lock(&g_lock);
    bool running = W.ticker_running;
    pthread_t t = W.ticker;
    W.ticker_running = false;
    atomic_store(&ticker_stop_flag, true);
    pthread_mutex_unlock(&g_lock);
    if (running)
        pthread_join(t, NULL);
}
