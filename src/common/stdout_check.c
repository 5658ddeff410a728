/* SPDX-License-Identifier: MIT */
#include "common/stdout_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_stdout(void)
{
    errno = 0;
    /* ferror: a write that failed earlier (stdio keeps the error, not the errno). */
    if (fflush(stdout) == 0 && !ferror(stdout))
        return;
    int e = errno;
    fprintf(stderr, "clockscope: cannot write the output: %s\n",
            e ? strerror(e) : "write error");
    _exit(1);
}

void stdout_check_at_exit(void) { atexit(check_stdout); }
