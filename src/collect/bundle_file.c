/* SPDX-License-Identifier: MIT */
#include "collect/bundle_file.h"
#include "common/subprocess.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* data into a new temporary file beside path (O_CREAT|O_EXCL: a planted link makes it fail),
 * synced and readable as any file this user creates; its name in tmp. */
static bool write_temporary(const char *path, const char *data, size_t n, char *tmp,
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
    /* mkstemp makes 0600; a bundle is as readable as any file this user creates. */
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && subprocess_write_fully(fd, data, n) && fsync(fd) == 0;
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

bool bundle_write(const char *path, const char *data, size_t n, char *why, size_t whylen)
{
    if (strcmp(path, "-") == 0) {
        if (!subprocess_write_fully(STDOUT_FILENO, data, n)) {
            snprintf(why, whylen, "cannot write the bundle to stdout: %s", strerror(errno));
            return false;
        }
        return true;
    }
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

void bundle_default_stem(char *stem, size_t len, const char *host, time_t when)
{
    char safe[65], date[32];
    size_t k = 0;
    for (const char *c = host; *c && k < sizeof safe - 1; c++)
        safe[k++] = isalnum((unsigned char)*c) || strchr("._-", *c) ? *c : '_';
    safe[k] = 0;
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H%M", gmtime_r(&when, &tm));
    snprintf(stem, len, "clockscope-%s-%s", k ? safe : "unknown", date);
}

bool bundle_write_new(const char *stem, const char *data, size_t n, char *path, size_t pathlen,
                      char *why, size_t whylen)
{
    char tmp[4200];
    snprintf(path, pathlen, "%s.json", stem);
    if (!write_temporary(path, data, n, tmp, sizeof tmp, why, whylen))
        return false;
    for (int i = 1; i <= 1000; i++) {
        if (i > 1)
            snprintf(path, pathlen, "%s-%d.json", stem, i);
        /* link(2), unlike rename(2), fails on a name that exists: a file created between
         * a check and the write is never replaced. */
        if (link(tmp, path) == 0) {
            unlink(tmp);
            return true;
        }
        if (errno != EEXIST) {
            snprintf(why, whylen, "cannot write '%s': %s", path, strerror(errno));
            unlink(tmp);
            return false;
        }
    }
    snprintf(why, whylen, "'%s.json' and 999 numbered names after it exist already", stem);
    unlink(tmp);
    return false;
}
