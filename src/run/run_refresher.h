/* SPDX-License-Identifier: MIT */
/* The helper process that keeps a patched program's data page fresh from outside it, and
 * prints count mode's table when the program (and its forked children) have ended. */
#ifndef CLOCKSCOPE_RUN_REFRESHER_H
#define CLOCKSCOPE_RUN_REFRESHER_H

#include "run/run_reader_abi.h"

#include <stdbool.h>
#include <sys/types.h>

struct run_refresher {
    struct run_page_header *page; /* mapped shared with the program */
    int lifeline;                 /* read end: EOF once every served process has ended */
    bool count;
    const char *output;           /* count mode: append the table here, else stderr */
    const char *path;
    pid_t pid;
};

/* Returns when the lifeline reports EOF, after printing the table in count mode. */
void run_refresher_loop(const struct run_refresher *r);

#endif
