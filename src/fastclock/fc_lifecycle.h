/* SPDX-License-Identifier: MIT */
/* libfastclock's life cycle (fc_lifecycle.c): initialisation, the cross-CPU check, fork,
 * the ticker, what fastclock_info() reports.  Used by the readers (fastclock.c); it uses
 * the writer (fc_writer.h) and the shared state (fc_state.h). */
#ifndef FASTCLOCK_LIFECYCLE_H
#define FASTCLOCK_LIFECYCLE_H

#include "fastclock/fc_state.h"

#include <stddef.h>
#include <stdint.h>

/* Initialises if needed (the first read, or any call that needs the writer's state);
 * returns the line's source (FC_SOURCE_*). */
FC_HIDDEN int fc_init(void);
FC_HIDDEN void fc_writer_info(char *clocksource, size_t clen, char *why, size_t whylen,
                              uint64_t *stated_hz, char *stated_source, size_t slen,
                              uint64_t *refreshes, uint64_t *suspends, uint64_t *init_ns);

#endif
