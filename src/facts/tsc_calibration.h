/* SPDX-License-Identifier: MIT */
/* The kernel's TSC calibration lines, the one parser for them (the doctor's log scanner
 * and warp both use it).  arch/x86/kernel/tsc.c prints, at boot, "tsc: Detected 2445.406
 * MHz processor" (and "... MHz TSC" when the TSC's rate differs from the CPU's), and after
 * comparing with another clocksource "tsc: Refined TSC clocksource calibration: 2445.406
 * MHz".  2.6.x kernels printed the same without the "tsc: " prefix ("Detected 2394.000 MHz
 * processor.").  Only x86 kernels print these. */
#ifndef CLOCKSCOPE_TSC_CALIBRATION_H
#define CLOCKSCOPE_TSC_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tsc_calibration {
    uint64_t hz;        /* > 0 when parsed */
    bool refined;       /* the refined calibration (better than "Detected") */
    uint64_t step_hz;   /* the figure's last printed digit (1 kHz for "2445.406 MHz") */
};

/* Parses one log message (buffer + length, need not be NUL-terminated; a /dev/kmsg record
 * "prio,seq,usec,flags;message" is accepted too).  Keywords match without regard to case.
 * On a calibration line with a well-formed figure (digits, at most 6 decimals, " MHz",
 * below 10^7 MHz, above 0) fills *out and returns true; anything else, however malformed,
 * returns false and leaves *out alone. */
bool tsc_calibration_parse(const char *msg, size_t len, struct tsc_calibration *out);

#endif
