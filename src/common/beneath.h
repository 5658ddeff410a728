/* SPDX-License-Identifier: MIT */
/* Opening a path beneath a directory without ever leaving it: the guard for facts roots,
 * which are other people's trees (a sosreport, an archive) read here, often as root.
 *
 * A symbolic link is followed when it stays inside the directory (sosreports are full of
 * relative links that do); a link that leads out of it (an absolute target, or ".." past
 * the top) is refused with EXDEV, never followed, and so are procfs "magic" links.  The
 * kernel does the resolution (openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS); where
 * it lacks openat2 (ENOSYS, or a seccomp filter that denies it) the same rules are applied
 * here, one component at a time, with openat(O_NOFOLLOW) and readlinkat. */
#ifndef CLOCKSCOPE_BENEATH_H
#define CLOCKSCOPE_BENEATH_H

#include <stdbool.h>

/* Opens relpath (a leading '/' counts as relative) beneath dirfd with open flags `flags`
 * (O_CREAT is not supported).  Returns the fd, or -1 with errno: EXDEV a link leads out
 * of dirfd (or ".." climbs above it), ELOOP a link loop (more than 40 links), ENOENT,
 * ENOTDIR, EACCES... as open(2). */
int beneath_open(int dirfd, const char *relpath, int flags);

/* A sentence for errno after beneath_open (EXDEV gets its own words). */
const char *beneath_strerror(int err);

/* Test hook: resolve in user space even where openat2 exists.  The environment variable
 * CLOCKSCOPE_TEST_NO_OPENAT2=1 does the same for a whole process (the suite runs the
 * facts-root tests both ways). */
void beneath_force_fallback(bool on);

#endif
