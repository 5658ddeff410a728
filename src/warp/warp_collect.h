/* SPDX-License-Identifier: MIT */
/* The live half of `clockscope warp`: threads pinned to CPUs read a method's clock under
 * a shared sequence and compare each read with the one published before it (docs/warp.md has
 * the protocol and why it is ordered).  Results go into the pure analysis (warp_analysis.h). */
#ifndef CLOCKSCOPE_WARP_COLLECT_H
#define CLOCKSCOPE_WARP_COLLECT_H

#include "measure/method.h"
#include "warp/warp_analysis.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct warp_collected {
    struct warp_matrix matrix;   /* indices are positions in the cpus array */
    uint64_t reads;
    uint64_t *reads_per_cpu;     /* ncpus entries */
    double elapsed_s;
};

/* Runs the cross-CPU test of one method for `seconds` on `ncpus` CPUs (one thread each;
 * with one CPU, a single thread compares its own reads).  False with err filled when a
 * thread cannot be started or pinned, or memory runs out. */
bool warp_collect(const struct method *m, const int *cpus, int ncpus, double seconds,
                  struct warp_collected *out, char *why, size_t whylen);
void warp_collected_free(struct warp_collected *c);

/* Back-to-back reads of one method on the calling thread for `seconds`. */
void resolution_collect(const struct method *m, double seconds, struct resolution *out);

#endif
