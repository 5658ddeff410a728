/* SPDX-License-Identifier: MIT */
/* libfastclock's life cycle: initialisation (the safety checks, the first line, not live),
 * the cross-CPU check on its own thread (which makes the first line live), fork, the
 * ticker, and what fastclock_info() reports.  The refresh itself is fc_refresh.c, which it
 * calls (never the reverse); the readers (fastclock.c) call fc_init. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "arch/arch.h"
#include "arch/counter.h"
#include "fastclock/fc_counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_lifecycle.h"
#include "fastclock/fc_read.h"
#include "fastclock/fc_state.h"
#include "fastclock/fc_writer.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATED_UNCERTAINTY 50e-6         /* assumed error of a stated frequency */
#define CLOCKSOURCE_POLL_NS 100000000ull /* early in boot: sysfs re-read every 100 ms ... */
#define CLOCKSOURCE_WAIT_NS 60000000000ull /* ... for at most 60 s */
#define THREAD_STACK_BYTES (64u * 1024u) /* the checker's and the ticker's stacks */
#define TICKER_MIN_SLEEP_NS 1000000ull   /* the automatic ticker wakes at most every 1 ms */
/* No read for 2 s: the automatic ticker parks; parked, it looks for reads every 1 s
 * (fastclock.h states both: they decide how long reads that resume are stale). */
#define TICKER_IDLE_NS FASTCLOCK_TICKER_IDLE_NS
#define TICKER_PARKED_MAX_NS FASTCLOCK_TICKER_PARKED_POLL_NS

/* Tests shorten both (fc_set_ticker_idle). */
static _Atomic uint64_t ticker_idle_ns = TICKER_IDLE_NS;
static _Atomic uint64_t ticker_parked_max_ns = TICKER_PARKED_MAX_NS;

void fc_set_ticker_idle(uint64_t idle_ns, uint64_t parked_max_ns)
{
    atomic_store(&ticker_idle_ns, idle_ns ? idle_ns : TICKER_IDLE_NS);
    atomic_store(&ticker_parked_max_ns, parked_max_ns ? parked_max_ns : TICKER_PARKED_MAX_NS);
}

/* The ticker: its period (0: the automatic ticker, which follows the line and parks when
 * nobody reads; else fastclock_ticker_start's, which never parks), its stop flag, and the
 * condition its sleeps wait on (so that a stop or a new period wakes it at once). */
static _Atomic bool ticker_stop_flag;
static _Atomic uint64_t ticker_period_ns;
static pthread_mutex_t ticker_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ticker_cv;
static void *ticker_main(void *arg);

/* A background thread (the cross-CPU check, the ticker): every signal blocked, so that no
 * process-directed signal is delivered to it (a program's handler runs on its own threads,
 * never on fastclock's tiny stack) and none interrupts its write sections; a small stack
 * (its deepest call is a sysfs re-check's snprintf).  Called only from initialisation,
 * fastclock_ticker_start, the checker thread and the fork child: never from a read. */
static int spawn_quiet_thread(pthread_t *th, void *(*fn)(void *), bool detached)
{
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_attr_init(&attr);
    if (detached)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    size_t stack = THREAD_STACK_BYTES;
    if (stack < (size_t)PTHREAD_STACK_MIN)
        stack = (size_t)PTHREAD_STACK_MIN;
    pthread_attr_setstacksize(&attr, stack); /* EINVAL: the default stack */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* inherited by the new thread */
    int err = pthread_create(th, &attr, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return err;
}

/* Called with fc_lock held.  period_ns 0: the automatic ticker. */
static int start_ticker_locked(uint64_t period_ns)
{
    atomic_store(&ticker_period_ns, period_ns);
    if (fc_w.ticker_running) {
        pthread_mutex_lock(&ticker_mx);
        pthread_cond_signal(&ticker_cv); /* the new period from now, not after a long sleep */
        pthread_mutex_unlock(&ticker_mx);
        return 0;
    }
    atomic_store(&ticker_stop_flag, false);
    int err = spawn_quiet_thread(&fc_w.ticker, ticker_main, false);
    fc_w.ticker_running = err == 0;
    return err;
}

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
        snprintf(text, sizeof text, "%s clocksource %s, constant rate, reads cost < 1000 ns, %s",
                 head, cs, cpus);
    else
        snprintf(text, sizeof text, "%s %s listed in available_clocksource (current: %s, which "
                 "the vDSO may not read), constant rate, reads < 1000 ns, %s", head, cs,
                 fc_w.clocksource, cpus);
    snprintf(fc_w.why, sizeof fc_w.why, "%.*s", (int)sizeof fc_w.why - 1, text);
}

