/* SPDX-License-Identifier: MIT */
/* The data page's header as run writes it before a reader may read it
 * (run/run_reader_abi.h): its identity, mode, and the refresher's time namespace. */
#ifndef CLOCKSCOPE_RUN_PAGE_H
#define CLOCKSCOPE_RUN_PAGE_H

#include "run/run_reader_abi.h"

#include <stdbool.h>

/* Fills a zeroed header: magic, version, count mode's flag, no clock served yet, and the
 * time namespace of the calling process, which the refresher it forks shares. */
void run_page_init(struct run_page_header *page, bool count);

/* header.timens, its inode and offsets, and the paths a served process reads at its first
 * read: /proc/self/ns/time, ns/time_for_children and timens_offsets for run_page_init;
 * tests give files of their own, which both sides then read. */
void run_page_timens(struct run_page_header *page, const char *ns_path, const char *children_path,
                     const char *offsets_path);

#endif
