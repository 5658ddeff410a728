/* SPDX-License-Identifier: MIT */
/* The polling-server experiment, live (sweep.h).  One runner (runner.h) per client count and
 * mode: a server thread, N client threads and the runner's own thread, which opens and
 * closes the measured window and reads every thread's CPU-time clock at both ends. */
#include "ladder/sweep.h"
#include "common/clock_ns.h"

#include "arch/arch.h"
#include "common/message.h"
#include "common/stats.h"
#include "ladder/ladder_progress.h"
#include "ladder/mechanism.h"
#include "ladder/runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* Latencies kept per item, over all clients (enough for p99 of a 0.25 s window). */
#define SWEEP_LATENCIES_MAX (1u << 19)

enum phase { PHASE_WARM, PHASE_MEASURE, PHASE_DONE };

struct slot {
    struct ladder_line req;  /* the client's last request number */
    struct ladder_line resp; /* the server's last answer to it */
    /* Requests completed in the window so far, for the runner's "enough yet?" (a line of
     * its own: only the client writes it, the runner reads it a few times). */
    _Alignas(LADDER_LINE) atomic_ulong done;
};

/* A window ends after its time and at least this many requests (p99 from fewer means
 * nothing), or after SWEEP_STRETCH_S in all: a server starved by other work still ends. */
#define SWEEP_MIN_REQUESTS 200
#define SWEEP_STRETCH_S 0.5

struct sweep_run {
    enum sweep_mode mode;
    int nclients;
    struct slot *slots;
    /* Requests the sleeping server has been told of; FUTEX_WAIT sleeps on it. */
    struct ladder_line events;
    int efd;
    atomic_int phase;
    atomic_int stop;
    bool stall;
    int server_cpu;
    atomic_int server_tid;
    const int *client_cpus;
    int nclient_cpus;
    pthread_barrier_t start;
    /* per client: latencies recorded in the window (client i owns its part) */
    uint32_t *lat;
    size_t lat_per_client;
    size_t *lat_n;
    uint64_t *requests;
};

struct client_arg {
    struct sweep_run *r;
    int i;
};

static void pin_self(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void wake_server(struct sweep_run *r)
{
    if (r->mode == SWEEP_EVENTFD) {
        uint64_t one = 1;
        while (write(r->efd, &one, sizeof one) < 0 && errno == EINTR)
            ;
    } else {
        ladder_futex_wake(&r->events.value, 1);
    }
}

/* Answers every slot whose request is new; returns whether it answered any. */
static bool serve_pending(struct sweep_run *r, unsigned *last)
{
    bool served = false;
    for (int i = 0; i < r->nclients; i++) {
        unsigned q = atomic_load_explicit(&r->slots[i].req.value, memory_order_acquire);
        if (q != last[i]) {
            last[i] = q;
            ladder_publish(&r->slots[i].resp, q);
            served = true;
        }
    }
    return served;
}

static void *server_main(void *arg)
{
    struct sweep_run *r = arg;
    pin_self(r->server_cpu);
    atomic_store(&r->server_tid, (int)gettid());
    unsigned last[SWEEP_MAX_CLIENTS] = {0};
    pthread_barrier_wait(&r->start);
    while (r->stall) /* the fault: a server that never answers */
        pause();
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        unsigned ev = atomic_load(&r->events.value);
        if (serve_pending(r, last))
            continue;
        if (r->mode == SWEEP_POLL) {
            arch_spin_pause();
            continue;
        }
        /* seq_cst store then load; pairs with a client's seq_cst increment of `events`
         * then load of `sleeping` (client_request): either this re-check sees the new
         * request, or that client sees `sleeping` and wakes the server. */
        atomic_store(&r->events.sleeping, 1);
        if (atomic_load(&r->events.value) == ev && !atomic_load(&r->stop)) {
            if (r->mode == SWEEP_FUTEX) {
                ladder_futex_wait(&r->events.value, ev);
            } else {
                uint64_t count;
                while (read(r->efd, &count, sizeof count) < 0 && errno == EINTR)
                    ;
            }
        }
        atomic_store_explicit(&r->events.sleeping, 0, memory_order_relaxed);
    }
    return NULL;
}

