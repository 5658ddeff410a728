/* SPDX-License-Identifier: MIT */
/* Writing the bundle: to stdout, or to the file named (common/out_file.h: replaced
 * atomically, or written through to a character device or FIFO). */
#ifndef CLOCKSCOPE_BUNDLE_FILE_H
#define CLOCKSCOPE_BUNDLE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a file could be created next to path (its directory exists and is writable),
 * checked before minutes of work; why says what is wrong. */
bool bundle_target_ok(const char *path, char *why, size_t whylen);

/* Writes data to path ("-": stdout), as out_file_write() does: a new temporary file in
 * the same directory (O_EXCL, so never through a link planted there) renamed over a file,
 * a link or a new name; written through to a character device or FIFO; a directory, block
 * device or socket refused.  False with why on any error (the temporary file is removed). */
bool bundle_write(const char *path, const char *data, size_t n, char *why, size_t whylen);

#endif
