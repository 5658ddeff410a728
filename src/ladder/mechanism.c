/* SPDX-License-Identifier: MIT */
/* The round-trip mechanisms (mechanism.h).  Each kernel mechanism is used the way its
 * peers use it: one byte (pipe, socket pair: lmbench's lat_pipe/lat_unix, `perf bench
 * sched pipe`) or one 8-byte count (eventfd) each way, blocking reads. */
#include "ladder/mechanism.h"

#include "arch/arch.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
    const char *name, *description;
} mechs[MECH_COUNT] = {
    [MECH_PIPE] = {"pipe", "1 byte through a pipe each way (blocking read)"},
    [MECH_EVENTFD] = {"eventfd", "an eventfd count each way (blocking read)"},
    [MECH_FUTEX] = {"futex", "a shared word each way, FUTEX_WAIT / FUTEX_WAKE"},
    [MECH_SOCKETPAIR] = {"socketpair", "1 byte through a UNIX stream socket pair each way"},
    [MECH_SPIN] = {"spin", "a shared word each way, the waiter spins (arch spin hint)"},
    [MECH_SPIN_FUTEX] = {"spin_futex", "a shared word each way, the waiter spins "
                                       "then sleeps in FUTEX_WAIT"},
    [MECH_CACHELINE] = {"cacheline", "one cache line bounced: each side waits for the "
                                     "other's store, then stores"},
};

const char *mech_name(enum mech m) { return mechs[m].name; }
const char *mech_description(enum mech m) { return mechs[m].description; }

void ladder_futex_wait(atomic_uint *w, unsigned expected)
{
    /* Not FUTEX_PRIVATE_FLAG: the word may be shared between processes. */
    syscall(SYS_futex, w, FUTEX_WAIT, expected, NULL, NULL, 0);
}

void ladder_futex_wake(atomic_uint *w, int n)
{
    syscall(SYS_futex, w, FUTEX_WAKE, n, NULL, NULL, 0);
}

unsigned ladder_wait_change(struct ladder_line *l, unsigned old, int spin_limit)
{
    for (int i = 0; i < spin_limit; i++) {
        unsigned v = atomic_load_explicit(&l->value, memory_order_acquire);
        if (v != old)
            return v;
        arch_spin_pause();
    }
    for (;;) {
        /* seq_cst store then seq_cst load; pairs with ladder_publish's store then load of
         * `sleeping`: one of the two sides sees the other's store (no lost wake-up), and
         * FUTEX_WAIT itself returns at once if the value already changed. */
        atomic_store(&l->sleeping, 1);
        unsigned v = atomic_load(&l->value);
        if (v != old) {
            atomic_store_explicit(&l->sleeping, 0, memory_order_relaxed);
            return v;
        }
        ladder_futex_wait(&l->value, old);
        atomic_store_explicit(&l->sleeping, 0, memory_order_relaxed);
    }
}

void ladder_publish(struct ladder_line *l, unsigned v)
{
    atomic_store(&l->value, v);
    if (atomic_load(&l->sleeping))
        ladder_futex_wake(&l->value, 1);
}

bool mech_open(struct channel *ch, enum mech m, char *why, size_t whylen)
{
    ch->mech = m;
    ch->a_wfd = ch->a_rfd = ch->b_wfd = ch->b_rfd = -1;
    atomic_store(&ch->ping.value, 0);
    atomic_store(&ch->pong.value, 0);
    atomic_store(&ch->bounce.value, 0);
    ch->seq = 0;
    int p[2], q[2];
    switch (m) {
    case MECH_PIPE:
        if (pipe(p) != 0)
            break;
        if (pipe(q) != 0) {
            close(p[0]);
            close(p[1]);
            break;
        }
        ch->a_wfd = p[1], ch->b_rfd = p[0], ch->b_wfd = q[1], ch->a_rfd = q[0];
        return true;
    case MECH_EVENTFD:
        if ((p[0] = eventfd(0, 0)) < 0)
            break;
        if ((q[0] = eventfd(0, 0)) < 0) {
            close(p[0]);
            break;
        }
        ch->a_wfd = ch->b_rfd = p[0], ch->b_wfd = ch->a_rfd = q[0];
        return true;
    case MECH_SOCKETPAIR:
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) != 0)
            break;
        ch->a_wfd = ch->a_rfd = p[0], ch->b_wfd = ch->b_rfd = p[1];
        return true;
    default:
        return true; /* shared memory only */
    }
    snprintf(why, whylen, "cannot make the %s: %s", mech_name(m), strerror(errno));
    return false;
}

