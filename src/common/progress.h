/* SPDX-License-Identifier: MIT */
/* What a long command is doing and how long is left, on stderr (issue 27): on when stderr
 * is a terminal (one line, redrawn in place) or when --progress asks (whole lines, at most
 * one a second, so that a log stays readable).  Never on stdout: the results there are
 * the same with or without it. */
#ifndef CLOCKSCOPE_PROGRESS_H
#define CLOCKSCOPE_PROGRESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

struct progress {
    bool on;          /* anything is said at all */
    bool tty;         /* redrawn in place (stderr is a terminal) */
    bool shown;       /* a line is on the terminal and must be cleared */
    const char *cmd;  /* "bench": each line starts "clockscope bench: " */
    double t0, last;  /* CLOCK_MONOTONIC seconds: the start, the last line written */
    const char *last_fmt; /* the last line's format: a new one (a new phase) is not throttled */
    double last_fraction; /* the last line's: a step of a point or more is not throttled */
    FILE *f;          /* stderr (tests may give another stream) */
};

/* asked: --progress.  Off when stderr is not a terminal and nothing asked. */
void progress_init(struct progress *p, const char *cmd, bool asked);
/* Says what is being done: "WHAT (N%, about T left)".  fraction in [0, 1] of the whole
 * command; left_s the seconds left when the command knows them (sleeps), or < 0 to
 * estimate them from the time so far and the fraction.  Lines are throttled (a terminal:
 * 10 a second; a file: 1 a second), the first of each format (a new phase) always written. */
void progress_say(struct progress *p, double fraction, double left_s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A command whose steps take different times: each step has an expected cost in seconds
 * (from its configuration), part of which may be a wait that takes its time whatever the
 * machine does (a sleep, a measured window). */
struct progress_work {
    double done_s, total_s;        /* expected seconds of the steps finished, of all steps */
    double waits_done_s, waits_s;  /* of these, the waits */
};
/* progress_say with the fraction done_s / total_s (work, not steps) and the time left
 * progress_left_s's. */
void progress_say_work(struct progress *p, const struct progress_work *w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void progress_vsay_work(struct progress *p, const struct progress_work *w, const char *fmt,
                        va_list ap) __attribute__((format(printf, 3, 0)));
/* The seconds left when the finished steps took elapsed_s: the waits left as they are, the
 * rest of the work scaled by how the work so far compares with its expectation (a machine
 * twice as busy takes twice as long for the rest too).  -1 (unknown) before 2% of the work
 * is done. */
double progress_left_s(double elapsed_s, const struct progress_work *w);
/* Clears the terminal line before something else is written to the terminal (a table row
 * on stdout); the next progress_say draws it again. */
void progress_clear(struct progress *p);
/* The command is done: the terminal line is cleared (a file gets a last "done" line). */
void progress_end(struct progress *p);
/* "12 s", "4 min 10 s", "1 h 5 min": a duration as a person says it. */
void progress_format_duration(double s, char *buf, size_t len);

#endif
