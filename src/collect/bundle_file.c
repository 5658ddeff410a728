/* SPDX-License-Identifier: MIT */
#include "collect/bundle_file.h"
#include "common/out_file.h"
#include "common/subprocess.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
