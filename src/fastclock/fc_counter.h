/* SPDX-License-Identifier: MIT */
/* The counter libfastclock's writer, life cycle and readers read, behind one seam: the
 * arch's (arch/counter.h, arch/arch.h), or, in a build with FC_COUNTER_SEAM defined, a
 * counter the program supplies (fc_seam_counter, fc_seam_stated_hz), as abseil's cycle
 * clock and quanta's mock clock have.  tests/progs/fc_seam.c drives fastclock's logic
 * (calibration, convergence, slew, refresh, re-anchor) with such a counter and a virtual
 * kernel clock, deterministically, natively and under qemu-user alike (the Makefile's
 * libfastclock-seam.a).  The production build compiles to the arch's inline reads: the seam
 * costs nothing there. */
#ifndef FASTCLOCK_COUNTER_H
#define FASTCLOCK_COUNTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef FC_COUNTER_SEAM
uint64_t fc_seam_counter(void);                        /* ordered and raw alike */
uint64_t fc_seam_stated_hz(char *source, size_t len);  /* 0: not stated */
#define FC_READ_COUNTER() fc_seam_counter()            /* fc_read.h's counter read */
#define fc_counter_ordered() fc_seam_counter()
#define fc_counter_raw() fc_seam_counter()
#define fc_counter_ordered_fn fc_seam_counter
#define fc_counter_raw_fn fc_seam_counter
#define fc_counter_stated_hz fc_seam_stated_hz
#else
#include "arch/arch.h"
#include "arch/counter.h"
#define fc_counter_ordered() arch_counter_ordered()
#define fc_counter_raw() arch_counter_raw()
#define fc_counter_ordered_fn arch_fast_counter_ordered
#define fc_counter_raw_fn arch_fast_counter_raw
#define fc_counter_stated_hz arch_counter_stated_hz
#endif

#endif
