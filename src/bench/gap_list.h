/* SPDX-License-Identifier: MIT */
/* bench --gap LIST: the read patterns to measure, e.g. "0,1ms,20ms,150ms,1s:30".
 * Pure parsing (string in, list out, no I/O), so it is unit- and mutation-tested alone. */
#ifndef CLOCKSCOPE_GAP_LIST_H
#define CLOCKSCOPE_GAP_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAP_LIST_MAX 16
#define GAP_MAX_NS 60000000000ull /* 60 s: longer gaps would make a run last hours */
#define GAP_READS_MAX 100000u

struct gap_item {
    uint64_t gap_ns; /* 0: the hot loop (bench's dense measurement) */
    uint32_t reads;  /* reads per method wanted; 0: not given (the default applies) */
};

struct gap_list {
    int count;
    struct gap_item item[GAP_LIST_MAX];
};

/* Parses s[0..len): comma-separated items DURATION[:READS].  DURATION is "0" or a
 * decimal number with a unit ns, us, ms or s ("1ms", "1.5ms", "250us") that is a whole
 * number of nanoseconds, at most GAP_MAX_NS; READS is 1..GAP_READS_MAX and not allowed
 * on gap 0.  No spaces, no empty items, no duplicate gaps.  On false, err says what is
 * wrong and where. */
bool gap_list_parse(const char *s, size_t len, struct gap_list *out, char *why, size_t whylen);

/* Reads per method at a gap when none is given: 200, but at most about 10 s of sleeping
 * per gap (10 s / gap), and at least 10. */
uint32_t gap_default_reads(uint64_t gap_ns);

/* "0", "250 µs", "1 ms", "1.5 s": a gap as a person reads it (µ in UTF-8, as units.h). */
void gap_format(uint64_t gap_ns, char *buf, size_t len);

#endif
