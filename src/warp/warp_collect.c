/* SPDX-License-Identifier: MIT */
/* Memory ordering of the protocol (the reason it can tell ordered reads from unordered).
 *
 * One shared record holds the last published read: its value, the CPU it ran on, and a
 * sequence number that is even when the record is stable and odd while its owner writes
 * it (a seqlock whose writers claim it by compare-and-swap, as in fio's cpuclock test).
 * Each thread, pinned to its own CPU, repeats:
 *
 *     s    = load seq                  (acquire; retry while odd)
 *     prev = record value, prev_cpu    (relaxed loads)
 *     now  = read the method's clock
 *     CAS seq: s -> s + 1              (seq_cst; on failure someone else published: retry)
 *     record = now, me                 (relaxed stores)
 *     store seq = s + 2                (release)
 *     compare now with prev            (private data only)
 *
 * Why a correct clock can never fail the comparison: the previous owner P stored its value
 * before its release of seq = s, and that value depends on P's clock read, so P's read
 * executed before seq = s became visible.  Our acquire load read s, so it happened after
 * that, and our read follows our acquire load.  Hence P's read < P's release < our load
 * < our read in real time, and now >= prev.  The successful CAS proves nobody published
 * between our load and our claim, so prev really is the read just before ours (seq only
 * grows: no ABA).  Reading the record before claiming it is Boehm's "read-dont-modify-
 * write" seqlock: the CAS's release half keeps those loads before it, its acquire half
 * keeps our stores after it; seq_cst costs nothing more than acq_rel on x86 and arm64.
 *
 * Whether "our read follows our acquire load" holds is exactly the method's ordering.  A
 * C11 acquire orders memory accesses; a counter read is not one.  The compiler will not
 * move the read above the load (an opaque call through a function pointer may access
 * memory), but the CPU may: plain rdtsc (or mrs cntvct_el0 without isb) executes while
 * the load of seq still waits for the cache line that P just wrote, sampling a time before
 * P's read.  Placing the read between that load and the CAS, with no branch that depends
 * on a slow result in between (the parity test is predicted), opens that window as wide
 * as the cross-CPU line transfer: the unordered read shows up as a backward step, as it
 * would in any program that orders events by a shared variable and timestamps them with
 * that read.  lfence;rdtsc, rdtscp, isb;mrs cannot start before the load completes, and
 * the vDSO's clock_gettime uses an ordered read, so for them a backward step is a real
 * clock fault (TSCs not synchronized, a broken clocksource).
 *
 * A thread that made the last read lets another CPU go first for a while (the record's
 * cpu, peeked without claiming): otherwise the releasing thread usually wins again (its
 * cache holds the line) and almost every comparison would be on one CPU.  That only
 * steers who tries; correctness rests on the acquire/CAS/release chain alone. */
#include "warp/warp_collect.h"
#include "common/clock_ns.h"

#include "arch/arch.h"
#include "common/cpuset.h"
#include "measure/batch.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a thread that made the last read waits for another CPU to publish
 * before publishing again itself (a few microseconds): keeps the run going when the other
 * threads are preempted or finished. */
#define HANDOFF_SPINS 200
#define MIN_READS_PER_THREAD 64

struct warp_shared {
    _Alignas(64) atomic_uint_fast64_t seq; /* even: record stable; odd: being written */
    atomic_uint_fast64_t value;            /* the last published read */
    atomic_int cpu;                        /* its CPU index; -1: nothing published yet */
    _Alignas(64) atomic_bool stop;
    atomic_int ready; /* threads pinned (or failed to) and waiting for go */
    atomic_bool go;
};

struct warp_thread {
    pthread_t thread;
    int idx, cpu, ncpus;
    const struct method *m;
    struct warp_shared *shared;
    struct warp_pair *column;  /* column[prev]: comparisons of prev -> idx, private */
    uint64_t reads;
    int pin_errno;             /* 0 when pinned */
};

/* One read, published in sequence; returns the previous read and its CPU index. */
static uint64_t publish_one_read(struct warp_shared *sh, int me, bool alone, method_read_fn read,
                                 const void *ctx, uint64_t *prev, int *prev_cpu)
{
    unsigned spins = 0;
    for (;;) {
        uint_fast64_t s = atomic_load_explicit(&sh->seq, memory_order_acquire);
        if (s & 1) { /* an owner is writing the record */
            arch_spin_pause();
            continue;
        }
        *prev = atomic_load_explicit(&sh->value, memory_order_relaxed);
        *prev_cpu = atomic_load_explicit(&sh->cpu, memory_order_relaxed);
        if (!alone && *prev_cpu == me && spins++ < HANDOFF_SPINS) {
            arch_spin_pause();
            continue;
        }
        uint64_t now = read(ctx);
        if (atomic_compare_exchange_strong_explicit(&sh->seq, &s, s + 1, memory_order_seq_cst,
                                                    memory_order_relaxed)) {
            atomic_store_explicit(&sh->value, now, memory_order_relaxed);
            atomic_store_explicit(&sh->cpu, me, memory_order_relaxed);
            atomic_store_explicit(&sh->seq, s + 2, memory_order_release);
            return now;
        }
    }
}

