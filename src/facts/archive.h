/* SPDX-License-Identifier: MIT */
/* A sosreport (or any tar of a facts root) given to `doctor --root`: unpacked with the
 * host's tar into a private temporary directory, only the members that are facts, and
 * removed afterwards, also when a signal ends the run.
 *
 * Other people's archives are hostile until proven otherwise: only members whose names are
 * a facts-root path, at the top or under one top directory of plain characters, are
 * extracted (never "..", never an absolute path, never a directory's whole subtree:
 * --no-recursion); tar runs with --no-same-owner --no-same-permissions, a file size limit
 * (RLIMIT_FSIZE: a huge member kills it, SIGXFSZ) and a deadline; links it creates are
 * read beneath the root like every facts root (common/beneath: a link out is never
 * followed).  GNU tar itself strips leading '/', refuses ".." and creates links that point
 * out as placeholders until the end, so no member is written through one. */
#ifndef CLOCKSCOPE_ARCHIVE_H
#define CLOCKSCOPE_ARCHIVE_H

#include "facts/facts.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The largest member unpacked (a kernel log beyond it is refused, not cut). */
#define ARCHIVE_MEMBER_MAX (64u << 20)
#define ARCHIVE_TIMEOUT_MS 60000

struct archive_unpacked {
    char tmpdir[PATH_MAX];  /* the private directory ("" when none) */
    char root[PATH_MAX + 260]; /* the facts root inside it */
};

/* Whether path names an archive (.tar, .tar.gz, .tgz, .tar.xz, .txz) rather than a root. */
bool archive_is_archive(const char *path);
/* Unpacks; false with why filled (and nothing left behind) when it cannot. */
bool archive_unpack(const char *path, struct archive_unpacked *u, char *why, size_t whylen);
/* Removes the temporary directory (and restores the signal dispositions). */
void archive_cleanup(struct archive_unpacked *u);

/* Loads one facts root, a directory or an archive (unpacked, read and removed again), into
 * fs: its origin is the name given.  false with why when it cannot be read. */
bool archive_load_root(const char *root, struct facts *fs, char *why, size_t whylen);

/* Exported for the tests: whether a member name (as `tar -t` lists it) is one to extract;
 * top (capacity toplen) holds the top directory of the first one selected ("" for none),
 * and later names must share it.  Pure. */
bool archive_member_wanted(const char *name, char *top, size_t toplen, bool *have_top);

#endif
