/* libfastclock: state, the seqlock, refresh and the public calls.
 *
 * Memory ordering, in one place (docs/fastclock.md has the proof in prose):
 *  - Readers (any number, lock-free): s1 = load-acquire(seq); t = ordered counter read
 *    (rdtscp or lfence;rdtsc / isb;mrs / rdtime: after s1); load the line (the acquire on
 *    s1 keeps these loads after it); acquire fence; s2 = load(seq); retry if s1 != s2 or
 *    s1 is odd.  The acquire fence keeps the line loads before the s2 load, so an even,
 *    unchanged seq means the line was not torn.
 *  - The one writer (holds g_lock): seq = odd; seq_cst fence (the odd value is visible to
 *    all CPUs before the writer goes on); wait WRITER_WAIT_NS; t_anchor = ordered read;
 *    compute the new line from t_anchor (so its stores depend on it); store the line;
 *    seq = even with release.
 *  - Why that gives monotonicity across threads: a reader that accepted the OLD line saw
 *    the old even seq in its s2 load, so that load executed before the odd store became
 *    visible; its counter read may have executed after that load (nothing orders a later
 *    load after rdtsc), but only within the CPU's out-of-order window, which is far
 *    shorter than WRITER_WAIT_NS.  So its t < t_anchor and its value is old(t) <=
 *    old(t_anchor) <= new(t_anchor).  A reader that accepted the NEW line read its s1
 *    after the even store, which came after t_anchor was read, and its counter read is
 *    ordered after s1: t >= t_anchor.  The new line never starts below the old one
 *    (fc_next_line), and lines increase in t, so values never decrease across readers,
 *    provided the counters of all CPUs agree (the kernel's boot-time sync check, which
 *    keeps the counter as clocksource only if it passed, and ours at the first refresh).
 *  - Staleness: a reader never extrapolates a line more than limit_ticks past its anchor
 *    (it refreshes first), which bounds what any reader can have returned from a line.
 *    That is what allows a refresh after an idle period or a suspend to jump to the
 *    kernel's value (fc_stale_line) without going below anything returned. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_math.h"
#include "fastclock/fc_safety.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIRST_PERIOD_NS 2000000ull       /* first refresh 2 ms after init, then doubling */
#define MAX_PERIOD_NS 100000000ull       /* refresh at least every 100 ms while in use */
#define GRACE_NS 2000000ull              /* readers may go this far past a due refresh */
#define RECHECK_NS 10000000000ull        /* re-read current_clocksource every 10 s */
                                         /* (test hook: FASTCLOCK_RECHECK_MS) */
#define REBASE_NS 64000000000ull         /* rate baseline at most ~64 s long */
#define WRITER_WAIT_NS 2000ull           /* see the ordering argument above */
#define SUSPEND_JUMP_NS 1000000ll        /* BOOTTIME - MONOTONIC moved: suspended */
#define REALTIME_HYSTERESIS_NS 2000ll    /* REALTIME offset changes smaller than this kept */
#define RECENT_GRANULE_NS 100000ull      /* monotonic calls refresh `recent` this often */
#define STATED_UNCERTAINTY 50e-6         /* assumed error of a stated frequency */

enum { ST_UNINIT = 0, ST_COUNTER = 1, ST_KERNEL = 2 };

static const struct fc_slew_policy SLEW = {
    .max_slew_ppm = 200,
    .max_big_slew_ppm = 50000,
    .big_offset_ns = 100000,
    .step_forward_ns = 1000000,
};

/* What readers read, under the seqlock.  Fields are atomics accessed relaxed: the seq
 * loads and fences order them (see above). */
