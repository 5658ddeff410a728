/* SPDX-License-Identifier: MIT */
/* The interposed calls and the per-clock decisions.  Nothing here changes a call whose
 * clock is not served: the real function (dlsym RTLD_NEXT) gets the same arguments.
 *
 * Bad pointers: where the kernel path would write through the pointer, so does the real
 * call, and the result (EFAULT from a syscall, SIGSEGV from the vDSO) must stay exactly
 * libc's.  So the first served call with a pointer in a given page goes to the real call
 * first (errors returned unchanged); only a page that the real call wrote successfully is
 * remembered (per thread) and written directly afterwards. */
#include "shim/shim.h"
#include "common/environment.h"
#include "common/clock_ns.h"
#include "common/units.h"
#include "fastclock/fc_host.h"

#include "fastclock/fastclock.h"
#include "fastclock/fc_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

enum serve { PASS = 0, FAST, COARSE };
enum mode { MODE_UNSET = 0, MODE_AUTO, MODE_FAST, MODE_COARSE, MODE_COUNT };

/* The real (libc) functions, as void * for real_symbol(); see the get_real_* below. */
static _Atomic(void *) real_cgt, real_gtod, real_time, real_getres;
static _Atomic int mode;                      /* MODE_UNSET until the constructor ran */
static _Atomic unsigned char serve[SHIM_MAX_CLOCK];
static _Thread_local uintptr_t good_page __attribute__((tls_model("initial-exec")));

/* The page of a pointer, plus one (0 = none remembered).  Laundered through an asm so
 * that the compiler cannot use libc's nonnull declarations to drop the NULL case. */
static inline uintptr_t page_tag(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    __asm__("" : "+r"(v));
    return (v >> 12) + 1;
}

/* libc's definition of `name` (the next one after this library), looked up on first use
 * and kept in `slot`.  Two threads racing on the first call both look it up and store the
 * same pointer, so relaxed ordering is enough: dlsym's answer never changes.
 * Signal handlers: dlsym takes the loader's lock, so it must not run in a handler that
 * interrupted a dlsym.  The constructor resolves all four before main() (and before any
 * handler a program can install); only calls from constructors that run earlier can get
 * here unresolved, and those are not in a handler.  Everything else a handler reaches in
 * the shim is lock-free: the mode and per-clock decisions (relaxed atomics), count mode's
 * tables (atomic adds, callers claimed by CAS), the good-page tag (initial-exec TLS), and
 * fastclock's readers (async-signal-safe, docs/fastclock.md). */
static void *real_symbol(_Atomic(void *) *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_relaxed);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        atomic_store_explicit(slot, f, memory_order_relaxed);
    }
    return f;
}

static real_clock_gettime_fn get_real_cgt(void)
{
    return (real_clock_gettime_fn)real_symbol(&real_cgt, "clock_gettime");
}

static int (*get_real_gtod(void))(struct timeval *, void *)
{
    return (int (*)(struct timeval *, void *))real_symbol(&real_gtod, "gettimeofday");
}

static time_t (*get_real_time(void))(time_t *)
{
    return (time_t (*)(time_t *))real_symbol(&real_time, "time");
}

static real_clock_gettime_fn get_real_getres(void)
{
    return (real_clock_gettime_fn)real_symbol(&real_getres, "clock_getres");
}

static uint64_t fast_value(clockid_t id)
{
    return id == CLOCK_MONOTONIC  ? fastclock_monotonic_ns()
           : id == CLOCK_REALTIME ? fastclock_realtime_ns()
                                  : fastclock_boottime_ns();
}

static clockid_t coarse_twin(clockid_t id)
{
    return id == CLOCK_MONOTONIC ? CLOCK_MONOTONIC_COARSE : CLOCK_REALTIME_COARSE;
}