static void *warp_thread_main(void *arg)
{
    struct warp_thread *t = arg;
    struct warp_shared *sh = t->shared;
    if (!cpuset_pin(t->cpu))
        t->pin_errno = errno ? errno : EINVAL;
    /* A start gate rather than a pthread barrier: if starting a later thread fails, the
     * main thread can still release the ones waiting here (go with stop set). */
    atomic_fetch_add_explicit(&sh->ready, 1, memory_order_release);
    while (!atomic_load_explicit(&sh->go, memory_order_acquire))
        arch_spin_pause();
    if (t->pin_errno)
        return NULL;
    bool alone = t->ncpus == 1;
    method_read_fn read = t->m->read;
    const void *ctx = t->m->ctx;
    /* At least a few reads each, even when the share of a short run is over before this
     * thread got going (slow starts under emulation). */
    while (t->reads < MIN_READS_PER_THREAD ||
           !atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        uint64_t prev;
        int prev_cpu;
        uint64_t now = publish_one_read(sh, t->idx, alone, read, ctx, &prev, &prev_cpu);
        t->reads++;
        if (prev_cpu >= 0)
            warp_pair_observe(&t->column[prev_cpu], prev, now);
    }
    return NULL;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void warp_collected_free(struct warp_collected *c)
{
    warp_matrix_free(&c->matrix);
    free(c->reads_per_cpu);
    c->reads_per_cpu = NULL;
}

bool warp_collect(const struct method *m, const int *cpus, int ncpus, double seconds,
                  struct warp_collected *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    static struct warp_shared shared; /* static: the alignment of a 64-byte line */
    atomic_store(&shared.seq, 0);
    atomic_store(&shared.value, 0);
    atomic_store(&shared.cpu, -1);
    atomic_store(&shared.stop, false);
    atomic_store(&shared.ready, 0);
    atomic_store(&shared.go, false);

    struct warp_thread *threads = calloc((size_t)ncpus, sizeof *threads);
    out->reads_per_cpu = calloc((size_t)ncpus, sizeof *out->reads_per_cpu);
    if (!threads || !out->reads_per_cpu || !warp_matrix_init(&out->matrix, ncpus)) {
        snprintf(why, whylen, "out of memory for %d CPUs", ncpus);
        free(threads);
        warp_collected_free(out);
        return false;
    }
    int started = 0;
    bool ok = true;
    for (int i = 0; i < ncpus; i++) {
        struct warp_thread *t = &threads[i];
        *t = (struct warp_thread){.idx = i, .cpu = cpus[i], .ncpus = ncpus, .m = m,
                                  .shared = &shared};
        t->column = calloc((size_t)ncpus, sizeof *t->column);
        int rc = t->column ? pthread_create(&t->thread, NULL, warp_thread_main, t) : ENOMEM;
        if (rc) {
            snprintf(why, whylen, "cannot start a thread for CPU %d: %s", cpus[i], strerror(rc));
            free(t->column);
            ok = false;
            break;
        }
        started++;
    }
    double t0 = 0;
    if (ok) {
        while (atomic_load_explicit(&shared.ready, memory_order_acquire) < started)
            sched_yield();
        t0 = clock_ns_seconds(CLOCK_MONOTONIC_RAW);
        atomic_store_explicit(&shared.go, true, memory_order_release);
        sleep_s(seconds);
    }
    atomic_store_explicit(&shared.stop, true, memory_order_relaxed);
    atomic_store_explicit(&shared.go, true, memory_order_release);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i].thread, NULL);
    out->elapsed_s = ok ? clock_ns_seconds(CLOCK_MONOTONIC_RAW) - t0 : 0;
    for (int i = 0; i < started; i++) {
        struct warp_thread *t = &threads[i];
        if (t->pin_errno && ok) {
            snprintf(why, whylen, "cannot pin a thread to CPU %d: %s", t->cpu,
                     strerror(t->pin_errno));
            ok = false;
        }
        out->reads += t->reads;
        out->reads_per_cpu[i] = t->reads;
        for (int prev = 0; prev < ncpus; prev++)
            warp_pair_merge(warp_matrix_at(&out->matrix, prev, i), &t->column[prev]);
        free(t->column);
    }
    free(threads);
    if (!ok)
        warp_collected_free(out);
    return ok;
}

void resolution_collect(const struct method *m, double seconds, struct resolution *out)
{
    resolution_init(out);
    double end = clock_ns_seconds(CLOCK_MONOTONIC_RAW) + seconds;
    do {
        for (int i = 0; i < 256; i++)
            resolution_add(out, m->read(m->ctx));
    } while (clock_ns_seconds(CLOCK_MONOTONIC_RAW) < end);
}
