/* SPDX-License-Identifier: MIT */
/* Writing a whole buffer to a file descriptor.  Header-only: the run shim, which links none
 * of common/'s objects, uses it too. */
#ifndef CLOCKSCOPE_FD_WRITE_H
#define CLOCKSCOPE_FD_WRITE_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* Writes all of s, retrying short writes and EINTR.  0, or the errno of the failure (EIO for
 * a write that wrote nothing without saying why). */
static inline int fd_write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        s += n;
        len -= (size_t)n;
    }
    return 0;
}

#endif
