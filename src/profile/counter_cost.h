/* SPDX-License-Identifier: MIT */
/* What one counter read costs here, measured as `clockscope bench` measures it, for the
 * note on a high vDSO share: a read that traps costs microseconds and is charged to the
 * vDSO symbol. */
#ifndef CLOCKSCOPE_PROFILE_COUNTER_COST_H
#define CLOCKSCOPE_PROFILE_COUNTER_COST_H

#include <stdbool.h>
#include <stddef.h>

/* A counter read at or above this many ns is a trap (firmware or hypervisor emulation);
 * a native read costs a few to tens of ns. */
#define COUNTER_TRAP_NS 500.0

/* The cheapest available counter.* method (bench's ids) and its median ns per read, with
 * bench --quick's settings on the current CPU; false when none could be measured. */
bool profile_counter_cost(char *id, size_t idlen, double *ns);

#endif