static struct {
    _Atomic uint64_t seq;
    _Atomic uint64_t anchor_ticks;
    _Atomic uint64_t anchor_ns;
    _Atomic uint64_t mult;
    _Atomic uint64_t refresh_ticks; /* past anchor+this, a reader tries to refresh */
    _Atomic uint64_t limit_ticks;   /* past anchor+this, a reader must refresh first */
    _Atomic int64_t real_offset;    /* CLOCK_REALTIME - CLOCK_MONOTONIC */
    _Atomic int64_t boot_offset;    /* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
} line __attribute__((aligned(64)));

static _Atomic int g_source;                                  /* ST_* */
/* `recent`: exported for fastclock_recent_ns_inline(); accessed only through __atomic
 * builtins (relaxed: it is a value, not a flag guarding other data). */
uint64_t fastclock_recent_cache __attribute__((aligned(64)));
static _Atomic uint64_t g_recent_due_ticks; /* same line: counter value of the next update */
static _Atomic uint64_t g_kernel_floor; /* after leaving the counter: never below this */

static fc_clock_fn kernel_clock = clock_gettime;

/* The writer's state, under g_lock. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t base_ticks, base_ns, base_width;
    uint64_t period_ns;
    double rate_uncertainty;
    uint64_t last_check_ns;
    uint64_t recheck_ns;
    uint64_t refreshes;
    uint64_t suspends; /* BOOTTIME - MONOTONIC jumps seen */
    uint64_t init_ns;
    uint64_t stated_hz;
    char stated_source[48];
    char clocksource[32];
    char why[200];
    bool invariance_assumed; /* FC_ASSUME_INVARIANT_ENV overrode the CPU's "not invariant" */
    bool cross_cpu_pending; /* the cross-CPU check runs at the first refresh */
    bool atfork_registered;
    bool ticker_running;
    pthread_t ticker;
} W;
static _Atomic bool ticker_stop_flag;
static _Atomic uint64_t ticker_period_ns;
static _Thread_local bool in_writer; /* a signal handler interrupting our own refresh */

static uint64_t kernel_ns(clockid_t id)
{
    struct timespec ts;
    kernel_clock(id, &ts);
    return fc_ts_ns(&ts);
}

void fc_set_kernel_clock(fc_clock_fn fn) { kernel_clock = fn; }

static uint64_t ns_to_ticks(uint64_t ns, uint64_t mult)
{
    return (uint64_t)(((unsigned __int128)ns << FC_SHIFT) / (mult ? mult : 1));
}

/* The REALTIME or BOOTTIME offset from MONOTONIC: the tighter of 3 MONOTONIC sandwiches. */
static int64_t clock_offset(clockid_t id)
{
    int64_t best = 0;
    uint64_t best_w = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t a = kernel_ns(CLOCK_MONOTONIC), x = kernel_ns(id), b = kernel_ns(CLOCK_MONOTONIC);
        if (b - a < best_w) {
            best_w = b - a;
            best = (int64_t)(x - (a + (b - a) / 2));
        }
    }
    return best;
}