/* Early in boot (fc_w.clocksource_pending): waits, re-reading sysfs every
 * CLOCKSOURCE_POLL_NS, until the kernel lists the counter (true) or drops it, or has not
 * decided within CLOCKSOURCE_WAIT_NS (false, why filled).  The kernel decides about a
 * second after the TSC's initialisation (arch_fast_counter_provisional_clocksource); a
 * process started before that would otherwise serve the kernel clock for good.  The
 * checker's thread: never a read, which meanwhile gets the kernel clock. */
static bool await_clocksource(char *why, size_t whylen)
{
    pthread_mutex_lock(&fc_lock);
    bool pending = fc_w.clocksource_pending;
    pthread_mutex_unlock(&fc_lock);
    for (uint64_t waited = 0; pending; waited += CLOCKSOURCE_POLL_NS) {
        if (waited >= CLOCKSOURCE_WAIT_NS) {
            snprintf(why, whylen, "the kernel did not register '%s' within %llu s of the first "
                     "call (its provisional '%s' still listed)", arch_fast_counter_clocksource(),
                     (unsigned long long)(CLOCKSOURCE_WAIT_NS / FC_NS_PER_S),
                     arch_fast_counter_provisional_clocksource());
            return false;
        }
        struct timespec nap = {0, (long)CLOCKSOURCE_POLL_NS};
        nanosleep(&nap, NULL); /* every signal is blocked here: never EINTR */
        char current[32];
        enum fc_clocksource_verdict cs = fc_check_clocksource(
            fc_sysfs_root(), arch_fast_counter_clocksource(),
            arch_fast_counter_provisional_clocksource(), current, sizeof current, why, whylen);
        if (cs == FC_CS_UNUSABLE)
            return false;
        pthread_mutex_lock(&fc_lock);
        snprintf(fc_w.clocksource, sizeof fc_w.clocksource, "%s", current);
        fc_w.clocksource_pending = pending = cs == FC_CS_PENDING;
        pthread_mutex_unlock(&fc_lock);
    }
    return true;
}

/* Moving between CPUs costs tens of microseconds each (milliseconds on a busy machine):
 * never on a user's read.  Until it has passed, the line is stale and reads are answered
 * by the kernel clock; then this thread makes the first line live. */
static void *checker_main(void *arg)
{
    (void)arg;
    char why[200];
    uint64_t mult = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
    bool ok = await_clocksource(why, sizeof why) &&
              fc_check_cross_cpu(fc_counter_ordered_fn, fc_kernel_clock, mult, why,
                                 sizeof why);
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
    /* The line is live: the automatic ticker keeps it fresh for sparse readers, started
     * here, on a background thread, never on a user's read (docs/fastclock.md). */
    if (ok && fc_w.ticker_wanted && !fc_w.ticker_running)
        start_ticker_locked(0);
    pthread_mutex_unlock(&fc_lock);
    return NULL;
}

/* Called with fc_lock held. */
static void start_checker(void)
{
    pthread_t th;
    int err = spawn_quiet_thread(&th, checker_main, true);
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

/* The parent's look at the kernel's clocks, taken in the prepare handler with the refresh
 * lock held: the child compares its own with it (fc_follow_moved_clock), so that a child
 * forked into another time namespace re-anchors on its clock whatever the offset's size. */
static struct fc_look fork_look;
static bool fork_look_ok;

static void atfork_prepare(void)
{
    pthread_mutex_lock(&fc_lock);
    fc_take_refreshing(); /* no half-written line in the child */
    pthread_mutex_lock(&ticker_mx); /* never held by the ticker while it refreshes */
    fork_look_ok = atomic_load(&fc_line.source) == FC_SOURCE_COUNTER;
    if (fork_look_ok)
        fc_take_look(&fork_look, FC_LOOK_TRIES);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&ticker_mx);
    fc_release_refreshing();
    pthread_mutex_unlock(&fc_lock);
}

static void init_ticker_sync(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ticker_cv, &ca);
    pthread_condattr_destroy(&ca);
}

