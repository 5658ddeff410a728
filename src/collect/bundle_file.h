/* SPDX-License-Identifier: MIT */
/* Writing the bundle: to stdout, or to the file named (common/out_file.h: replaced
 * atomically, or written through to a character device or FIFO). */
#ifndef CLOCKSCOPE_BUNDLE_FILE_H
#define CLOCKSCOPE_BUNDLE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Whether a file could be created next to path (its directory exists and is writable),
 * checked before minutes of work; why says what is wrong. */
bool bundle_target_ok(const char *path, char *why, size_t whylen);

/* Writes data to path ("-": stdout), as out_file_write() does: a new temporary file in
 * the same directory (O_EXCL, so never through a link planted there) renamed over a file,
 * a link or a new name; written through to a character device or FIFO; a directory, block
 * device or socket refused.  False with why on any error (the temporary file is removed). */
bool bundle_write(const char *path, const char *data, size_t n, char *why, size_t whylen);

/* The name collect gives a bundle when nobody chose one (stdout is a terminal):
 * "clockscope-HOST-2026-11-26T1012" (UTC, to the minute; HOST with anything but letters,
 * digits, '.', '_' and '-' made '_'), without the ".json" that bundle_write_new adds. */
void bundle_default_stem(char *stem, size_t len, const char *host, time_t when);

/* Writes data to a NEW file STEM.json, or STEM-2.json, STEM-3.json ... when that exists:
 * never over an existing file, even one created meanwhile (the finished temporary file is
 * linked to the name, which fails on one that exists).  path receives the name written. */
bool bundle_write_new(const char *stem, const char *data, size_t n, char *path, size_t pathlen,
                      char *why, size_t whylen);

#endif