static void atomic_max_recent(uint64_t v)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    while (v > r && !__atomic_compare_exchange_n(&fastclock_recent_cache, &r, v, true,
                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* ---- the writer ---- */

static void publish(const struct fc_line *l, uint64_t period_ns, int64_t real, int64_t boot)
{
    uint64_t refresh = ns_to_ticks(period_ns, l->mult);
    uint64_t limit = ns_to_ticks(period_ns + GRACE_NS, l->mult);
    atomic_store_explicit(&line.anchor_ticks, l->anchor_ticks, memory_order_relaxed);
    atomic_store_explicit(&line.anchor_ns, l->anchor_ns, memory_order_relaxed);
    atomic_store_explicit(&line.mult, l->mult, memory_order_relaxed);
    atomic_store_explicit(&line.refresh_ticks, refresh, memory_order_relaxed);
    atomic_store_explicit(&line.limit_ticks, limit, memory_order_relaxed);
    atomic_store_explicit(&line.real_offset, real, memory_order_relaxed);
    atomic_store_explicit(&line.boot_offset, boot, memory_order_relaxed);
}

/* Opens the write side and returns the anchor counter value (see the header comment). */
static uint64_t write_begin(uint64_t *seq)
{
    *seq = atomic_load_explicit(&line.seq, memory_order_relaxed);
    atomic_store_explicit(&line.seq, *seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t mult = atomic_load_explicit(&line.mult, memory_order_relaxed);
    uint64_t t0 = arch_fast_counter_ordered();
    uint64_t wait = ns_to_ticks(WRITER_WAIT_NS, mult);
    while (arch_fast_counter_ordered() - t0 < wait)
        ;
    return arch_fast_counter_ordered();
}

static void write_end(uint64_t seq)
{
    atomic_store_explicit(&line.seq, seq + 2, memory_order_release);
}

static void leave_counter(const char *why)
{
    /* Everything returned so far is at most the line's value at its limit. */
    uint64_t seq;
    uint64_t t = write_begin(&seq);
    struct fc_line cur = {atomic_load_explicit(&line.anchor_ticks, memory_order_relaxed),
                          atomic_load_explicit(&line.anchor_ns, memory_order_relaxed),
                          atomic_load_explicit(&line.mult, memory_order_relaxed)};
    uint64_t lim = atomic_load_explicit(&line.limit_ticks, memory_order_relaxed);
    uint64_t until = t - cur.anchor_ticks < lim ? t : cur.anchor_ticks + lim;
    atomic_store_explicit(&g_kernel_floor, fc_line_eval(&cur, until), memory_order_relaxed);
    /* Readers that retry see refresh 0: every read goes to the slow path, which sees the
     * kernel source.  Readers that did not retry read their counter before t (see the
     * top), so their values are at most the floor. */
    atomic_store_explicit(&line.refresh_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&line.limit_ticks, 0, memory_order_relaxed);
    snprintf(W.why, sizeof W.why, "%s", why);
    atomic_store_explicit(&g_source, ST_KERNEL, memory_order_release);
    write_end(seq);
}

static void describe_safe(const char *cpus)
{
    const char *cs = arch_fast_counter_clocksource();
    /* The override must be visible wherever the source is reported: first, so that
     * nothing cuts it off. */
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
    /* A cut tail is acceptable: what matters comes first. */
    snprintf(W.why, sizeof W.why, "%.*s", (int)sizeof W.why - 1, text);
}

/* Called with g_lock held, source COUNTER. */
static void refresh_locked(void)
{
    uint64_t now_ticks = arch_fast_counter_ordered();
    uint64_t anchor = atomic_load_explicit(&line.anchor_ticks, memory_order_relaxed);
    if (now_ticks - anchor < atomic_load_explicit(&line.refresh_ticks, memory_order_relaxed))
        return; /* another thread refreshed while we waited for the lock */

    uint64_t t_s, k_s, w_s;
    fc_sample_pair(arch_fast_counter_ordered, kernel_clock, CLOCK_MONOTONIC, 5, &t_s, &k_s, &w_s);
    int64_t real = clock_offset(CLOCK_REALTIME);
    int64_t boot = clock_offset(CLOCK_BOOTTIME);

    if (W.cross_cpu_pending) {
        /* Deferred from the first call to keep it short: moving between CPUs costs tens of
         * microseconds each, milliseconds on a busy machine.  Until now the kernel's own
         * verdict (it keeps the counter as clocksource only if its boot-time sync check
         * passed) was the guarantee. */
        char why[200];
        W.cross_cpu_pending = false;
        uint64_t mult = atomic_load_explicit(&line.mult, memory_order_relaxed);
        if (!fc_check_cross_cpu(arch_fast_counter_ordered, kernel_clock, mult, why, sizeof why)) {
            leave_counter(why);
            return;
        }
        describe_safe("CPUs agree");
    }
    if (k_s - W.last_check_ns >= W.recheck_ns) {
        char why[200];
        W.last_check_ns = k_s;
        if (!fc_check_clocksource(fc_sysfs_root(), arch_fast_counter_clocksource(), W.clocksource,
                                  sizeof W.clocksource, why, sizeof why)) {
            leave_counter(why);
            return;
        }
    }

    struct fc_line cur = {anchor, atomic_load_explicit(&line.anchor_ns, memory_order_relaxed),
                          atomic_load_explicit(&line.mult, memory_order_relaxed)};
    uint64_t limit = atomic_load_explicit(&line.limit_ticks, memory_order_relaxed);
    int64_t old_boot = atomic_load_explicit(&line.boot_offset, memory_order_relaxed);
    int64_t old_real = atomic_load_explicit(&line.real_offset, memory_order_relaxed);
    /* Suspended since the last refresh: BOOTTIME - MONOTONIC moved.  The rate baseline
     * spans the suspend (the counter may have run or stopped while MONOTONIC did not), so
     * it restarts.  The line: if stale, the stale rule re-anchors on the kernel; if not
     * (a suspend shorter than the limit), readers may have returned values up to the
     * line's present value, so the ordinary continuous path corrects the offset (forward
     * step when behind, up to 5% slew when ahead). */
    bool suspended = boot - old_boot > SUSPEND_JUMP_NS || old_boot - boot > SUSPEND_JUMP_NS;
    bool stale = t_s - anchor >= limit;
    if (real - old_real < REALTIME_HYSTERESIS_NS && old_real - real < REALTIME_HYSTERESIS_NS)
        real = old_real;

    /* The rate: the long baseline when it is better known than what we have. */
    uint64_t rate = cur.mult;
    W.suspends += suspended;
    if (suspended || t_s <= W.base_ticks || k_s <= W.base_ns) {
        /* Suspend, or a counter reset behind the baseline: start a new one. */
        W.base_ticks = t_s, W.base_ns = k_s, W.base_width = w_s;
    } else {
        double span = (double)(k_s - W.base_ns);
        double uncertainty = (double)fc_ticks_to_ns(W.base_width + w_s, cur.mult) / span;
        if (uncertainty < W.rate_uncertainty) {
            rate = fc_mult_from_ratio(k_s - W.base_ns, t_s - W.base_ticks);
            W.rate_uncertainty = uncertainty;
        }
        if (k_s - W.base_ns >= REBASE_NS) {
            /* Start a new baseline; the current rate stays until the new one is better. */
            W.base_ticks = t_s, W.base_ns = k_s, W.base_width = w_s;
            W.rate_uncertainty *= 2;
        }
    }

    uint64_t next_period = W.period_ns * 2 < MAX_PERIOD_NS ? W.period_ns * 2 : MAX_PERIOD_NS;
    /* Offsets are corrected over two periods: the remaining offset halves at each refresh.
     * Pair noise (tens of ns) then bends the slope for one period, but the rate a user sees
     * over an interval is (offset at end - offset at start) / interval: 0.03 ppm over 1 s
     * for 30 ns of noise. */
    uint64_t horizon = next_period * 2;
    uint64_t seq;
    uint64_t t_a = write_begin(&seq);
    struct fc_line next;
    if (stale) {
        uint64_t kernel_at_anchor = k_s + fc_ticks_to_ns(t_a - t_s, rate);
        next = fc_stale_line(&cur, t_a, kernel_at_anchor, limit, rate);
    } else {
        int64_t offset = (int64_t)(fc_line_eval(&cur, t_s) - k_s);
        next = fc_next_line(&cur, t_a, offset, rate, horizon, &SLEW);
    }
    publish(&next, next_period, real, boot);
    write_end(seq);
    W.period_ns = next_period;
    W.refreshes++;
    atomic_max_recent(next.anchor_ns);
}

/* ---- initialisation ---- */

static void *ticker_main(void *arg);

static void atfork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_lock); }
static void atfork_child(void)
{
    /* Only this thread exists in the child; the lock was held by it across fork, so no
     * refresh was half done.  The line stays valid: same counter, same kernel clocks. */
    pthread_mutex_init(&g_lock, NULL);
    if (W.ticker_running) {
        atomic_store(&ticker_stop_flag, false);
        if (pthread_create(&W.ticker, NULL, ticker_main, NULL) != 0)
            W.ticker_running = false;
    }
}

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
    if (!fc_check_read_cost(arch_fast_counter_raw, kernel_clock, why, len))
        return false;
    W.stated_hz = arch_counter_stated_hz(W.stated_source, sizeof W.stated_source);
    *mult = fc_mult_from_hz(W.stated_hz);
    W.rate_uncertainty = STATED_UNCERTAINTY;
    if (!*mult) {
        /* Not stated: measure over ~100 us (refined at the first refreshes: the first comes
         * 2 ms later and takes the rate from a 2 ms baseline). */
        uint64_t t1, k1, w1, t2, k2, w2;
        fc_sample_pair(arch_fast_counter_ordered, kernel_clock, CLOCK_MONOTONIC, 3, &t1, &k1, &w1);
        do
            fc_sample_pair(arch_fast_counter_ordered, kernel_clock, CLOCK_MONOTONIC, 3, &t2, &k2,
                           &w2);
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

static void init_locked(void)
{
    if (atomic_load_explicit(&g_source, memory_order_relaxed) != ST_UNINIT)
        return;
    uint64_t start = kernel_ns(CLOCK_MONOTONIC);
    if (!W.atfork_registered) {
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
        W.atfork_registered = true;
    }
    snprintf(W.stated_source, sizeof W.stated_source, "not read");
    uint64_t mult = 0;
    char why[200];
    if (!counter_safe(&mult, why, sizeof why)) {
        snprintf(W.why, sizeof W.why, "%s", why);
        W.init_ns = kernel_ns(CLOCK_MONOTONIC) - start;
        atomic_store_explicit(&g_source, ST_KERNEL, memory_order_release);
        return;
    }
    uint64_t t0, k0, w0;
    fc_sample_pair(arch_fast_counter_ordered, kernel_clock, CLOCK_MONOTONIC, 5, &t0, &k0, &w0);
    W.base_ticks = t0, W.base_ns = k0, W.base_width = w0;
    W.period_ns = FIRST_PERIOD_NS;
    W.last_check_ns = k0;
    W.recheck_ns = RECHECK_NS;
    W.cross_cpu_pending = true;
    const char *hook = getenv("FASTCLOCK_RECHECK_MS");
    if (hook && atoi(hook) > 0)
        W.recheck_ns = (uint64_t)atoi(hook) * 1000000ull;
    struct fc_line first = {t0, k0, mult};
    publish(&first, W.period_ns, clock_offset(CLOCK_REALTIME), clock_offset(CLOCK_BOOTTIME));
    __atomic_store_n(&fastclock_recent_cache, k0, __ATOMIC_RELAXED);
    describe_safe("CPUs compared at the first refresh");
    W.init_ns = kernel_ns(CLOCK_MONOTONIC) - start;
    /* Release: a reader that sees ST_COUNTER (acquire) sees the first line. */
    atomic_store_explicit(&g_source, ST_COUNTER, memory_order_release);
}

static int source_slow(void)
{
    pthread_mutex_lock(&g_lock);
    init_locked();
    pthread_mutex_unlock(&g_lock);
    return atomic_load_explicit(&g_source, memory_order_acquire);
}

static inline int source(void)
{
    int s = atomic_load_explicit(&g_source, memory_order_acquire);
    return s != ST_UNINIT ? s : source_slow();
}

/* ---- readers ---- */

static uint64_t kernel_monotonic(void)
{
    uint64_t v = kernel_ns(CLOCK_MONOTONIC);
    uint64_t floor = atomic_load_explicit(&g_kernel_floor, memory_order_relaxed);
    return v > floor ? v : floor;
}

/* The slow part of a read: the line is due for a refresh (d >= refresh_ticks). */
static bool refresh_from_reader(bool must)
{
    if (in_writer)
        return false; /* a signal handler inside our own refresh: use the kernel clock */
    if (must)
        pthread_mutex_lock(&g_lock);
    else if (pthread_mutex_trylock(&g_lock) != 0)
        return false;
    in_writer = true;
    if (atomic_load_explicit(&g_source, memory_order_relaxed) == ST_COUNTER)
        refresh_locked();
    in_writer = false;
    pthread_mutex_unlock(&g_lock);
    return true;
}

/* The line as a reader loads it, between s1 and s2 (relaxed: the seq loads and fences
 * order these, see the top of the file).  which: 0 monotonic, 1 realtime, 2 boottime. */
struct snapshot {
    uint64_t at, an, m, rt;
    int64_t off;
};

static inline __attribute__((always_inline)) void load_line(int which, struct snapshot *p)
{
    p->at = atomic_load_explicit(&line.anchor_ticks, memory_order_relaxed);
    p->an = atomic_load_explicit(&line.anchor_ns, memory_order_relaxed);
    p->m = atomic_load_explicit(&line.mult, memory_order_relaxed);
    p->rt = atomic_load_explicit(&line.refresh_ticks, memory_order_relaxed);
    p->off = which == 1 ? atomic_load_explicit(&line.real_offset, memory_order_relaxed)
           : which == 2 ? atomic_load_explicit(&line.boot_offset, memory_order_relaxed)
                        : 0;
}

/* Monotonic ns from the counter; *offset receives the selected offset (0, real, boot). */
static inline uint64_t counter_read(int which, int64_t *offset)
{
    for (;;) {
        uint64_t s1 = atomic_load_explicit(&line.seq, memory_order_acquire);
        uint64_t t = arch_fast_counter_ordered();
        struct snapshot p;
        load_line(which, &p);
        uint64_t at = p.at, an = p.an, m = p.m, rt = p.rt;
        int64_t off = p.off;
        atomic_thread_fence(memory_order_acquire);
        uint64_t s2 = atomic_load_explicit(&line.seq, memory_order_relaxed);
        if (s1 != s2 || (s1 & 1))
            continue;
        uint64_t d = t - at; /* t < at (other CPU, just refreshed) wraps: slow path */
        if (__builtin_expect(d >= rt, 0)) {
            /* Left the counter (leave_counter publishes rt = lim = 0 so that every reader
             * of the old line ends up here): the caller falls back. */
            if (atomic_load_explicit(&g_source, memory_order_acquire) != ST_COUNTER) {
                *offset = 0;
                return UINT64_MAX;
            }
            /* lim is read outside the snapshot; it only steers the decision, and every
             * line's lim is below 2^32 ns, which is all the multiply below needs. */
            uint64_t lim = atomic_load_explicit(&line.limit_ticks, memory_order_relaxed);
            if ((int64_t)d < 0 && (uint64_t)-(int64_t)d < lim) {
                d = 0; /* t a hair before the anchor (CPUs a few ticks apart): the anchor */
            } else if (refresh_from_reader(d >= lim)) {
                continue; /* a counter far behind the anchor (reset) counts as stale too */
            } else if (d >= lim) {
                *offset = 0;
                return UINT64_MAX;
            }
            /* d < lim here, so d * m fits in 64 bits (lim < 2^32 ns). */
        }
        *offset = off;
        /* d < limit_ticks (at most ~102 ms): d * m < 2^64 for any counter. */
        uint64_t v = an + ((d * m) >> FC_SHIFT);
        /* `recent` is updated by calls every RECENT_GRANULE_NS; the test is on the counter
         * value, so it runs in parallel with the multiply instead of after it. */
        if (__builtin_expect(t >= atomic_load_explicit(&g_recent_due_ticks, memory_order_relaxed), 0)) {
            atomic_store_explicit(&g_recent_due_ticks, t + ns_to_ticks(RECENT_GRANULE_NS, m),
                                  memory_order_relaxed);
            atomic_max_recent(v);
        }
        return v;
    }
}

static __attribute__((noinline)) uint64_t read_clock_slow(int which, clockid_t id)
{
    if (source() == ST_COUNTER) {
        int64_t off;
        uint64_t v = counter_read(which, &off);
        if (v != UINT64_MAX)
            return v + (uint64_t)off;
    }
    if (which == 0)
        return kernel_monotonic();
    return kernel_ns(id);
}

/* The common case, kept small: no refresh due, no writer active, recent not due.  Only s1
 * lives across the counter read (one saved register); the line is loaded after the read,
 * which the seqlock allows (every load between s1 and s2 is checked) and the ordering
 * argument above does not change (it rests on s1 -> t and t -> s2). */
static inline __attribute__((always_inline)) bool read_fast(int which, uint64_t *out)
{
    if (__builtin_expect(atomic_load_explicit(&g_source, memory_order_acquire) != ST_COUNTER, 0))
        return false;
    uint64_t s1 = atomic_load_explicit(&line.seq, memory_order_acquire);
    uint64_t t = arch_fast_counter_ordered();
    struct snapshot p;
    load_line(which, &p);
    uint64_t due = atomic_load_explicit(&g_recent_due_ticks, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint64_t s2 = atomic_load_explicit(&line.seq, memory_order_relaxed);
    uint64_t d = t - p.at;
    if (__builtin_expect((s1 != s2) | (s1 & 1) | (d >= p.rt) | (t >= due), 0))
        return false;
    *out = p.an + ((d * p.m) >> FC_SHIFT) + (uint64_t)p.off;
    return true;
}

uint64_t fastclock_monotonic_ns(void)
{
    uint64_t v;
    return read_fast(0, &v) ? v : read_clock_slow(0, CLOCK_MONOTONIC);
}

uint64_t fastclock_realtime_ns(void)
{
    uint64_t v;
    return read_fast(1, &v) ? v : read_clock_slow(1, CLOCK_REALTIME);
}

uint64_t fastclock_boottime_ns(void)
{
    uint64_t v;
    return read_fast(2, &v) ? v : read_clock_slow(2, CLOCK_BOOTTIME);
}

uint64_t fastclock_ticks(void)
{
    if (__builtin_expect(source() == ST_COUNTER, 1))
        return arch_fast_counter_raw();
    return kernel_ns(CLOCK_MONOTONIC);
}

uint64_t fastclock_ticks_to_ns(uint64_t ticks)
{
    if (source() != ST_COUNTER)
        return ticks;
    return fc_ticks_to_ns(ticks, atomic_load_explicit(&line.mult, memory_order_relaxed));
}

uint64_t fastclock_recent_ns(void)
{
    uint64_t r = __atomic_load_n(&fastclock_recent_cache, __ATOMIC_RELAXED);
    return __builtin_expect(r != 0, 1) ? r : fastclock_monotonic_ns();
}

bool fc_counter_in_use(void) { return source() == ST_COUNTER; }

/* ---- ticker ---- */

static void *ticker_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&ticker_stop_flag)) {
        uint64_t p = atomic_load(&ticker_period_ns);
        struct timespec ts = {(time_t)(p / FC_NS_PER_S), (long)(p % FC_NS_PER_S)};
        nanosleep(&ts, NULL);
        atomic_max_recent(fastclock_monotonic_ns());
    }
    return NULL;
}

int fastclock_ticker_start(uint64_t period_ns)
{
    if (period_ns < 100000)
        return EINVAL;
    source();
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

int fastclock_info(struct fastclock_info *info)
{
    int s = source();
    memset(info, 0, sizeof *info);
    pthread_mutex_lock(&g_lock);
    info->source = s == ST_COUNTER ? FASTCLOCK_SOURCE_COUNTER : FASTCLOCK_SOURCE_KERNEL;
    snprintf(info->counter, sizeof info->counter, "%s", arch_fast_counter_name());
    snprintf(info->kernel_clocksource, sizeof info->kernel_clocksource, "%s", W.clocksource);
    snprintf(info->why, sizeof info->why, "%s", W.why);
    info->stated_hz = W.stated_hz;
    snprintf(info->stated_source, sizeof info->stated_source, "%s", W.stated_source);
    info->hz = s == ST_COUNTER ? fc_mult_hz(atomic_load(&line.mult)) : 1e9;
    info->refreshes = W.refreshes;
    info->suspends = W.suspends;
    info->init_ns = W.init_ns;
    pthread_mutex_unlock(&g_lock);
    return 0;
}