__attribute__((visibility("default"))) int clock_gettime(clockid_t id, struct timespec *ts)
{
    real_clock_gettime_fn real = get_real_cgt();
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m == MODE_COUNT)
        shim_count_clock(id, __builtin_return_address(0));
    if (id < 0 || id >= SHIM_MAX_CLOCK)
        return real(id, ts);
    enum serve s = atomic_load_explicit(&serve[id], memory_order_relaxed);
    if (s == PASS)
        return real(id, ts);
    if (s == COARSE)
        return real(coarse_twin(id), ts);
    if (page_tag(ts) != good_page) {
        int r = real(id, ts); /* libc's own answer to this pointer */
        if (r != 0)
            return r;
        good_page = page_tag(ts);
    }
    uint64_t v = fast_value(id);
    ts->tv_sec = (time_t)(v / 1000000000u);
    ts->tv_nsec = (long)(v % 1000000000u);
    return 0;
}

__attribute__((visibility("default"))) int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    int (*real)(struct timeval *, void *) = get_real_gtod();
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m == MODE_COUNT)
        shim_count_call(0, __builtin_return_address(0));
    enum serve s = atomic_load_explicit(&serve[CLOCK_REALTIME], memory_order_relaxed);
    if (s == PASS || tz)
        return real(tv, tz);
    if (page_tag(tv) != good_page) {
        int r = real(tv, tz); /* also NULL: libc's answer */
        if (r != 0 || page_tag(tv) == 1)
            return r;
        good_page = page_tag(tv);
    }
    uint64_t v;
    if (s == COARSE) {
        struct timespec ts;
        get_real_cgt()(CLOCK_REALTIME_COARSE, &ts);
        v = clock_ns_of(&ts);
    } else {
        v = fastclock_realtime_ns();
    }
    tv->tv_sec = (time_t)(v / 1000000000u);
    tv->tv_usec = (suseconds_t)(v % 1000000000u / 1000u);
    return 0;
}

/* A clock answered from its _COARSE twin steps by the twin's tick, so its resolution is
 * the twin's: programs that size a tolerance from clock_getres (CPython's
 * time.get_clock_info) are told the step they will see.  Every other clock, and a served
 * fast one (nanosecond steps, as the kernel's), keeps libc's answer. */
__attribute__((visibility("default"))) int clock_getres(clockid_t id, struct timespec *res)
{
    real_clock_gettime_fn real = get_real_getres();
    if (id >= 0 && id < SHIM_MAX_CLOCK &&
        atomic_load_explicit(&serve[id], memory_order_relaxed) == COARSE)
        return real(coarse_twin(id), res);
    return real(id, res);
}

/* time() is passed through in every mode: libc answers it from the coarse clock (the
 * vDSO's time() or CLOCK_REALTIME_COARSE), which never needs the counter. */
__attribute__((visibility("default"))) time_t time(time_t *t)
{
    if (atomic_load_explicit(&mode, memory_order_relaxed) == MODE_COUNT)
        shim_count_call(1, __builtin_return_address(0));
    return get_real_time()(t);
}

/* ---- start-up ---- */

static bool env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

