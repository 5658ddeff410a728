/* SPDX-License-Identifier: MIT */
/* The atomic write of DIR/clockscope.prom (textfile.h). */
#include "metrics/textfile.h"
#include "common/fd_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes text to a new temporary file tmp in dirfd and renames it to TEXTFILE_NAME.
 * 0, or the errno of the failing step (step says which). */
static int write_and_rename(int dirfd, const char *tmp, const char *text, size_t len,
                            const char **step)
{
    *step = "cannot create a temporary file in it";
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    *step = "cannot write";
    int err = fd_write_all(fd, text, len);
    /* fsync before the rename: otherwise a crash can leave the new name on an empty file. */
    if (!err && fsync(fd) != 0) {
        *step = "cannot sync";
        err = errno;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && renameat(dirfd, tmp, dirfd, TEXTFILE_NAME) != 0) {
        *step = "cannot rename the temporary file";
        err = errno;
    }
    if (err)
        unlinkat(dirfd, tmp, 0);
    return err;
}

bool textfile_write(const char *dir, const char *text, size_t len, char *why, size_t whylen)
{
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        snprintf(why, whylen, "textfile directory '%s': %s", dir, strerror(errno));
        return false;
    }
    struct stat st;
    /* A link is replaced (never followed); anything else but a file is in the way: a
     * device node or FIFO named so is never renamed over (issue 30). */
    if (fstatat(dirfd, TEXTFILE_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
        !S_ISLNK(st.st_mode)) {
        snprintf(why, whylen, "cannot write '%s/%s': %s of that name is in the way", dir,
                 TEXTFILE_NAME, S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode)
                 ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                 : S_ISBLK(st.st_mode) ? "a block device" : "a special file");
        close(dirfd);
        return false;
    }
    /* Not "*.prom": the collector must never read the file while it is being written. */
    char tmp[NAME_MAX + 1];
    snprintf(tmp, sizeof tmp, "." TEXTFILE_NAME ".%d.tmp", (int)getpid());
    unlinkat(dirfd, tmp, 0); /* a leftover of a killed run with our pid */

    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    const char *step = "";
    int err = write_and_rename(dirfd, tmp, text, len, &step);
    if (!err && fsync(dirfd) != 0 && errno != EINVAL)
        err = errno, step = "cannot sync the directory";
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(dirfd);
    if (err) {
        snprintf(why, whylen, "textfile directory '%s': %s: %s", dir, step, strerror(err));
        return false;
    }
    return true;
}