static void atfork_child(void)
{
    /* Only this thread exists in the child; the locks were held by it across fork.  The
     * line stays valid (same counter, same kernel clocks) unless the child is in another
     * time namespace (below).  The threads did not come along:
     * the checker starts again if it had not finished, the ticker if one ran (same period;
     * the automatic one parks again if the child does not read). */
    pthread_mutex_init(&fc_lock, NULL);
    pthread_mutex_init(&ticker_mx, NULL);
    init_ticker_sync();
    atomic_store_explicit(&fc_refreshing, 0u, memory_order_relaxed);
    /* A child forked into a new time namespace (unshare(CLONE_NEWTIME) before the fork):
     * same counter, other CLOCK_MONOTONIC and BOOTTIME, same REALTIME.  Checked before fork
     * returns in the child, so that its first read is already its own clock's. */
    if (fc_w.atfork_registered && atomic_load(&fc_line.source) != FC_SOURCE_UNINIT)
        fc_follow_moved_clock(fork_look_ok ? &fork_look : NULL);
    if (fc_w.checker_running)
        start_checker();
    if (fc_w.ticker_running) {
        fc_w.ticker_running = false;
        start_ticker_locked(atomic_load(&ticker_period_ns));
    }
}

/* ---- initialisation ---- */

static bool counter_safe(uint64_t *mult, char *why, size_t whylen)
{
    const char *off = getenv("FASTCLOCK_DISABLE");
    if (off && *off && strcmp(off, "0") != 0) {
        snprintf(why, whylen, "disabled by FASTCLOCK_DISABLE");
        return false;
    }
    enum fc_clocksource_verdict cs = fc_check_clocksource(
        fc_sysfs_root(), arch_fast_counter_clocksource(),
        arch_fast_counter_provisional_clocksource(), fc_w.clocksource, sizeof fc_w.clocksource,
        why, whylen);
    if (cs == FC_CS_UNUSABLE)
        return false;
    /* Early in boot: the other checks now, the kernel's verdict on the checker's thread. */
    fc_w.clocksource_pending = cs == FC_CS_PENDING;
    if (fc_w.clocksource_pending)
        snprintf(fc_w.why, sizeof fc_w.why, "%.*s (the kernel clock answers until then)",
                 (int)sizeof fc_w.why - 40, why);
    if (!fc_check_constant_rate(arch_fast_counter_constant, arch_counter_invariant,
                                &fc_w.invariance_assumed, why, whylen))
        return false;
    if (!fc_check_read_cost(fc_counter_raw_fn, fc_kernel_clock, why, whylen))
        return false;
    fc_w.stated_hz = fc_counter_stated_hz(fc_w.stated_source, sizeof fc_w.stated_source);
    *mult = fc_mult_from_hz(fc_w.stated_hz);
    fc_w.rate_uncertainty = STATED_UNCERTAINTY;
    if (!*mult) {
        /* Not stated: measure over ~100 us (refined at the first refreshes). */
        uint64_t t1, k1, w1, t2, k2, w2;
        fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 3, &t1, &k1, &w1);
        do
            fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 3, &t2,
                           &k2, &w2);
        while (k2 - k1 < 100000);
        if (t2 <= t1) {
            snprintf(why, whylen, "the counter did not advance");
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
    if (atomic_load_explicit(&fc_line.source, memory_order_relaxed) != FC_SOURCE_UNINIT)
        return;
    fc_tl_in_init = true;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t start = fc_kernel_ns(CLOCK_MONOTONIC);
    if (!fc_w.atfork_registered) {
        init_ticker_sync();
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
        fc_w.atfork_registered = true;
    }
    const char *tick = getenv("FASTCLOCK_TICKER");
    fc_w.ticker_wanted = !(tick && strcmp(tick, "0") == 0);
    snprintf(fc_w.stated_source, sizeof fc_w.stated_source, "not read");
    uint64_t mult = 0;
    char why[200];
    if (!counter_safe(&mult, why, sizeof why)) {
        snprintf(fc_w.why, sizeof fc_w.why, "%s", why);
        fc_w.init_ns = fc_kernel_ns(CLOCK_MONOTONIC) - start;
        atomic_store_explicit(&fc_line.source, FC_SOURCE_KERNEL, memory_order_release);
        fc_tl_in_init = false;
        return;
    }
    uint64_t t0, k0, w0;
    fc_sample_pair(fc_counter_ordered_fn, fc_kernel_clock, CLOCK_MONOTONIC, 5, &t0, &k0, &w0);
    fc_w.base_ticks = t0, fc_w.base_ns = k0, fc_w.base_width = w0;
    fc_w.max_period_ns = hook_ns("FASTCLOCK_PERIOD_US", 1000, MAX_PERIOD_NS);
    if (fc_w.max_period_ns > MAX_PERIOD_NS) /* the hook only shortens (FC_MAX_EXTRAPOLATION_NS) */
        fc_w.max_period_ns = MAX_PERIOD_NS;
    fc_w.period_ns = FIRST_PERIOD_NS < fc_w.max_period_ns ? FIRST_PERIOD_NS : fc_w.max_period_ns;
    fc_w.last_check_ns = k0;
    fc_w.recheck_ns = hook_ns("FASTCLOCK_RECHECK_MS", 1000000, RECHECK_NS);
    /* Not live yet: limit 0 and FC_SEQ_STALE, so every read is the kernel clock's (floor k0)
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
    atomic_store_explicit(&fc_line.seq, FC_SEQ_STALE, memory_order_relaxed);
    fc_take_look(&fc_w.look, FC_LOOK_TRIES); /* the first refresh's look is compared with it */
    fc_w.look_ok = true;
    __atomic_store_n(&fastclock_recent_cache, k0, __ATOMIC_RELAXED);
    if (!fc_w.clocksource_pending) /* else its reason, set by counter_safe */
        describe_safe("CPUs being compared (the kernel clock answers until then)");
    /* Release: a reader that sees FC_SOURCE_COUNTER (acquire) sees the line above. */
    atomic_store_explicit(&fc_line.source, FC_SOURCE_COUNTER, memory_order_release);
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

void fc_writer_info(char *clocksource, size_t clen, char *why, size_t whylen, uint64_t *stated_hz,
                    char *stated_source, size_t slen, uint64_t *refreshes, uint64_t *suspends,
                    uint64_t *init_ns)
{
    fc_init();
    pthread_mutex_lock(&fc_lock);
    fc_take_refreshing();
    snprintf(clocksource, clen, "%s", fc_w.clocksource);
    snprintf(why, whylen, "%s", fc_w.why);
    *stated_hz = fc_w.stated_hz;
    snprintf(stated_source, slen, "%s", fc_w.stated_source);
    *refreshes = atomic_load(&fc_w.refreshes);
    *suspends = fc_w.suspends;
    *init_ns = fc_w.init_ns;
    fc_release_refreshing();
    pthread_mutex_unlock(&fc_lock);
}

/* ---- ticker ---- */

/* Sleeps ns on the ticker's condition (a stop or a new period ends it early); true when
 * told to stop. */
static bool ticker_sleep(uint64_t ns)
{
    /* The kernel's clock (fc_kernel_ns), never clock_gettime: under the shim that is the
     * shim's, served by fastclock, and the ticker's own reads would keep it from parking. */
    uint64_t end = fc_kernel_ns(CLOCK_MONOTONIC) + ns;
    struct timespec until;
    until.tv_sec = (time_t)(end / FC_NS_PER_S);
    until.tv_nsec = (long)(end % FC_NS_PER_S);
    uint64_t period = atomic_load(&ticker_period_ns);
    pthread_mutex_lock(&ticker_mx);
    while (!atomic_load(&ticker_stop_flag) && atomic_load(&ticker_period_ns) == period &&
           pthread_cond_timedwait(&ticker_cv, &ticker_mx, &until) == 0)
        ;
    pthread_mutex_unlock(&ticker_mx);
    return atomic_load(&ticker_stop_flag);
}

/* The ticker refreshes the line once it is past half its period, so that readers find it
 * fresh whatever their pattern (a sparse reader then reads the counter, not the kernel):
 * with the longest period, 100 ms, a refresh every ~50 ms, a few us of work (23 kernel
 * clock reads, 29 at most, and the 2 us write section).  The automatic ticker (period 0)
 * parks when no read came for TICKER_IDLE_NS: it stops refreshing and looks for reads at
 * doubling intervals up to TICKER_PARKED_MAX_NS, so that an idle process is not woken 20
 * times a second for ever; meanwhile the line goes stale and readers get the kernel clock
 * (a bounded read, fastclock.c) until the ticker sees them and refreshes again.  It ends
 * when fastclock leaves the counter (nothing to keep fresh). */
static void *ticker_main(void *arg)
{
    (void)arg;
#ifdef __GLIBC__
    pthread_setname_np(pthread_self(), "fastclock");
#endif
    uint64_t last_read = fc_kernel_ns(CLOCK_MONOTONIC), sleep_ns = TICKER_MIN_SLEEP_NS;
    uint64_t due_seen = atomic_load_explicit(&fc_recent_due_ticks, memory_order_relaxed);
    while (!ticker_sleep(sleep_ns)) {
        if (atomic_load_explicit(&fc_line.source, memory_order_acquire) != FC_SOURCE_COUNTER)
            break;
        uint64_t explicit_period = atomic_load(&ticker_period_ns);
        uint64_t now = fc_kernel_ns(CLOCK_MONOTONIC);
        /* Reads since the last look: `recent`'s due point moved (reads on the live line), or
         * the stale flag is set.  Only looked at, written only when set: a sparse reader's
         * lines stay in its cache. */
        uint64_t due = atomic_load_explicit(&fc_recent_due_ticks, memory_order_relaxed);
        bool stale_reads = atomic_load_explicit(&fc_stale_reads_seen, memory_order_relaxed);
        if (stale_reads)
            atomic_store_explicit(&fc_stale_reads_seen, 0u, memory_order_relaxed);
        if (due != due_seen || stale_reads || explicit_period)
            last_read = now;
        due_seen = due;
        if (now - last_read >= atomic_load(&ticker_idle_ns)) {
            uint64_t most = atomic_load(&ticker_parked_max_ns);
            sleep_ns = sleep_ns * 2 < most ? sleep_ns * 2 : most;
            continue; /* parked */
        }
        uint64_t half = fc_refresh_ahead() / 2;
        sleep_ns = half > TICKER_MIN_SLEEP_NS ? half : TICKER_MIN_SLEEP_NS;
        if (explicit_period) {
            if (explicit_period < sleep_ns)
                sleep_ns = explicit_period;
            /* `recent` from the line, as a read would (a value the seqlock validated): the
             * segment's, or on a stale line (a refresh that could not complete: a loaded
             * machine) the kernel's held at the floor; a line being written gives none. */
            uint64_t v, s1;
            enum fc_read_status r = fc_line_read(&fc_line, FC_CLOCK_MONOTONIC, &v, &s1);
            if (r == FC_READ_VALUE ||
                ((r == FC_READ_PAST || (r == FC_READ_BUSY && !(s1 & FC_SEQ_WRITING))) &&
                 fc_line_stale_value(&fc_line, FC_CLOCK_MONOTONIC, s1,
                                     fc_kernel_ns(CLOCK_MONOTONIC), &v)))
                fc_atomic_max_recent(v);
        }
    }
    return NULL;
}

int fastclock_ticker_start(uint64_t period_ns)
{
    if (period_ns != 0 && period_ns < 100000)
        return EINVAL;
    fc_init();
    pthread_mutex_lock(&fc_lock);
    fc_w.ticker_wanted = true;
    int err = start_ticker_locked(period_ns);
    pthread_mutex_unlock(&fc_lock);
    return err;
}

void fc_set_max_period(uint64_t ns)
{
    fc_init();
    fc_take_refreshing();
    fc_w.max_period_ns = ns && ns < MAX_PERIOD_NS ? ns : MAX_PERIOD_NS;
    if (fc_w.period_ns > fc_w.max_period_ns)
        fc_w.period_ns = fc_w.max_period_ns;
    fc_release_refreshing();
}

void fastclock_ticker_stop(void)
{
    fc_init();
    pthread_mutex_lock(&fc_lock);
    bool running = fc_w.ticker_running;
    pthread_t t = fc_w.ticker;
    fc_w.ticker_running = false;
    fc_w.ticker_wanted = false; /* nor does the checker start the automatic one later */
    pthread_mutex_lock(&ticker_mx);
    atomic_store(&ticker_stop_flag, true);
    pthread_cond_signal(&ticker_cv);
    pthread_mutex_unlock(&ticker_mx);
    pthread_mutex_unlock(&fc_lock);
    if (running)
        pthread_join(t, NULL);
}
