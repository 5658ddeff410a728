/* SPDX-License-Identifier: MIT */
/* The data page's header as run writes it before a reader may read it
 * (run/run_reader_abi.h): its identity, mode, and the refresher's time namespace. */
#ifndef CLOCKSCOPE_RUN_PAGE_H
#define CLOCKSCOPE_RUN_PAGE_H

#include "run/run_reader_abi.h"

#include <stdbool.h>
#include <sys/types.h>

/* Fills a zeroed header: magic, version, count mode's flag, no clock served yet, and the
 * time namespace of the calling process, which the refresher it forks shares. */
void run_page_init(struct run_page_header *page, bool count);

/* header.timens, its inode and offsets, and the paths a served process reads at its first
 * read: /proc/self/ns/time, ns/time_for_children and timens_offsets for run_page_init;
 * tests give files of their own, which both sides then read. */
void run_page_timens(struct run_page_header *page, const char *ns_path, const char *children_path,
                     const char *offsets_path);

/* What the reader would learn at the first read of process pid (struct run_process_page),
 * found from outside through /proc/PID: run writes it into the process page before the
 * jumps, so that the program served at its exec or by run -p makes no syscall to learn it
 * (only its forked children do).  false when it cannot be known from here: the page then
 * stays zero, and the process learns it itself. */
bool run_page_process(pid_t pid, const struct run_page_header *page, struct run_process_page *out);

#endif
