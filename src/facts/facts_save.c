/* SPDX-License-Identifier: MIT */
/* Saving facts as a facts root (`facts --save DIR`), never writing through a link.
 *
 * DIR itself is opened as the user named it; everything beneath it is reached with
 * *at() calls from DIR's descriptor and O_NOFOLLOW: a link where a directory goes is
 * removed and replaced by a real directory, a link (or FIFO, socket, device) where a file
 * goes is replaced by the new file, which is written under a temporary name and renamed
 * over it.  So with --force into a tree someone else prepared, nothing outside DIR is
 * written, nothing blocks, and a failed write (full disk) leaves the old file in place. */
#include "facts/facts.h"
#include "common/fd_write.h"
#include "common/message.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool dir_is_empty(int dirfd)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    bool empty = true;
    for (struct dirent *e; empty && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    closedir(d);
    return empty;
}

/* Opens (creating) directory `name` in parent; shown is its path for messages. */
static int enter_dir(int parent, const char *name, const char *shown, char *why, size_t whylen)
{
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode) && unlinkat(parent, name, 0) != 0) {
            snprintf(why, whylen, "cannot replace the link '%s': %s", shown, strerror(errno));
            return -1;
        }
        if (!S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "cannot create directory '%s': a file of that name is in the "
                     "way", shown);
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(why, whylen, "cannot create directory '%s': %s", shown, strerror(errno));
        return -1;
    }
    if (mkdirat(parent, name, 0755) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot create directory '%s': %s", shown, strerror(errno));
        return -1;
    }
    /* O_NOFOLLOW: a link planted after the check above is refused (ELOOP), not entered. */
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        snprintf(why, whylen, "cannot enter directory '%s': %s", shown, strerror(errno));
    return fd;
}

/* Writes name in dirfd by a temporary file renamed over it. */
static bool write_file(int dirfd, const char *name, const struct fact *f, const char *shown,
                       char *why, size_t whylen)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "cannot write '%s': a directory of that name is in the way", shown);
        return false;
    }
    char tmp[NAME_MAX + 1];
    snprintf(tmp, sizeof tmp, ".%.200s.clockscope-%d", name, (int)getpid());
    unlinkat(dirfd, tmp, 0); /* a leftover of a killed run with our pid */
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, whylen, "cannot write '%s': %s", shown, strerror(errno));
        return false;
    }
    int err = fd_write_all(fd, f->text, f->len);
    if (!err && f->len && f->text[f->len - 1] != '\n')
        err = fd_write_all(fd, "\n", 1);
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && renameat(dirfd, tmp, dirfd, name) != 0)
        err = errno;
    if (err) {
        unlinkat(dirfd, tmp, 0);
        snprintf(why, whylen, "cannot write '%s': %s", shown, strerror(err));
        return false;
    }
    return true;
}

/* Writes one fact at relpath (components separated by '/') beneath dirfd. */
static bool save_one(int dirfd, const char *dir, const char *relpath, const struct fact *f,
                     char *why, size_t whylen)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s", relpath);
    char shown[MSG_WITH_PATH];
    int cur = dirfd;
    bool ok = true;
    char *name = rel;
    for (char *slash; ok && (slash = strchr(name, '/')) != NULL; name = slash + 1) {
        *slash = 0;
        snprintf(shown, sizeof shown, "%s/%s", dir, rel);
        int next = enter_dir(cur, name, shown, why, whylen);
        *slash = '/';
        if (cur != dirfd)
            close(cur);
        cur = next;
        ok = next >= 0;
    }
    if (ok) {
        snprintf(shown, sizeof shown, "%s/%s", dir, relpath);
        ok = write_file(cur, name, f, shown, why, whylen);
    }
    if (cur >= 0 && cur != dirfd)
        close(cur);
    return ok;
}

bool facts_save(const struct facts *fs, const char *dir, bool force, char *why, size_t whylen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "'%s' exists and is not a directory", dir);
            return false;
        }
    } else if (errno != ENOENT || mkdir(dir, 0755) != 0) {
        snprintf(why, whylen, "cannot create '%s': %s", dir, strerror(errno));
        return false;
    }
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        snprintf(why, whylen, "cannot open '%s': %s", dir, strerror(errno));
        return false;
    }
    if (!force && !dir_is_empty(dirfd)) {
        snprintf(why, whylen, "'%s' is not empty (use --force to write into it)", dir);
        close(dirfd);
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < F_COUNT; i++)
        if (fs->f[i].status == FACT_OK)
            ok = save_one(dirfd, dir, fact_path(i), &fs->f[i], why, whylen);
    close(dirfd);
    return ok;
}
