/* SPDX-License-Identifier: MIT */
#include "facts/reader.h"
#include "common/beneath.h"
#include "common/message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fact_free(struct fact *f)
{
    free(f->text);
    memset(f, 0, sizeof *f);
}

void fact_set_unreadable(struct fact *f, const char *source, const char *why)
{
    fact_free(f);
    f->status = FACT_UNREADABLE;
    snprintf(f->source, sizeof f->source, "%s", source);
    snprintf(f->why, sizeof f->why, "%s", why);
}

/* NUL bytes would end every string operation early: the rest of a log must still count. */
static void replace_nuls(char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == 0)
            s[i] = ' ';
}

void fact_set_text(struct fact *f, const char *source, const char *text, size_t len)
{
    fact_free(f);
    f->text = malloc(len + 1);
    if (!f->text) {
        fact_set_unreadable(f, source, "out of memory");
        return;
    }
    memcpy(f->text, text, len);
    f->text[len] = 0;
    replace_nuls(f->text, len);
    f->len = len;
    f->full_size = len;
    f->status = FACT_OK;
    snprintf(f->source, sizeof f->source, "%s", source);
}

/* Reads up to want bytes at the current offset; returns bytes read or -1. */
static ssize_t read_up_to(int fd, char *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        ssize_t n = read(fd, buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return got ? (ssize_t)got : -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

/* relpath beneath the reader's root opened with flags (links resolved beneath it). */
static int open_beneath(const struct fact_reader *r, const char *relpath, const char *path,
                        int flags)
{
    if (strcmp(r->root, "/") == 0)
        return open(path, flags | O_CLOEXEC); /* the live machine: nothing lies outside "/" */
    /* Someone else's tree: every link is resolved beneath the root, and one that leads out
     * of it is refused (EXDEV), never followed (common/beneath.h). */
    int rootfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = rootfd < 0 ? -1 : beneath_open(rootfd, relpath, flags);
    int e = errno;
    if (rootfd >= 0)
        close(rootfd);
    errno = e;
    return fd;
}

/* Opens for reading the regular file that pathfd (O_PATH) is: that very inode, through
 * /proc/self/fd, so that no name can be swapped for a device in between.  Without /proc
 * (a bare chroot), the name again, and the result must be the same inode.  O_NONBLOCK and
 * O_NOCTTY all the same; the result is checked again (ESTALE: not the same regular file). */
static int reopen_regular(int pathfd, const struct stat *want, const struct fact_reader *r,
                          const char *relpath, const char *path)
{
    const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY;
    char proc[MSG_PROC_PATH];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", pathfd);
    int fd = open(proc, flags | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && access("/proc/self/fd", F_OK) != 0)
        fd = open_beneath(r, relpath, path, flags);
    if (fd < 0)
        return -1;
    struct stat got;
    if (fstat(fd, &got) != 0 || !S_ISREG(got.st_mode) || got.st_dev != want->st_dev ||
        got.st_ino != want->st_ino) {
        close(fd);
        errno = ESTALE;
        return -1;
    }
    return fd;
}

/* Opens the fact at relpath (path: root and relpath) for reading when it is a regular file;
 * st says what it is.  Returns the fd, or -1 with f marked missing or unreadable. */
static int open_fact(const struct fact_reader *r, const char *relpath, const char *path,
                     struct stat *st, struct fact *f)
{
    /* Looked at before it is opened: O_PATH opens nothing (a device node planted where a
     * file should be is never opened: opening some has effects, /dev/watchdog arms), and
     * only a regular file is then reopened for reading (reopen_regular). */
    int pathfd = open_beneath(r, relpath, path, O_PATH);
    if (pathfd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            f->status = FACT_MISSING;
        else
            fact_set_unreadable(f, path, beneath_strerror(errno));
        return -1;
    }
    errno = 0;
    int fd = -1;
    if (fstat(pathfd, st) == 0 && S_ISREG(st->st_mode))
        fd = reopen_regular(pathfd, st, r, relpath, path);
    int e = errno;
    close(pathfd);
    if (fd < 0) {
        const char *what = S_ISREG(st->st_mode) ? (e == ESTALE ? "changed while being opened"
                                                               : strerror(e))
                           : st->st_mode == 0 ? "cannot stat"
                           : S_ISDIR(st->st_mode) ? "a directory, not a file"
                           : S_ISFIFO(st->st_mode) ? "a FIFO, not a file"
                           : S_ISCHR(st->st_mode) ? "a character device, not a file (not opened)"
                           : S_ISBLK(st->st_mode) ? "a block device, not a file (not opened)"
                           : "not a regular file";
        fact_set_unreadable(f, path, what);
    }
    return fd;
}

/* A file of size bytes, more than cap: its first half, a marker, and as much of its end
 * as fills cap.  Returns the length, or -1 with errno when its start cannot be read. */
static ssize_t read_head_and_tail(int fd, char *buf, size_t cap, off_t size)
{
    ssize_t n = read_up_to(fd, buf, cap / 2);
    if (n < 0)
        return -1;
    size_t len = (size_t)n;
    static const char marker[] = "\n[clockscope: middle of the file skipped]\n";
    memcpy(buf + len, marker, sizeof marker - 1);
    len += sizeof marker - 1;
    size_t tail = cap - len;
    if (lseek(fd, size - (off_t)tail, SEEK_SET) >= 0) {
        ssize_t t = read_up_to(fd, buf + len, tail);
        if (t > 0)
            len += (size_t)t;
    }
    return (ssize_t)len;
}

void fact_read(const struct fact_reader *r, const char *relpath, size_t cap, bool keep_tail,
               struct fact *f)
{
    char path[4400];
    const char *sep = r->root[0] && r->root[strlen(r->root) - 1] == '/' ? "" : "/";
    snprintf(path, sizeof path, "%s%s%s", r->root, sep, relpath);
    fact_free(f);
    snprintf(f->source, sizeof f->source, "%s", path);
    struct stat st = {0};
    int fd = open_fact(r, relpath, path, &st, f);
    if (fd < 0)
        return;
    /* sysfs and procfs files report size 0 or 4096 whatever they hold: read until EOF. */
    char *buf = malloc(cap + 1);
    const char *why = NULL;
    bool truncated = false;
    ssize_t n;
    if (!buf) {
        why = "out of memory";
        goto out;
    }
    if (keep_tail && (uint64_t)st.st_size > cap) {
        n = read_head_and_tail(fd, buf, cap, st.st_size);
        if (n < 0) {
            why = strerror(errno);
            goto out;
        }
        truncated = true;
    } else {
        n = read_up_to(fd, buf, cap);
        if (n < 0) {
            why = errno == EAGAIN ? "no data (would block)" : strerror(errno);
            goto out;
        }
        char probe;
        if ((size_t)n == cap && read(fd, &probe, 1) == 1)
            truncated = true;
    }
    size_t len = (size_t)n;
    buf[len] = 0;
    replace_nuls(buf, len);
    f->text = buf;
    f->len = len;
    f->status = FACT_OK;
    f->truncated = truncated;
    f->full_size = st.st_size > 0 && (uint64_t)st.st_size > len ? (size_t)st.st_size : len;
out:
    close(fd);
    if (why) {
        free(buf);
        fact_set_unreadable(f, path, why);
    }
}

const char *fact_line(const struct fact *f, char *buf, size_t len)
{
    if (len == 0)
        return "";
    buf[0] = 0;
    if (f->status != FACT_OK)
        return buf;
    size_t n = f->len < len - 1 ? f->len : len - 1;
    memcpy(buf, f->text, n);
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
                     buf[n - 1] == '\t'))
        buf[--n] = 0;
    size_t start = strspn(buf, " \t\r\n");
    if (start)
        memmove(buf, buf + start, n - start + 1);
    return buf;
}
