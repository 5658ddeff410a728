/* SPDX-License-Identifier: MIT */
/* Which publication protocol exposes unordered rdtsc best?  (x86_64 only; a benchmark,
 * not part of clockscope.)  Two pinned threads, plain rdtsc, N reads each:
 *
 *   lock:    spinlock (test-and-test-and-set) around "read prev; rdtsc; publish", the
 *            shape of time-warp-test and of clockscope warp's first version;
 *   seqlock: load seq (acquire); read prev; rdtsc; CAS seq s -> s+1; publish; seq = s+2,
 *            the shape of fio's cpuclock test and of clockscope warp now.
 *
 * Both hand the record to the other CPU first (up to 200 pauses), so most comparisons are
 * cross-CPU.  Prints cross-CPU comparisons and backward steps.
 *
 *   gcc -O2 -pthread -o /tmp/warp_protocols benchmarks/warp_protocols.c
 *   /tmp/warp_protocols lock 2000000; /tmp/warp_protocols seqlock 2000000
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t rdtsc_plain(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static __attribute__((noinline)) uint64_t read_clock(void) { return rdtsc_plain(); }

static long reads_per_thread;
static int use_seqlock;
static struct {
    _Alignas(64) atomic_uint lock;
    atomic_ulong seq;
    atomic_ulong value;
    atomic_int cpu;
} rec;
static atomic_long total_cross, total_back;

static uint64_t publish_lock(int me, uint64_t *prev, int *pc)
{
    unsigned spins = 0;
    for (;;) {
        if (!atomic_load_explicit(&rec.lock, memory_order_relaxed) &&
            (spins >= 200 || atomic_load_explicit(&rec.cpu, memory_order_relaxed) != me) &&
            !atomic_exchange_explicit(&rec.lock, 1, memory_order_acquire))
            break;
        __builtin_ia32_pause();
        spins++;
    }
    *pc = atomic_load_explicit(&rec.cpu, memory_order_relaxed);
    *prev = atomic_load_explicit(&rec.value, memory_order_relaxed);
    uint64_t now = read_clock();
    atomic_store_explicit(&rec.value, now, memory_order_relaxed);
    atomic_store_explicit(&rec.cpu, me, memory_order_relaxed);
    atomic_store_explicit(&rec.lock, 0, memory_order_release);
    return now;
}

static uint64_t publish_seqlock(int me, uint64_t *prev, int *pc)
{
    unsigned spins = 0;
    for (;;) {
        unsigned long s = atomic_load_explicit(&rec.seq, memory_order_acquire);
        if (s & 1) {
            __builtin_ia32_pause();
            continue;
        }
        *prev = atomic_load_explicit(&rec.value, memory_order_relaxed);
        *pc = atomic_load_explicit(&rec.cpu, memory_order_relaxed);
        if (*pc == me && spins++ < 200) {
            __builtin_ia32_pause();
            continue;
        }
        uint64_t now = read_clock();
        if (atomic_compare_exchange_strong(&rec.seq, &s, s + 1)) {
            atomic_store_explicit(&rec.value, now, memory_order_relaxed);
            atomic_store_explicit(&rec.cpu, me, memory_order_relaxed);
            atomic_store_explicit(&rec.seq, s + 2, memory_order_release);
            return now;
        }
    }
}

static void *thread_main(void *arg)
{
    int me = (int)(intptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(me, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        perror("sched_setaffinity");
    long cross = 0, back = 0;
    for (long i = 0; i < reads_per_thread; i++) {
        uint64_t prev;
        int pc;
        uint64_t now = use_seqlock ? publish_seqlock(me, &prev, &pc) : publish_lock(me, &prev, &pc);
        if (pc >= 0 && pc != me) {
            cross++;
            back += (int64_t)(now - prev) < 0;
        }
    }
    atomic_fetch_add(&total_cross, cross);
    atomic_fetch_add(&total_back, back);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "lock") && strcmp(argv[1], "seqlock"))) {
        fprintf(stderr, "usage: %s lock|seqlock READS_PER_THREAD\n", argv[0]);
        return 2;
    }
    use_seqlock = strcmp(argv[1], "seqlock") == 0;
    reads_per_thread = atol(argv[2]);
    atomic_store(&rec.cpu, -1);
    pthread_t a, b;
    pthread_create(&a, NULL, thread_main, (void *)0);
    pthread_create(&b, NULL, thread_main, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%-8s cross-CPU comparisons %ld, backward steps %ld\n", argv[1], (long)total_cross,
           (long)total_back);
    return 0;
}
