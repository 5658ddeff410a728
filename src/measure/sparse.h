/* SPDX-License-Identifier: MIT */
/* Sparse reads (bench --gap): what one read costs when a program reads the time now and
 * then instead of in a loop.
 *
 * Schedule for one gap, all methods side by side: a round is a sleep of `gap`
 * (clock_nanosleep, relative, like a program's usleep), then one method read twice in a
 * row, each read timed on its own between two bracket reads (measure/bracket.h):
 *   cold = the method's first read after the sleep;
 *   hot  = the read of the same method right after its cold read.
 * Rounds come in blocks of SPARSE_BLOCK_READS of one method (plus its warm-up rounds,
 * not recorded), the methods taking turns block by block until each has `reads`: within
 * a block nothing else reads the time, so no other method's read warms a cold read
 * (libc's and the vDSO's share code and data), and the method's own reads are one gap
 * apart, as in a program that reads every `gap`.  Taking turns keeps the methods side by
 * side in time, so a machine that drifts drifts for all.  A gap takes about
 * (methods + 1) x reads x gap, plus the warm-ups.
 * Warm-up: SPARSE_WARMUP_ROUNDS per block; but a method that keeps state between reads
 * (method.settle_idle_ns, settle_ns: libfastclock's ticker parks after 2 s without reads)
 * and whose block starts after an idle spell that long (the other methods' blocks: 12 s
 * at 150 ms) warms up for settle_ns, so that its recorded reads are those of a program
 * that reads every `gap`, not of one just back from an idle spell.
 * The empty bracket (nothing between the two timer reads) is one more slot, so its cost
 * is measured cold and hot under the same conditions; its median is subtracted from every
 * read (cold from cold, hot from hot), clamped at 0.
 * A round during which the thread's involuntary context switch count changed (it was
 * preempted) is discarded and retaken, and counted. */
#ifndef CLOCKSCOPE_SPARSE_H
#define CLOCKSCOPE_SPARSE_H

#include "measure/bracket.h"
#include "measure/method.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPARSE_WARMUP_ROUNDS 2 /* per block, not recorded (a settling method: more) */
#define SPARSE_BLOCK_READS 20  /* reads kept per block */

/* A distribution of per-read costs in ns.  n == 0: no read kept, every figure NaN. */
struct sparse_dist {
    size_t n;
    double min, p50, p99, p999, max, mean;
};

struct sparse_method {
    const struct method *m;
    uint32_t warmup_rounds;       /* not recorded, over all its blocks */
    uint32_t settled_blocks;      /* blocks after an idle spell whose settle_ns needed more
                                   * than the fixed warm-up rounds */
    uint64_t last_read_ns;        /* schedule: its last read, CLOCK_MONOTONIC (0: none yet) */
    struct sparse_dist cold, hot; /* net of the bracket's median */
};

struct sparse_gap {
    uint64_t gap_ns;
    uint32_t reads_wanted;
    size_t rounds_kept;            /* reads kept of the slot with fewest (= reads_wanted
                                    * unless the machine was too busy) */
    size_t rounds_preempted;       /* discarded and retaken */
    size_t *kept;                  /* reads kept per slot (slot 0: the empty bracket) */
    int warmup_rounds;
    struct sparse_dist bracket_cold, bracket_hot; /* the empty bracket itself: subtracted */
    double elapsed_ns;
    size_t nmethods;
    struct sparse_method *methods; /* nmethods, in the caller's order */
    /* Raw bracketed ticks per slot (slot 0: the empty bracket), [slot * reads + i]. */
    uint64_t *raw_cold, *raw_hot;
};

/* Whether a method can be read once on its own (it has a read function). */
bool sparse_method_supported(const struct method *m);
/* Warm-up rounds of a block of m at this gap after `idle_ns` without a read of m (0: its
 * first block): SPARSE_WARMUP_ROUNDS, or enough to span m->settle_ns when m keeps state
 * and the idle spell (or its first block) could have changed it. */
uint32_t sparse_warmup_rounds(const struct method *m, uint64_t gap_ns, uint64_t idle_ns);
/* Runs the schedule for one gap over ms[0..nm) (each sparse_method_supported) on the
 * calling thread, which the caller has pinned.  Keeps raw ticks; figures come from
 * sparse_gap_summarize.  False with err filled when memory runs out. */
/* tick (may be NULL) is called after each block with the reads kept so far over all slots
 * and the reads wanted (progress). */
bool sparse_measure_gap(const struct method *const *ms, size_t nm, const struct bracket *b,
                        uint64_t gap_ns, uint32_t reads, struct sparse_gap *out, char *why,
                        size_t whylen, void (*tick)(void *ctx, size_t kept, size_t wanted),
                        void *tick_ctx);
/* Turns the raw ticks into the distributions, ns_per_tick from the bracket's rate (known
 * once the whole run has ended). */
void sparse_gap_summarize(struct sparse_gap *g, double ns_per_tick);
void sparse_gap_free(struct sparse_gap *g);

#endif