static void client_request(struct sweep_run *r, struct slot *s, unsigned q)
{
    atomic_store(&s->req.value, q);
    if (r->mode != SWEEP_POLL) {
        atomic_fetch_add(&r->events.value, 1);
        if (atomic_load(&r->events.sleeping))
            wake_server(r);
    }
    ladder_wait_change(&s->resp, q - 1, MECH_SPIN_LIMIT);
}

static void *client_main(void *arg)
{
    const struct client_arg *ca = arg;
    struct sweep_run *r = ca->r;
    struct slot *s = &r->slots[ca->i];
    pin_self(r->client_cpus[ca->i % r->nclient_cpus]);
    uint32_t *lat = r->lat + (size_t)ca->i * r->lat_per_client;
    size_t n = 0;
    uint64_t requests = 0;
    pthread_barrier_wait(&r->start);
    for (unsigned q = 1;; q++) {
        int phase = atomic_load_explicit(&r->phase, memory_order_relaxed);
        if (phase == PHASE_DONE)
            break;
        uint64_t t0 = clock_ns_read(CLOCK_MONOTONIC_RAW);
        client_request(r, s, q);
        uint64_t t1 = clock_ns_read(CLOCK_MONOTONIC_RAW);
        if (phase == PHASE_MEASURE) {
            requests++;
            atomic_store_explicit(&s->done, requests, memory_order_relaxed);
            if (n < r->lat_per_client)
                lat[n++] = (uint32_t)(t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0);
        }
    }
    r->lat_n[ca->i] = n;
    r->requests[ca->i] = requests;
    return NULL;
}

struct sweep_job {
    enum sweep_mode mode;
    int nclients;
    int server_cpu;
    atomic_int server_tid;
    const int *client_cpus;
    int nclient_cpus;
    double warm_s, window_s;
    enum ladder_fault_kind fault;
};

static double thread_cpu_ns(pthread_t t)
{
    clockid_t id;
    struct timespec ts;
    if (pthread_getcpuclockid(t, &id) != 0 || clock_gettime(id, &ts) != 0)
        return NAN;
    return (double)clock_ns_of(&ts);
}

/* How often a thread has gone to sleep (its voluntary context switches), or -1: the
 * server's count says whether "sleeps" really slept, or found the next request waiting. */
