/* SPDX-License-Identifier: MIT */
/* Reading one fact file, live ("/") or under a facts root, without ever blocking or
 * trusting the file: only regular files are read (a FIFO, a directory or a device where a
 * file is expected is "unreadable", never waited on), reads are capped, and a missing file
 * is reported as missing ("not known"), distinct from a file that exists but cannot be read.
 * Under a facts root (anything but "/"), paths are resolved beneath the root: links that
 * stay inside are followed, a link that leads out is "unreadable" and never followed. */
#ifndef CLOCKSCOPE_FACTS_READER_H
#define CLOCKSCOPE_FACTS_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/message.h"

enum fact_status {
    FACT_MISSING = 0,  /* no such file: not known */
    FACT_OK,           /* read (possibly truncated: see fact.truncated) */
    FACT_UNREADABLE,   /* exists but could not be read; fact.why says why */
};

struct fact {
    enum fact_status status;
    char *text;          /* NUL-terminated (NULs inside are replaced by spaces); NULL unless OK */
    size_t len;
    bool truncated;      /* larger than the cap: the head (and for logs the tail) was kept */
    size_t full_size;    /* size of the file when known, else len */
    char source[4400];    /* the path read, or the live source ("/dev/kmsg", "CPUID", ...) */
    char why[MSG_LINE];  /* for FACT_UNREADABLE */
};

/* Where facts come from: root "/" for the live machine, or a facts root directory. */
struct fact_reader {
    char root[4096];
};

/* Reads root/relpath into f.  cap bounds what is kept; with keep_tail, a file larger than
 * cap keeps its first and last cap/2 bytes (for logs: boot messages and recent events). */
void fact_read(const struct fact_reader *r, const char *relpath, size_t cap, bool keep_tail,
               struct fact *f);
/* Fills f from a buffer the caller produced (live sources); takes a copy. */
void fact_set_text(struct fact *f, const char *source, const char *text, size_t len);
void fact_set_unreadable(struct fact *f, const char *source, const char *why);
void fact_free(struct fact *f);
/* The text with trailing whitespace trimmed into buf (for one-line facts); "" if not OK. */
const char *fact_line(const struct fact *f, char *buf, size_t len);

#endif
