/* SPDX-License-Identifier: MIT */
/* The strict parser of a probe's output (docs/runtimes.md, "The probe protocol").
 *
 * A probe is a program in another language, so its output is foreign data: nothing in it
 * is trusted.  The whole of it must be lines of the protocol, each ended by '\n', no NUL,
 * no CR, single spaces, tokens of a fixed alphabet, integers without sign or leading zero,
 * the header first, `end N` last with N the number of rows, nothing after it.  Anything
 * else is an error that names the line and what was wrong. */
#ifndef CLOCKSCOPE_PROBE_PARSE_H
#define CLOCKSCOPE_PROBE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_MAX_ROWS 32
#define PROBE_MIN_SAMPLES 3
#define PROBE_MAX_SAMPLES 200
#define PROBE_MAX_LINE 16384
#define PROBE_TOKEN 64

enum probe_mode { PROBE_TIMED, PROBE_COUNT };

struct probe_row {
    char api[PROBE_TOKEN];      /* "time.time" */
    char clock[PROBE_TOKEN];    /* "realtime", "monotonic", "realtime+monotonic", ... */
    char via[PROBE_TOKEN];      /* "libc", "vdso-direct", "ffi-libc", "syscall" */
    char harness[PROBE_TOKEN];  /* what the harness loop calls: "gc.isenabled()" */
    uint64_t iterations;        /* calls per sample */
    int nsamples;
    uint64_t timed_ns[PROBE_MAX_SAMPLES];   /* each sample's total, API loop */
    uint64_t harness_ns[PROBE_MAX_SAMPLES]; /* the same loop around the harness */
    int line;                   /* 1-based line of this row (count mode: of its mark) */
    /* The reference (optional `ref` line right after the row): a fixed piece of the
     * runtime's own work timed around each pair, so that a change of the machine's speed
     * shows and cancels in the ratio (measure/reference.h). */
    bool has_ref;
    char ref[PROBE_TOKEN];      /* what the reference loop calls: "abs(-1)" */
    uint64_t ref_iterations;    /* calls per reference sample */
    uint64_t ref_ns[PROBE_MAX_SAMPLES]; /* reference sample i: around pair i */
};

struct probe_output {
    char runtime[PROBE_TOKEN];
    char version[PROBE_TOKEN];
    int nrows;
    struct probe_row rows[PROBE_MAX_ROWS];
};

/* Parses buf[0..len) as a probe's output in `mode`, from the runtime named `runtime`
 * (the header must name it).  false: err says what and where ("line 3: ..."). */
bool probe_parse(const char *buf, size_t len, enum probe_mode mode, const char *runtime,
                 struct probe_output *out, char *why, size_t whylen);

#endif
