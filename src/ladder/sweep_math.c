/* SPDX-License-Identifier: MIT */
/* The sweep's pure arithmetic (sweep.h). */
#include "ladder/sweep.h"

#include <math.h>

int sweep_client_counts(int client_cpus, bool quick, int *out, int max)
{
    int n = 0;
    if (quick) {
        static const int q[] = {1, 4};
        for (int i = 0; i < 2 && n < max; i++)
            out[n++] = q[i];
        return n;
    }
    int top = client_cpus > PAPER_HIGH_CONCURRENCY ? client_cpus : PAPER_HIGH_CONCURRENCY;
    if (top > SWEEP_MAX_CLIENTS)
        top = SWEEP_MAX_CLIENTS;
    for (int c = 1; c <= top && n < max; c *= 2) {
        /* the client CPU count itself, between the powers of two around it */
        if (client_cpus > c / 2 && client_cpus < c)
            out[n++] = client_cpus;
        if (n < max)
            out[n++] = c;
    }
    if (n < max && n > 0 && client_cpus > out[n - 1] && client_cpus <= top)
        out[n++] = client_cpus;
    return n;
}

double sweep_warm_s(const struct ladder_plan *p)
{
    return p->quick ? 0.005 : 0.02;
}

double sweep_reduction(double slow_ns, double fast_ns)
{
    if (!(slow_ns > 0) || !(fast_ns > 0) || !isfinite(slow_ns) || !isfinite(fast_ns))
        return NAN;
    return 1 - fast_ns / slow_ns;
}
