/* SPDX-License-Identifier: MIT */
/* The round-trip mechanisms of the ladder: one request from side A to side B and its answer
 * back, through the kernel (pipe, eventfd, futex, UNIX socket pair) or through shared memory
 * (spin, spin-then-futex), and the one-line cache-line bounce of the CPU matrix.
 *
 * A channel lives in memory both sides share: a MAP_SHARED anonymous mapping made before
 * fork, so that the same code serves two threads and two processes (futexes are therefore
 * never FUTEX_PRIVATE).  Side A calls mech_round_trip(); side B runs mech_serve() forever
 * (it ends with its thread's process: the ladder's runners are disposable, runner.h). */
#ifndef CLOCKSCOPE_LADDER_MECHANISM_H
#define CLOCKSCOPE_LADDER_MECHANISM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mech {
    MECH_PIPE,
    MECH_EVENTFD,
    MECH_FUTEX,
    MECH_SOCKETPAIR,
    MECH_SPIN,
    MECH_SPIN_FUTEX,
    MECH_CACHELINE, /* the CPU matrix's one bouncing line (not a rung of its own) */
    MECH_COUNT
};

#define LADDER_LINE 64

/* A word on a cache line of its own, so that the two directions never share a line. */
struct ladder_line {
    _Alignas(LADDER_LINE) atomic_uint value;
    atomic_uint sleeping; /* spin-then-futex: the waiter is (about to be) in FUTEX_WAIT */
};

struct channel {
    enum mech mech;
    int a_wfd, a_rfd;      /* the fds side A writes its request to and reads the answer from */
    int b_wfd, b_rfd;      /* side B's; -1 when the mechanism has none */
    struct ladder_line ping; /* A -> B: the request's sequence number */
    struct ladder_line pong; /* B -> A: the answer's */
    struct ladder_line bounce; /* MECH_CACHELINE: odd after A, even after B */
    unsigned seq;          /* A's last request (A's own) */
    bool stall;            /* fault injection: B never answers (mechanism.c) */
};

/* The mechanism's name in rung ids ("pipe", "spin_futex", ...). */
const char *mech_name(enum mech m);
/* What one round trip does, one line. */
const char *mech_description(enum mech m);

/* Makes the kernel objects of ch->mech; false with why filled. */
bool mech_open(struct channel *ch, enum mech m, char *why, size_t whylen);
/* One request and its answer (side A). */
void mech_round_trip(struct channel *ch);
/* Side B: answers every request, forever. */
_Noreturn void mech_serve(struct channel *ch);

/* Spins of a spin-then-futex wait before it sleeps (a few microseconds at most: cross-CPU answers come within it, and on one CPU every spin is waste). */
#define MECH_SPIN_LIMIT 256

/* futex(2) on a shared (not private) word: wait while *w == expected; wake up to n. */
void ladder_futex_wait(atomic_uint *w, unsigned expected);
void ladder_futex_wake(atomic_uint *w, int n);

/* Spin-then-futex, the one protocol both ladder's spin_futex rung and the sweep's clients
 * use.  Waits until l->value != old; returns the new value.  The publisher pairs with it
 * through ladder_publish (seq_cst on both sides: either the waiter's re-check after raising
 * `sleeping` sees the new value, or the publisher sees `sleeping` and wakes it). */
unsigned ladder_wait_change(struct ladder_line *l, unsigned old, int spin_limit);
void ladder_publish(struct ladder_line *l, unsigned v);

#endif