static long thread_sleeps(int tid)
{
    char path[MSG_PROC_PATH], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strstr(buf, "\nvoluntary_ctxt_switches:");
    return p ? strtol(p + strlen("\nvoluntary_ctxt_switches:"), NULL, 10) : -1;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Summarizes the recorded latencies into it (p50, p99). */
static void summarize(struct sweep_run *r, struct sweep_item *it)
{
    size_t total = 0;
    for (int i = 0; i < r->nclients; i++)
        total += r->lat_n[i];
    double *v = malloc(sizeof(double) * (total ? total : 1));
    if (!v)
        return;
    size_t k = 0;
    for (int i = 0; i < r->nclients; i++)
        for (size_t j = 0; j < r->lat_n[i]; j++)
            v[k++] = r->lat[(size_t)i * r->lat_per_client + j];
    struct summary s;
    stats_summarize(v, k, &s);
    free(v);
    it->p50_ns = s.median;
    it->p99_ns = s.p99;
}

/* The clocks read at one edge of the measured window: wall time, each thread's CPU time
 * (the server's first) and how often the server slept. */
struct window_edge {
    uint64_t t;
    double cpu[SWEEP_MAX_CLIENTS + 1];
    long sleeps;
};

static void read_edge(struct sweep_run *r, pthread_t server, const pthread_t *clients,
                      struct window_edge *e)
{
    e->cpu[0] = thread_cpu_ns(server);
    e->sleeps = thread_sleeps(atomic_load(&r->server_tid));
    for (int i = 0; i < r->nclients; i++)
        e->cpu[i + 1] = thread_cpu_ns(clients[i]);
}

/* Keeps the window open, a window_s at a time up to SWEEP_STRETCH_S, until at least
 * SWEEP_MIN_REQUESTS requests have completed. */
static void stretch_window(struct sweep_run *r, const struct sweep_job *job)
{
    for (int stretch = 1; stretch * job->window_s < SWEEP_STRETCH_S; stretch++) {
        unsigned long done = 0;
        for (int i = 0; i < job->nclients; i++)
            done += atomic_load_explicit(&r->slots[i].done, memory_order_relaxed);
        if (done >= SWEEP_MIN_REQUESTS)
            break;
        sleep_s(job->window_s);
    }
}

/* The run's buffers, sized for its clients.  Returns whether they were all had. */
static bool alloc_run(struct sweep_run *r)
{
    size_t n = (size_t)r->nclients;
    r->lat_per_client = SWEEP_LATENCIES_MAX / n;
    r->slots = aligned_alloc(LADDER_LINE, sizeof(struct slot) * n);
    r->lat = malloc(sizeof(uint32_t) * SWEEP_LATENCIES_MAX);
    r->lat_n = calloc(n, sizeof *r->lat_n);
    r->requests = calloc(n, sizeof *r->requests);
    if (!r->slots || !r->lat || !r->lat_n || !r->requests)
        return false;
    memset(r->slots, 0, sizeof(struct slot) * n);
    return true;
}

/* The item's figures from the run and the window's two edges.  Returns 1 when no
 * request completed (it->why says so), else 0. */
static int fill_item(struct sweep_item *it, struct sweep_run *r, const struct window_edge *e0,
                     const struct window_edge *e1)
{
    it->window_s = (double)(e1->t - e0->t) / 1e9;
    for (int i = 0; i < r->nclients; i++)
        it->requests += r->requests[i];
    double client_cpu = 0;
    for (int i = 0; i < r->nclients; i++)
        client_cpu += e1->cpu[i + 1] - e0->cpu[i + 1];
    if (it->requests == 0) {
        snprintf(it->why, sizeof it->why, "no request completed in %.3f s", it->window_s);
        return 1;
    }
    double req = (double)it->requests;
    long sleeps0 = e0->sleeps, sleeps1 = e1->sleeps;
    it->throughput_per_s = req / it->window_s;
    it->server_cpu_ns_per_request = (e1->cpu[0] - e0->cpu[0]) / req;
    it->client_cpu_ns_per_request = client_cpu / req;
    it->server_cpu_share = (e1->cpu[0] - e0->cpu[0]) / (it->window_s * 1e9);
    it->server_sleeps_per_request =
        sleeps0 >= 0 && sleeps1 >= sleeps0 ? (double)(sleeps1 - sleeps0) / req : NAN;
    summarize(r, it);
    return 0;
}

static int sweep_runner(void *shared, const void *arg)
{
    struct sweep_item *it = shared;
    const struct sweep_job *job = arg;
    if (job->fault == FAULT_CRASH)
        raise(SIGSEGV);
    struct sweep_run r = {.mode = job->mode, .nclients = job->nclients,
                          .server_cpu = job->server_cpu, .client_cpus = job->client_cpus,
                          .nclient_cpus = job->nclient_cpus, .efd = -1,
                          .stall = job->fault == FAULT_HANG};
    if (!alloc_run(&r))
        return 1;
    if (job->mode == SWEEP_EVENTFD && (r.efd = eventfd(0, 0)) < 0)
        return 1;
    pin_self(job->server_cpu);
    pthread_barrier_init(&r.start, NULL, (unsigned)job->nclients + 2);
    pthread_t server, clients[SWEEP_MAX_CLIENTS];
    struct client_arg ca[SWEEP_MAX_CLIENTS];
    if (pthread_create(&server, NULL, server_main, &r) != 0)
        return 1;
    for (int i = 0; i < job->nclients; i++) {
        ca[i] = (struct client_arg){&r, i};
        if (pthread_create(&clients[i], NULL, client_main, &ca[i]) != 0)
            return 1; /* the barrier never opens: the others end with this process */
    }
    pthread_barrier_wait(&r.start);
    sleep_s(job->warm_s);
    struct window_edge e0, e1;
    e0.t = clock_ns_read(CLOCK_MONOTONIC_RAW);
    atomic_store(&r.phase, PHASE_MEASURE);
    read_edge(&r, server, clients, &e0);
    sleep_s(job->window_s);
    stretch_window(&r, job);
    /* Every clock read before the window closes: a client that has seen PHASE_DONE may
     * have exited, and an exited thread's CPU clock cannot be read. */
    e1.t = clock_ns_read(CLOCK_MONOTONIC_RAW);
    read_edge(&r, server, clients, &e1);
    atomic_store(&r.phase, PHASE_DONE);
    for (int i = 0; i < job->nclients; i++)
        pthread_join(clients[i], NULL);
    atomic_store(&r.stop, 1);
    atomic_fetch_add(&r.events.value, 1);
    wake_server(&r);
    pthread_join(server, NULL);
    return fill_item(it, &r, &e0, &e1);
}

const char *sweep_mode_name(enum sweep_mode m)
{
    static const char *const names[SWEEP_MODES] = {"futex", "eventfd", "poll"};
    return names[m];
}

const char *sweep_mode_server(enum sweep_mode m)
{
    return m == SWEEP_POLL ? "polls" : "sleeps";
}

static void measure_item(const struct ladder_plan *p, struct sweep_job *job, struct sweep_item *it)
{
    struct sweep_item *sh = runner_shared_alloc(sizeof *sh);
    if (!sh) {
        snprintf(it->why, sizeof it->why, "cannot map shared memory");
        return;
    }
    char id[64];
    snprintf(id, sizeof id, "sweep.%s.%d", sweep_mode_name(job->mode), job->nclients);
    job->fault = ladder_fault_for(&p->faults, id);
    struct runner_outcome oc;
    double timeout = job->warm_s + job->window_s + SWEEP_STRETCH_S + p->rung_timeout_s;
    if (runner_run(sweep_runner, sh, job, timeout, &oc)) {
        *it = *sh;
        it->measured = true;
    } else {
        it->timed_out = oc.timed_out;
        snprintf(it->why, sizeof it->why, "%.160s%s%.160s", oc.why, sh->why[0] ? ": " : "", sh->why);
    }
    runner_shared_free(sh, sizeof *sh);
}

void sweep_measure(const struct ladder_plan *p, struct sweep *out, struct ladder_progress *lp)
{
    memset(out, 0, sizeof *out);
    if (p->cpus.count < 2) {
        snprintf(out->why, sizeof out->why,
                 "one CPU available to this process (affinity): the server cannot have a "
                 "CPU of its own");
        return;
    }
    out->available = true;
    out->server_cpu = p->cpus.cpu[0];
    for (int i = 1; i < p->cpus.count && out->nclient_cpus < SWEEP_MAX_CLIENTS; i++)
        out->client_cpus[out->nclient_cpus++] = p->cpus.cpu[i];
    int counts[SWEEP_MAX_ROWS];
    out->nrows = sweep_client_counts(out->nclient_cpus, p->quick, counts, SWEEP_MAX_ROWS);
    for (int k = 0; k < out->nrows; k++) {
        struct sweep_row *row = &out->row[k];
        row->clients = counts[k];
        row->oversubscribed = counts[k] > out->nclient_cpus;
        for (int m = 0; m < SWEEP_MODES; m++) {
            struct sweep_job job = {.mode = (enum sweep_mode)m, .nclients = counts[k],
                                    .server_cpu = out->server_cpu,
                                    .client_cpus = out->client_cpus,
                                    .nclient_cpus = out->nclient_cpus,
                                    .warm_s = sweep_warm_s(p),
                                    .window_s = p->sweep_seconds};
            double waits, expected = ladder_sweep_item_expected_s(p, &waits);
            ladder_progress_step(lp, expected, waits,
                                 "the polling-server sweep: %d client%s, %s", counts[k],
                                 counts[k] == 1 ? "" : "s", sweep_mode_name(job.mode));
            measure_item(p, &job, &row->item[m]);
        }
        for (int m = 0; m < SWEEP_MODES; m++)
            row->reduction[m] = m == SWEEP_POLL || !row->item[m].measured ||
                                        !row->item[SWEEP_POLL].measured
                                    ? NAN
                                    : sweep_reduction(row->item[m].p50_ns,
                                                      row->item[SWEEP_POLL].p50_ns);
    }
}
