/* SPDX-License-Identifier: MIT */
/* A method is one way of reading the time, named `<path>.<api>[.<clock>]`.
 * bench times its batch function; warp compares the values of its read function. */
#ifndef CLOCKSCOPE_METHOD_H
#define CLOCKSCOPE_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define METHOD_ID_MAX 64
#define METHOD_WHY_MAX 200
#define METHODS_MAX 128

/* Runs n calls (n a multiple of BATCH_UNROLL). */
typedef void (*method_batch_fn)(uint64_t n, const void *ctx);
/* One read; its value in the method's unit. */
typedef uint64_t (*method_read_fn)(const void *ctx);

enum method_unit {
    UNIT_NS,      /* nanoseconds of the clock the method reads */
    UNIT_TICKS,   /* raw counter ticks */
    UNIT_SECONDS, /* whole seconds (time()) */
    UNIT_NONE,    /* not a timestamp (clock_getres, getppid, empty call) */
};

/* "ns", "ticks", "s", or NULL for UNIT_NONE. */
const char *method_unit_name(enum method_unit u);

struct method {
    char id[METHOD_ID_MAX];
    const char *path;         /* libc, vdso, syscall, ref, counter, fastclock */
    const char *api;          /* clock_gettime, gettimeofday, rdtsc, ... */
    const char *clock;        /* clock name for clock_* APIs, else NULL */
    clockid_t clock_id;       /* valid when clock != NULL */
    const char *description;
    method_batch_fn batch;
    method_read_fn read;      /* NULL when the method yields no timestamp */
    enum method_unit unit;
    bool ordered;             /* for counters: ordered against earlier loads */
    const void *ctx;
    /* A method that keeps state between reads: after settle_idle_ns without a read it
     * changes how it serves them (libfastclock's ticker parks), and its reads must follow a
     * pattern for settle_ns before it serves them as it does in that pattern (the parked
     * ticker looks for reads only now and then).  Both 0: no such state.  bench --gap's
     * warm-up follows them. */
    uint64_t settle_idle_ns, settle_ns;
    bool available;
    char why[METHOD_WHY_MAX]; /* why not available */
};

struct method_list {
    size_t count;
    struct method m[METHODS_MAX];
};

/* Appends a method; returns it (zeroed but for id/path/api) or NULL when full. */
struct method *method_add(struct method_list *list, const char *path, const char *api,
                          const char *clock);
void method_unavailable(struct method *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Adds <path>.<api>.<clock> for every clock id (clocks.h), all timed by `batch` and read by
 * `read`, each with its struct clock_info as ctx and values in ns.  A clock the kernel
 * lacks is marked unavailable; so is every one when the path itself cannot run here
 * (`path_unavailable` non-NULL: the reason). */
void methods_add_per_clock(struct method_list *list, const char *path, const char *api,
                           const char *description, method_batch_fn batch, method_read_fn read,
                           const char *path_unavailable);

/* One row of a provider's table of single methods (not expanded per clock). */
struct method_spec {
    const char *api;
    const char *clock;        /* NULL, or the clock name of clock_id */
    clockid_t clock_id;
    const char *description;
    method_batch_fn batch;
    method_read_fn read;      /* NULL when the method yields no timestamp */
    enum method_unit unit;
};
/* Adds <path>.<api>[.<clock>] for spec; returns it, or NULL when the list is full. */
struct method *method_add_spec(struct method_list *list, const char *path,
                               const struct method_spec *spec);

/* Fills the list with every method this machine has, in display order. Each provider
 * (methods_<path>.c) adds its own; a method that cannot run here is still listed,
 * with available=false and the reason. */
void methods_collect(struct method_list *list);
const struct method *methods_find(const struct method_list *list, const char *id);

/* Providers. */
void methods_add_ref(struct method_list *list);
void methods_add_libc(struct method_list *list);
void methods_add_vdso(struct method_list *list);
void methods_add_syscall(struct method_list *list);
void methods_add_counter(struct method_list *list);
void methods_add_fastclock(struct method_list *list);
/* What served libfastclock's reads as of now: true when the counter (named in `counter`),
 * false when the kernel clock; `why` says why (fastclock_info). */
bool methods_fastclock_source(char *counter, size_t clen, char *why, size_t whylen);

#endif
