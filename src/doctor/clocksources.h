/* SPDX-License-Identifier: MIT */
/* Which clocksources the vDSO can read, per architecture and kernel: the knowledge the
 * verdict rests on (docs/doctor.md gives the kernel basis of each line). */
#ifndef CLOCKSCOPE_CLOCKSOURCES_H
#define CLOCKSCOPE_CLOCKSOURCES_H

#include "doctor/diagnosis.h"

enum cs_class {
    CS_FAST,          /* the vDSO reads it in user space: no syscall, no trap */
    CS_SYSCALL,       /* the vDSO falls back to the syscall on every call */
    CS_DEVICE_READ,   /* x86 before 5.6: the vDSO read the HPET through a mapped page */
    CS_DEPENDS,       /* paravirtual clock: vDSO only with a stable pvclock (host-decided) */
    CS_COUNTER_TRAP,  /* vDSO reads a counter that may trap to firmware (riscv time CSR) */
    CS_UNKNOWN,       /* a name this doctor does not know */
};

struct cs_judgement {
    enum cs_class cls;
    char why[600];
    bool pvclock;     /* CS_DEPENDS on a stable pvclock (kvm-clock, xen), not on the kernel */
};

void cs_judge(const struct machine *c, const char *name, struct cs_judgement *j);
/* The architecture a clocksource name belongs to ("x86", "arm", "riscv"), or NULL for
 * names several share or this doctor does not know. */
const char *cs_home(const char *name);

#endif
