/* SPDX-License-Identifier: MIT */
#include "collect/bundle_file.h"
#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

bool bundle_target_ok(const char *path, char *why, size_t whylen)
{
    if (strcmp(path, "-") == 0)
        return true;
    char dir[4096];
    struct stat st;
    if (!path[0] || path[strlen(path) - 1] == '/') {
        snprintf(why, whylen, "'%s' names a directory, not a file", path);
        return false;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "'%s' is a directory", path);
        return false;
    }
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

bool bundle_write(const char *path, const char *data, size_t n, char *why, size_t whylen)
{
    if (strcmp(path, "-") == 0) {
        if (!subprocess_write_fully(STDOUT_FILENO, data, n)) {
            snprintf(why, whylen, "cannot write the bundle to stdout: %s", strerror(errno));
            return false;
        }
        return true;
    }
    char dir[4096], tmp[4200];
    dir_of(path, dir, sizeof dir);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%.200s.XXXXXX", dir, base) >= sizeof tmp) {
        snprintf(why, whylen, "path too long: %s", path);
        return false;
    }
    int fd = mkstemp(tmp);          /* O_CREAT|O_EXCL: a planted link makes it fail */
    if (fd < 0) {
        snprintf(why, whylen, "cannot create a file in '%s': %s", dir, strerror(errno));
        return false;
    }
    /* mkstemp makes 0600; a bundle is as readable as any file this user creates. */
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && subprocess_write_fully(fd, data, n) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        snprintf(why, whylen, "cannot write '%s': %s", path, strerror(saved));
    }
    return ok;
}
