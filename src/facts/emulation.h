/* SPDX-License-Identifier: MIT */
/* Whether the machine's CPU is emulated (QEMU's TCG, no hardware acceleration): then every
 * nanosecond a command measures there is the emulator's, not a CPU's.  Decided from the
 * witnesses in one table (emulation.c), each saying what it saw. */
#ifndef CLOCKSCOPE_EMULATION_H
#define CLOCKSCOPE_EMULATION_H

#include "facts/facts.h"

#include <stddef.h>

#define EMULATION_EVIDENCE_MAX 4

struct machine;

struct emulation {
    char kind[16];             /* "qemu-tcg", "emulated" (a software CPU, emulator not named), "" none seen */
    int nevidence;
    char evidence[EMULATION_EVIDENCE_MAX][192];
};

/* The kernel command line word `clockscope vm` adds to a guest it boots under TCG. */
#define EMULATION_CMDLINE_WORD "clockscope.emulated=tcg"

/* Fills e from the facts and the machine model derived so far (family, virt, cpuinfo). */
void emulation_derive(const struct facts *fs, const struct machine *m, struct emulation *e);

#endif