static void decide_fast(bool only_where_slow, bool verbose)
{
    static const clockid_t served[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME};
    static const char *names[] = {"realtime", "monotonic", "boottime"};
    const char *forced = getenv(ENV_RUN_SLOW);
    bool slow[3];
    uint64_t libc_ticks[3] = {0}, sys_ticks[3] = {0};
    bool any = false;
    for (size_t i = 0; i < 3; i++) {
        slow[i] = true;
        if (only_where_slow) {
            if (forced && *forced)
                slow[i] = strcmp(forced, "0") != 0;
            else
                slow[i] = fc_host_kernel_path_slow(get_real_cgt(), served[i], &libc_ticks[i], &sys_ticks[i]);
        }
        any |= slow[i];
    }
    /* Auto mode with every kernel path fast: fastclock is not even initialised (no safety
     * checks, no cross-CPU check thread in a program that gains nothing from it). */
    if (any) {
        struct fastclock_info info;
        fastclock_info(&info);
        if (info.source != FASTCLOCK_SOURCE_COUNTER) {
            if (verbose)
                fprintf(stderr, "clockscope-shim: serving nothing: counter not safe: %s\n", info.why);
            return;
        }
        if (verbose)
            fprintf(stderr, "clockscope-shim: fastclock source: %s\n", info.why);
    }
    double per_ns = verbose && only_where_slow && !(forced && *forced) ? fc_host_counter_ticks_per_ns(get_real_cgt())
                                                                         : 0;
    for (size_t i = 0; i < 3; i++) {
        if (slow[i])
            atomic_store(&serve[served[i]], FAST);
        if (!verbose)
            continue;
        if (!only_where_slow)
            fprintf(stderr, "clockscope-shim: %s: fastclock (mode fast)\n", names[i]);
        else if (forced && *forced)
            fprintf(stderr, "clockscope-shim: %s: %s (CLOCKSCOPE_RUN_SLOW=%s)\n", names[i],
                    slow[i] ? "fastclock" : "passed through", forced);
        else if (per_ns > 0)
            fprintf(stderr, "clockscope-shim: %s: %s (libc %s, syscall %s)\n", names[i],
                    slow[i] ? "fastclock: the kernel path is slow" : "passed through",
                    NS_TEXT((double)libc_ticks[i] / per_ns), NS_TEXT((double)sys_ticks[i] / per_ns));
        else    /* a counter that did not move: nothing to convert with */
            fprintf(stderr, "clockscope-shim: %s: %s (libc %llu counter ticks, syscall %llu "
                    "counter ticks)\n", names[i],
                    slow[i] ? "fastclock: the kernel path is slow" : "passed through",
                    (unsigned long long)libc_ticks[i], (unsigned long long)sys_ticks[i]);
    }
}

static void after_fork_child(void)
{
    if (atomic_load(&mode) == MODE_COUNT)
        shim_count_after_fork();
}

__attribute__((constructor)) static void shim_init(void)
{
    Dl_info self;
    if (!shim_env_start(dladdr((void *)shim_init, &self) ? self.dli_fname : NULL))
        return; /* a process a wrapper script started, not the program: serve nothing */
    fc_set_kernel_clock(get_real_cgt());
    get_real_gtod();
    get_real_time();
    get_real_getres();
    bool verbose = env_is(ENV_RUN_VERBOSE, "1");
    const char *m = getenv(ENV_RUN_MODE);
    int chosen = MODE_AUTO;
    if (m && strcmp(m, "fast") == 0)
        chosen = MODE_FAST;
    else if (m && strcmp(m, "coarse") == 0)
        chosen = MODE_COARSE;
    else if (m && strcmp(m, "count") == 0)
        chosen = MODE_COUNT;
    if (chosen == MODE_COUNT) {
        shim_count_start();
        pthread_atfork(NULL, NULL, after_fork_child);
    } else if (chosen == MODE_COARSE) {
        const char *mask = getenv(ENV_RUN_COARSE);
        unsigned long bits = mask ? strtoul(mask, NULL, 0) : 3;
        for (clockid_t id = 0; id < SHIM_MAX_CLOCK; id++)
            if ((bits >> id & 1) && (id == CLOCK_REALTIME || id == CLOCK_MONOTONIC)) {
                atomic_store(&serve[id], COARSE);
                if (verbose)
                    fprintf(stderr, "clockscope-shim: %s: from its _COARSE twin\n",
                            id == CLOCK_REALTIME ? "realtime" : "monotonic");
            }
    } else {
        decide_fast(chosen == MODE_AUTO, verbose);
    }
    atomic_store(&mode, chosen);
}

__attribute__((destructor)) static void shim_fini(void)
{
    if (atomic_load(&mode) == MODE_COUNT)
        shim_count_report();
}