/* Blocking transfer of n bytes; the ladder never gets a short one, but a signal may land. */
static void send_bytes(int fd, const void *b, size_t n)
{
    while (write(fd, b, n) < 0 && errno == EINTR)
        ;
}

static void recv_bytes(int fd, void *b, size_t n)
{
    while (read(fd, b, n) < 0 && errno == EINTR)
        ;
}

static void wait_spin(atomic_uint *w, unsigned old)
{
    while (atomic_load_explicit(w, memory_order_acquire) == old)
        arch_spin_pause();
}

static void wait_futex(atomic_uint *w, unsigned old)
{
    while (atomic_load_explicit(w, memory_order_acquire) == old)
        ladder_futex_wait(w, old);
}

void mech_round_trip(struct channel *ch)
{
    unsigned s = ++ch->seq;
    char byte = 1;
    uint64_t one = 1;
    switch (ch->mech) {
    case MECH_PIPE:
    case MECH_SOCKETPAIR:
        send_bytes(ch->a_wfd, &byte, 1);
        recv_bytes(ch->a_rfd, &byte, 1);
        break;
    case MECH_EVENTFD:
        send_bytes(ch->a_wfd, &one, sizeof one);
        recv_bytes(ch->a_rfd, &one, sizeof one);
        break;
    case MECH_FUTEX:
        /* release: B's acquire load of ping sees everything A wrote before */
        atomic_store_explicit(&ch->ping.value, s, memory_order_release);
        ladder_futex_wake(&ch->ping.value, 1);
        wait_futex(&ch->pong.value, s - 1);
        break;
    case MECH_SPIN:
        atomic_store_explicit(&ch->ping.value, s, memory_order_release);
        wait_spin(&ch->pong.value, s - 1);
        break;
    case MECH_SPIN_FUTEX:
        ladder_publish(&ch->ping, s);
        ladder_wait_change(&ch->pong, s - 1, MECH_SPIN_LIMIT);
        break;
    case MECH_CACHELINE:
        /* A makes the line odd, then waits for B to make it even: two handoffs. */
        atomic_store_explicit(&ch->bounce.value, 2 * s - 1, memory_order_release);
        wait_spin(&ch->bounce.value, 2 * s - 1);
        break;
    case MECH_COUNT:
        break;
    }
}

_Noreturn void mech_serve(struct channel *ch)
{
    while (ch->stall) /* the fault: B takes the request and never answers */
        pause();
    char byte;
    uint64_t count;
    for (unsigned s = 1;; s++) {
        switch (ch->mech) {
        case MECH_PIPE:
        case MECH_SOCKETPAIR:
            recv_bytes(ch->b_rfd, &byte, 1);
            send_bytes(ch->b_wfd, &byte, 1);
            break;
        case MECH_EVENTFD:
            recv_bytes(ch->b_rfd, &count, sizeof count);
            send_bytes(ch->b_wfd, &count, sizeof count);
            break;
        case MECH_FUTEX:
            wait_futex(&ch->ping.value, s - 1);
            atomic_store_explicit(&ch->pong.value, s, memory_order_release);
            ladder_futex_wake(&ch->pong.value, 1);
            break;
        case MECH_SPIN:
            wait_spin(&ch->ping.value, s - 1);
            atomic_store_explicit(&ch->pong.value, s, memory_order_release);
            break;
        case MECH_SPIN_FUTEX:
            ladder_wait_change(&ch->ping, s - 1, MECH_SPIN_LIMIT);
            ladder_publish(&ch->pong, s);
            break;
        case MECH_CACHELINE:
            wait_spin(&ch->bounce.value, 2 * s - 2);
            atomic_store_explicit(&ch->bounce.value, 2 * s, memory_order_release);
            break;
        case MECH_COUNT:
            pause();
            break;
        }
    }
}
