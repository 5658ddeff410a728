/* SPDX-License-Identifier: MIT */
/* Writing DIR/clockscope.prom for node_exporter's textfile collector, so that a scrape never
 * sees a partial file: the text goes to a temporary file in DIR whose name does not end in
 * ".prom" (the collector reads only *.prom), is fsync'ed, then renamed over the target
 * (atomic within one file system), and DIR is fsync'ed so the rename survives a crash.
 * Nothing is written through a link: the temporary file is created with O_EXCL|O_NOFOLLOW
 * and the rename replaces a link at the target, never what it points to.  SIGINT, SIGTERM
 * and SIGHUP wait until the temporary file is renamed or removed. */
#ifndef CLOCKSCOPE_TEXTFILE_H
#define CLOCKSCOPE_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>

#define TEXTFILE_NAME "clockscope.prom"

/* Returns false with why filled (the old file, if any, is left as it was). */
bool textfile_write(const char *dir, const char *text, size_t len, char *why, size_t whylen);

#endif
