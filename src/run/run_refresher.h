/* SPDX-License-Identifier: MIT */
/* The helper process that keeps a patched program's data page fresh from outside it, and
 * prints count mode's table when the program (and its forked children) have ended. */
#ifndef CLOCKSCOPE_RUN_REFRESHER_H
#define CLOCKSCOPE_RUN_REFRESHER_H

#include "run/run_mode.h"
#include "run/run_reader_abi.h"

#include <stdbool.h>
#include <sys/types.h>

struct run_refresher {
    struct run_page_header *page; /* mapped shared with the program */
    int lifeline;                 /* read end: EOF once every served process has ended */
    bool count, verbose;
    const char *output;           /* count mode: append the table here, else stderr */
    const char *path;
    pid_t pid;
};

/* In the helper, before the program starts (auto, fast): shares the page that holds
 * libfastclock's line with the memfd's first page (so that libfastclock's own writer, run
 * by its ticker in this process, writes the line the served program reads), initialises
 * libfastclock and decides what to serve into page->serve_mask.  False with the reason when
 * nothing is worth serving (no safe counter; auto on a kernel whose vDSO is fast). */
bool run_refresher_prepare(int memfd, struct run_page_header *page, const struct run_mode *mode,
                           char *why, size_t whylen);

/* Moves the shared pages to the memfd `to` (of RUN_MEMFD_SIZE bytes; run -p creates it in
 * the target and opens it through /proc/PID/fd, which root can across users and PID
 * namespaces where the target could not open the helper's): their contents copied, the same
 * addresses mapped from it, libfastclock's writer held off meanwhile.  line: the line page
 * too (after a prepare), else the header only (count mode).  False with the reason; then
 * the pages stay where they were. */
bool run_refresher_move(int to, struct run_page_header *page, bool line, char *why, size_t whylen);

/* After a prepare that returned true: a clause for --verbose saying whether fastclock's line
 * was live when the serving began ("its line live after 3 ms"), or that the program's first
 * reads go to the kernel (not live after LIVE_WAIT_MS: a busy machine). */
const char *run_refresher_start_said(void);

/* Returns when the lifeline reports EOF, after printing the table in count mode. */
void run_refresher_loop(const struct run_refresher *r);

#endif
