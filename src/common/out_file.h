/* SPDX-License-Identifier: MIT */
/* Writing a file the user named (collect -o): what is at the name decides how.
 *
 *   nothing, a regular file, a symbolic link   a new temporary file in the same directory,
 *                                              synced and renamed over the name: a reader
 *                                              sees the old file or the whole new one; a
 *                                              link is replaced, its target untouched
 *   a character device, a FIFO                 written through (opened for writing, never
 *                                              replaced): `-o /dev/null`, `-o fifo` work,
 *                                              and a device node is never renamed over
 *   a directory, a block device, a socket      refused
 *
 * The type is taken from an O_PATH descriptor (never opening the thing to look at it) and
 * the write-through reopens that very inode through /proc/self/fd, so a name swapped after
 * the check is never what gets opened. */
#ifndef CLOCKSCOPE_OUT_FILE_H
#define CLOCKSCOPE_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether path can be written as above, checked before minutes of work: a name to replace
 * needs an existing, writable directory; a device or FIFO must be writable.  why says what
 * is wrong. */
bool out_file_check(const char *path, char *why, size_t whylen);

/* Writes data to path as above.  SIGINT, SIGTERM and SIGHUP wait while a temporary file
 * exists, so that none is left behind.  False with why on any error (the temporary file is
 * removed). */
bool out_file_write(const char *path, const void *data, size_t n, char *why, size_t whylen);

/* Writes data to a NEW file: stem + ext, or stem-2 + ext, stem-3 + ext ... whichever name is
 * free first (never replacing anything, even a file created meanwhile: link(2)); the name
 * used in path.  Signals wait as for out_file_write.  False with why on any error. */
bool out_file_write_new(const char *stem, const char *ext, const void *data, size_t n,
                        char *path, size_t pathlen, char *why, size_t whylen);

#endif
