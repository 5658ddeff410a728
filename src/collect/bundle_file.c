/* SPDX-License-Identifier: MIT */
#include "collect/bundle_file.h"
#include "common/out_file.h"
#include "common/subprocess.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool bundle_target_ok(const char *path, char *why, size_t whylen)
{
    return strcmp(path, "-") == 0 || out_file_check(path, why, whylen);
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
    return out_file_write(path, data, n, why, whylen);
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
    return out_file_write_new(stem, ".json", data, n, path, pathlen, why, whylen);
}
