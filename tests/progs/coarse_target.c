/* SPDX-License-Identifier: MIT */
/* The coarse clocks across `clockscope run -p` and `--undo` (tests/test_run_attach_safety.py),
 * built with -static:
 *   coarse_target T
 * T threads read CLOCK_MONOTONIC_COARSE and CLOCK_REALTIME_COARSE through the vDSO without
 * pause, each keeping the highest value it has read of each; a value below it is a
 * decrease (a served coarse read is answered by the fine clock, which runs up to a tick
 * ahead of the kernel's coarse value: going back to the kernel's at the undo must not step
 * back).  Prints "ready pid P", and when its stdin ends
 *   ok coarse_target threads T reads R decreases 0
 * and exits 0 ("FAIL ... decreases D worst_ns W" and 1 when a value went down). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static atomic_bool stop;
static atomic_long reads, decreases;
static _Atomic int64_t worst;

static void *reader(void *arg)
{
    (void)arg;
    static const clockid_t ids[2] = {CLOCK_MONOTONIC_COARSE, CLOCK_REALTIME_COARSE};
    int64_t high[2] = {0, 0};
    long n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        for (int k = 0; k < 2; k++) {
            struct timespec t;
            clock_gettime(ids[k], &t);
            int64_t v = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
            if (v < high[k]) {
                atomic_fetch_add(&decreases, 1);
                int64_t d = high[k] - v, w = atomic_load(&worst);
                while (d > w && !atomic_compare_exchange_weak(&worst, &w, d))
                    ;
            } else {
                high[k] = v;
            }
            n++;
        }
    }
    atomic_fetch_add(&reads, n);
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 2;
    if (nthreads < 1 || nthreads > MAX_THREADS) {
        fprintf(stderr, "usage: coarse_target T (1 to %d threads)\n", MAX_THREADS);
        return 2;
    }
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, reader, NULL) != 0) {
            perror("pthread_create");
            return 2;
        }
    printf("ready pid %d\n", (int)getpid());
    fflush(stdout);
    char buf[256];
    ssize_t r;
    while ((r = read(0, buf, sizeof buf)) != 0)
        if (r < 0 && errno != EINTR)
            break;
    atomic_store(&stop, true);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    long d = atomic_load(&decreases);
    printf("%s coarse_target threads %d reads %ld decreases %ld worst_ns %lld\n", d ? "FAIL" : "ok",
           nthreads, atomic_load(&reads), d, (long long)atomic_load(&worst));
    return d != 0;
}
