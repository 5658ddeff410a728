/* SPDX-License-Identifier: MIT */
/* An independent check on `clockscope bench`: the plainest possible loop of
 * clock_gettime(CLOCK_MONOTONIC) calls, no unrolling, no statistics, timed as a whole.
 * Usage: plainloop [CALLS]  -> prints "<calls> <elapsed_ns> <ns_per_call>". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 10000000;
    if (calls <= 0) {
        fprintf(stderr, "usage: plainloop [CALLS > 0]\n");
        return 2;
    }
    struct timespec t0, t1, ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
    for (long i = 0; i < calls; i++)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%ld %.0f %.3f\n", calls, ns, ns / (double)calls);
    return 0;
}
