/* SPDX-License-Identifier: MIT */
/* The failure lab: every known way reading the time goes slow that a QEMU guest can
 * reproduce with a real kernel, one row each (scenarios.c; catalogue in docs/lab.md). */
#ifndef CLOCKSCOPE_VM_SCENARIOS_H
#define CLOCKSCOPE_VM_SCENARIOS_H

#include <stdio.h>

struct vm_scenario {
    const char *name;
    const char *arch;          /* vm_arch name */
    const char *machine;       /* QEMU machine model (vm_machine_find), NULL: the arch's default */
    const char *append;        /* kernel command line, before the user's --append */
    unsigned cpus;             /* vCPUs, 0: vm's default */
    const char *dt_compatible; /* device tree: the node to change (NULL: QEMU's tree as is) */
    const char *dt_property;   /* ... and the property added to it */
    const char *mechanism;     /* what makes the read slow (or keeps it fast) */
    const char *source;        /* the source or public report it reproduces */
    const char *kernel_does;   /* what the kernel does, as its log says */
    const char *verdict;       /* doctor's expected verdict inside */
};

/* What cannot be reproduced here, and where its logic is tested instead. */
struct vm_unemulable {
    const char *name;
    const char *why;
    const char *covered_by;
};

const struct vm_scenario *vm_scenario_find(const char *name);
/* "riscv64-time-trap, ...": every name, for messages. */
const char *vm_scenario_names(void);
/* The catalogue: each scenario in a few lines, then what cannot be emulated. */
void vm_scenarios_list(FILE *out);
/* The tables themselves (for tests of their consistency). */
const struct vm_scenario *vm_scenario_at(size_t i);
const struct vm_unemulable *vm_unemulable_at(size_t i);

#endif
