/* SPDX-License-Identifier: MIT */
/* Writing a file the user named (out_file.h). */
#include "common/out_file.h"
#include "common/fd_write.h"
#include "common/message.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum target { T_NEW, T_REPLACE, T_THROUGH, T_REFUSED };

/* The directory part of path into dir ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISFIFO(m) ? "a FIFO" : S_ISLNK(m) ? "a symbolic link"
         : "a special file";
}

/* What is at path, from an O_PATH|O_NOFOLLOW descriptor (a device is not opened to look at
 * it).  *pathfd keeps that descriptor for T_THROUGH (the caller closes it), else -1. */
static enum target classify(const char *path, int *pathfd, char *why, size_t whylen)
{
    *pathfd = -1;
    if (!path[0] || path[strlen(path) - 1] == '/') {
        snprintf(why, whylen, "'%s' names a directory, not a file", path);
        return T_REFUSED;
    }
    int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return T_NEW;
        snprintf(why, whylen, "cannot write '%s': %s", path, strerror(errno));
        return T_REFUSED;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, whylen, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        return T_REFUSED;
    }
    if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
        close(fd);
        return T_REPLACE;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        *pathfd = fd;
        return T_THROUGH;
    }
    snprintf(why, whylen, "'%s' is %s: give a file, a character device or a FIFO", path,
             kind_of(st.st_mode));
    close(fd);
    return T_REFUSED;
}

bool out_file_check(const char *path, char *why, size_t whylen)
{
    int pathfd;
    enum target t = classify(path, &pathfd, why, whylen);
    if (t == T_REFUSED)
        return false;
    if (t == T_THROUGH) {
        char proc[MSG_PROC_PATH];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", pathfd);
        bool ok = access(proc, W_OK) == 0 || (errno == ENOENT && access(path, W_OK) == 0);
        if (!ok)
            snprintf(why, whylen, "cannot write '%s': %s", path, strerror(errno));
        close(pathfd);
        return ok;
    }
    char dir[4096];
    struct stat st;
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "cannot write '%s': directory '%s' %s", path, dir,
                 errno == ENOENT || !S_ISDIR(st.st_mode) ? "does not exist" : strerror(errno));
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, whylen, "cannot write '%s': directory '%s': %s", path, dir,
                 strerror(errno));
        return false;
    }
    return true;
}

/* Opens for writing the inode pathfd names (the one classified), not whatever the name
 * holds now; where /proc is not mounted, the name, checked to be the same inode.  A FIFO
 * without a reader is waited for, and said. */
static int reopen_for_writing(int pathfd, const char *path)
{
    struct stat want;
    if (fstat(pathfd, &want) != 0)
        return -1;
    char proc[MSG_PROC_PATH];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", pathfd);
    const char *name = access("/proc/self/fd", F_OK) == 0 ? proc : path;
    int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (name == path ? O_NOFOLLOW : 0);
    int fd = open(name, flags | O_NONBLOCK);
    if (fd < 0 && errno == ENXIO && S_ISFIFO(want.st_mode)) {
        fprintf(stderr, "clockscope: '%s' is a FIFO: waiting for a reader\n", path);
        fd = open(name, flags);
    }
    if (fd < 0)
        return -1;
    struct stat got;
    if (fstat(fd, &got) != 0 || got.st_dev != want.st_dev || got.st_ino != want.st_ino) {
        close(fd);
        errno = EAGAIN; /* the name changed under us */
        return -1;
    }
    /* Blocking writes from here: a slow reader of a FIFO is waited for, not an error. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static bool write_through(int pathfd, const char *path, const void *data, size_t n, char *why,
                          size_t whylen)
{
    int fd = reopen_for_writing(pathfd, path);
    int err = fd < 0 ? errno : fd_write_all(fd, data, n);
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    if (err)
        snprintf(why, whylen, "cannot write '%s': %s", path,
                 err == EAGAIN ? "it changed while being opened" : strerror(err));
    return !err;
}

/* SIGINT, SIGTERM and SIGHUP wait (old: the mask to restore) while a temporary file exists,
 * so that a stop never leaves one behind. */
static void hold_stop_signals(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* data into a new temporary file beside path (O_CREAT|O_EXCL: a planted link makes it fail),
 * synced and as readable as any file this user creates; its name in tmp. */
static bool write_temporary(const char *path, const void *data, size_t n, char *tmp,
                            size_t tmplen, char *why, size_t whylen)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if ((size_t)snprintf(tmp, tmplen, "%s/.%.200s.XXXXXX", dir, base) >= tmplen) {
        snprintf(why, whylen, "path too long: %s", path);
        return false;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create a file in '%s': %s", dir, strerror(errno));
        return false;
    }
    /* mkstemp makes 0600; the output is as readable as any file this user creates. */
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && fd_write_all(fd, data, n) == 0 && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        snprintf(why, whylen, "cannot write '%s': %s", path, strerror(saved));
    }
    return ok;
}

static bool replace(const char *path, const void *data, size_t n, char *why, size_t whylen)
{
    char tmp[4200];
    if (!write_temporary(path, data, n, tmp, sizeof tmp, why, whylen))
        return false;
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        snprintf(why, whylen, "cannot write '%s': %s", path, strerror(saved));
        return false;
    }
    return true;
}

/* The temporary file under the first free name of stem.ext, stem-2.ext, ... */
static bool publish_new(const char *tmp, const char *stem, const char *ext, char *path,
                        size_t pathlen, char *why, size_t whylen)
{
    for (int i = 1; i <= 1000; i++) {
        if (i == 1)
            snprintf(path, pathlen, "%s%s", stem, ext);
        else
            snprintf(path, pathlen, "%s-%d%s", stem, i, ext);
        /* link(2), unlike rename(2), fails on a name that exists: a file created between
         * a check and the write is never replaced. */
        if (link(tmp, path) == 0)
            return true;
        if (errno != EEXIST) {
            snprintf(why, whylen, "cannot write '%s': %s", path, strerror(errno));
            return false;
        }
    }
    snprintf(why, whylen, "'%s%s' and 999 numbered names after it exist already", stem, ext);
    return false;
}

bool out_file_write_new(const char *stem, const char *ext, const void *data, size_t n,
                        char *path, size_t pathlen, char *why, size_t whylen)
{
    char tmp[4200];
    snprintf(path, pathlen, "%s%s", stem, ext);
    sigset_t old;
    hold_stop_signals(&old);
    bool ok = write_temporary(path, data, n, tmp, sizeof tmp, why, whylen);
    if (ok) {
        ok = publish_new(tmp, stem, ext, path, pathlen, why, whylen);
        unlink(tmp);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return ok;
}

bool out_file_write(const char *path, const void *data, size_t n, char *why, size_t whylen)
{
    int pathfd;
    enum target t = classify(path, &pathfd, why, whylen);
    if (t == T_REFUSED)
        return false;
    if (t == T_THROUGH) {
        bool ok = write_through(pathfd, path, data, n, why, whylen);
        close(pathfd);
        return ok;
    }
    sigset_t old;
    hold_stop_signals(&old);
    bool ok = replace(path, data, n, why, whylen);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return ok;
}
