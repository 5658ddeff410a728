/* SPDX-License-Identifier: MIT */
#include "common/beneath.h"
#include "common/environment.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_LINKS 40 /* as the kernel's MAXSYMLINKS */
#define MAX_DEPTH 128

static bool forced_fallback;

void beneath_force_fallback(bool on) { forced_fallback = on; }

const char *beneath_strerror(int err)
{
    if (err == EXDEV)
        return "a symbolic link leads out of the root: not followed";
    if (err == ELOOP)
        return "a symbolic link loop (or a procfs magic link): not followed";
    return strerror(err);
}

static bool use_fallback(void)
{
    const char *e = getenv(ENV_TEST_NO_OPENAT2);
    return forced_fallback || (e && strcmp(e, "1") == 0);
}

/* The kernel's resolution.  Returns -2 when openat2 itself is not available. */
static int kernel_open(int dirfd, const char *relpath, int flags)
{
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    for (int attempt = 0; attempt < 8; attempt++) {
        long fd = syscall(SYS_openat2, dirfd, relpath, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        /* EAGAIN: a concurrent rename made ".." unverifiable; the kernel asks for a retry. */
        if (errno == EAGAIN)
            continue;
        /* ENOSYS: kernel before 5.6; EPERM: a seccomp filter that does not know it. */
        if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
            return -2;
        return -1;
    }
    return -1;
#else
    (void)dirfd, (void)relpath, (void)flags;
    return -2;
#endif
}

/* Copies the next component of the path at *p into name and steps past it: 0, or
 * ENAMETOOLONG for a component longer than a file name can be. */
static int take_name(char **p, char name[NAME_MAX + 1])
{
    size_t n = strcspn(*p, "/");
    if (n > NAME_MAX)
        return ENAMETOOLONG;
    memcpy(name, *p, n);
    name[n] = 0;
    *p += n;
    return 0;
}

/* Puts a link's target (tl bytes) in front of the rest of the path (p, inside path):
 * the walk goes on from path's start.  0, or the errno for a link that cannot be
 * followed beneath the root. */
static int splice_link(char *path, size_t size, const char *p, const char *target, ssize_t tl)
{
    if (target[0] == '/' || tl == 0)
        return tl ? EXDEV : ENOENT;
    char rest[2 * PATH_MAX];
    snprintf(rest, sizeof rest, "%s", p);
    if ((size_t)tl + strlen(rest) >= size)
        return ENAMETOOLONG;
    /* target + rest; rest keeps its own leading '/' ("l/x" -> "target/x"), and
     * a link at the end stays at the end ("l" -> "target", no slash added). */
    size_t tlen = (size_t)tl, rlen = strlen(rest);
    memcpy(path, target, tlen);
    memcpy(path + tlen, rest, rlen + 1);
    return 0;
}

/* User-space resolution with the kernel's rules.  `stack` holds an O_PATH fd per directory
 * entered below dirfd: ".." pops it (so a ".." is never looked up in the file system, and
 * cannot climb above dirfd), a link's target is spliced in front of the rest of the path,
 * and every lookup is O_NOFOLLOW, so a link swapped in between our readlinkat and openat
 * fails (ELOOP) rather than being followed. */
static int fallback_open(int dirfd, const char *relpath, int flags)
{
    char path[2 * PATH_MAX];
    if (strlen(relpath) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(path, sizeof path, "%s", relpath);
    int stack[MAX_DEPTH];
    int depth = 0, links = 0, result = -1, err = 0;
    char *p = path;
    for (;;) {
        int cur = depth ? stack[depth - 1] : dirfd;
        while (*p == '/')
            p++;
        if (!*p) { /* the path ends on a directory ("", "a/..") */
            result = openat(cur, ".", flags | O_CLOEXEC);
            err = errno;
            break;
        }
        char name[NAME_MAX + 1];
        if ((err = take_name(&p, name)) != 0)
            break;
        bool last = p[strspn(p, "/")] == 0;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            if (depth == 0) {
                err = EXDEV;
                break;
            }
            close(stack[--depth]);
            continue;
        }
        char target[PATH_MAX];
        ssize_t tl = readlinkat(cur, name, target, sizeof target - 1);
        if (tl >= 0) {
            target[tl] = 0;
            if (++links > MAX_LINKS) {
                err = ELOOP;
                break;
            }
            if ((err = splice_link(path, sizeof path, p, target, tl)) != 0)
                break;
            p = path;
            continue;
        }
        if (errno != EINVAL) { /* ENOENT, ENOTDIR, EACCES: as open would say */
            err = errno;
            break;
        }
        if (last) {
            /* "name/" must be a directory, as the kernel has it. */
            int dir_only = *p == '/' ? O_DIRECTORY : 0;
            result = openat(cur, name, flags | dir_only | O_NOFOLLOW | O_CLOEXEC);
            err = errno;
            break;
        }
        if (depth == MAX_DEPTH) {
            err = ENAMETOOLONG;
            break;
        }
        int d = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d < 0) {
            err = errno;
            break;
        }
        stack[depth++] = d;
    }
    while (depth > 0)
        close(stack[--depth]);
    if (result < 0)
        errno = err;
    return result;
}

int beneath_open(int dirfd, const char *relpath, int flags)
{
    if (flags & O_CREAT) {
        errno = EINVAL;
        return -1;
    }
    while (*relpath == '/')
        relpath++;
    if (!*relpath)
        relpath = ".";
    if (!use_fallback()) {
        int fd = kernel_open(dirfd, relpath, flags);
        if (fd != -2)
            return fd;
    }
    return fallback_open(dirfd, relpath, flags);
}
