/* SPDX-License-Identifier: MIT */
/* The polling-server experiment (FlexIPC on ChCore, Journal of Software 2025): N
 * client threads send zero-data requests to one server thread pinned to its own CPU.
 *
 *   futex, eventfd (the server sleeps in the kernel when idle and a client's request wakes
 *   it), poll (the server polls the request slots in user space and never sleeps).
 *
 * Clients are pinned round-robin to the other CPUs; N above their count is marked
 * oversubscribed.  Every client waits for its answer the same way in every mode
 * (spin-then-futex, mechanism.h), so that the modes differ only in how the server learns
 * of a request.  Per N and mode: per-request latency (a round trip, timed by the client)
 * p50 and p99, throughput, and the CPU time each side burns per request (thread CPU-time
 * clocks of every thread, read over the measured window) - the price the paper states but
 * does not measure. */
#ifndef CLOCKSCOPE_LADDER_SWEEP_H
#define CLOCKSCOPE_LADDER_SWEEP_H

#include "common/message.h"
#include "ladder/plan.h"

#include <stdbool.h>
#include <stdint.h>

#define SWEEP_MAX_CLIENTS 64
#define SWEEP_MAX_ROWS 10

enum sweep_mode { SWEEP_FUTEX, SWEEP_EVENTFD, SWEEP_POLL, SWEEP_MODES };
const char *sweep_mode_name(enum sweep_mode m);
/* "sleeps" (woken by the kernel) or "polls". */
const char *sweep_mode_server(enum sweep_mode m);

struct sweep_item {
    bool measured;
    bool timed_out;
    char why[MSG_REASON];
    double p50_ns, p99_ns;       /* per request, round trip */
    uint64_t requests;           /* in the measured window */
    double window_s;             /* at least the plan's; longer until 200 requests (0.5 s at most) */
    double throughput_per_s;
    double server_cpu_ns_per_request;
    double client_cpu_ns_per_request; /* all clients' CPU time / requests */
    double server_cpu_share;     /* server CPU time / window: 1.0 is a core burnt */
    double server_sleeps_per_request; /* its voluntary context switches / requests */
};

struct sweep_row {
    int clients;
    bool oversubscribed;
    struct sweep_item item[SWEEP_MODES];
    /* 1 - poll p50 / mode p50 for futex and eventfd (NaN when either is missing). */
    double reduction[SWEEP_MODES];
};

struct sweep {
    bool available;
    char why[MSG_REASON];
    int server_cpu;
    int nclient_cpus;
    int client_cpus[SWEEP_MAX_CLIENTS];
    int nrows;
    struct sweep_row row[SWEEP_MAX_ROWS];
};

/* The paper's figures: latency 86% lower at low concurrency; at 32 concurrent clients
 * FlexIPC's latency is 49% of the original's (51% lower). */
#define PAPER_LOW_CONCURRENCY_REDUCTION 0.86
#define PAPER_AT_32_LATENCY_RATIO 0.49
#define PAPER_HIGH_CONCURRENCY 32

struct ladder_progress;
/* lp: a progress line per item (NULL: none). */
void sweep_measure(const struct ladder_plan *p, struct sweep *out, struct ladder_progress *lp);

/* Pure (sweep_math.c, unit-tested). */
/* The client counts: 1, 2, 4, ... up to max(32, client CPUs) (the client CPU count itself
 * included); quick: 1 and 4.  Returns how many (at most max). */
int sweep_client_counts(int client_cpus, bool quick, int *out, int max);
/* The warm-up before each item's measured window (seconds). */
double sweep_warm_s(const struct ladder_plan *p);
/* 1 - fast / slow, NaN unless both are positive finite numbers. */
double sweep_reduction(double slow_ns, double fast_ns);

#endif
