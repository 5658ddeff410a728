/* SPDX-License-Identifier: MIT */
/* Parsers of saved perf text: buffer in, tally out (tally.h).  Pure: no I/O, no
 * allocation; any byte sequence gives either a tally or an error naming the line.
 *
 *   perf_script_parse   `perf script` output: sample headers, each followed by its call
 *                       chain (one frame a line: address, symbol+offset, (object)), or
 *                       one line per sample without call chains.
 *   perf_report_parse   `perf report --stdio` output: entries "12.34%  comm  object  [.]
 *                       symbol", with or without the Children column, with or without -g
 *                       trees (read past: a report's shares are each entry's own), with
 *                       or without a Samples column.
 * Both take CRLF line ends, '#' comments, symbol versions (clock_gettime@@GLIBC_2.27) and
 * [unknown] frames.  On error, err holds "line N: what is wrong" and false is returned. */
#ifndef CLOCKSCOPE_PROFILE_PERF_TEXT_H
#define CLOCKSCOPE_PROFILE_PERF_TEXT_H

#include "profile/tally.h"

#include <stdbool.h>
#include <stddef.h>

bool perf_script_parse(const char *buf, size_t len, struct tally *t, char *why, size_t whylen);
bool perf_report_parse(const char *buf, size_t len, struct tally *t, char *why, size_t whylen);

/* One line of a buffer: [start, start+len) without its "\n" or "\r\n". */
struct perf_line {
    const char *start;
    size_t len;
    int number; /* 1-based */
};

/* The next line of buf from *pos (advanced past it); false at the end.  Lines longer
 * than any perf prints or with a NUL byte are the caller's to reject (perf_line_check). */
bool perf_next_line(const char *buf, size_t len, size_t *pos, struct perf_line *line);
/* Whether a line is text perf could have written: no NUL or other control bytes but tab,
 * and at most 64 KiB.  False fills err with "line N: ...". */
bool perf_line_check(const struct perf_line *l, char *why, size_t whylen);
/* The line without leading and trailing blanks. */
void perf_trim(const char **s, size_t *len);

/* The loop every perf text parser runs: the next line (perf_next_line), checked
 * (perf_line_check: PERF_TEXT_BAD with err filled) and trimmed into *s, *n (*n 0 for a
 * blank line); PERF_TEXT_END past the last line. */
enum perf_text { PERF_TEXT_END, PERF_TEXT_LINE, PERF_TEXT_BAD };
enum perf_text perf_next_text(const char *buf, size_t len, size_t *pos, struct perf_line *l,
                              const char **s, size_t *n, char *why, size_t whylen);

#endif
