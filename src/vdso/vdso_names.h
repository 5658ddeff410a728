/* SPDX-License-Identifier: MIT */
/* The vDSO time entry point names of every arch clockscope knows, whatever arch this
 * binary is built for: reading a saved image of another arch needs that arch's names. */
#ifndef CLOCKSCOPE_VDSO_NAMES_H
#define CLOCKSCOPE_VDSO_NAMES_H

#include <stddef.h>

/* vDSO symbol names of one arch (NULL where the arch's vDSO has no such entry). */
struct vdso_symbol_names {
    const char *clock_gettime;
    const char *gettimeofday;
    const char *time;
    const char *clock_getres;
    const char *getcpu;
    const char *version; /* symbol version, e.g. "LINUX_2.6" */
};

/* The names for "x86_64", "aarch64" or "riscv64"; NULL for any other arch. */
const struct vdso_symbol_names *vdso_names_for(const char *arch);
/* The names for this binary's own arch (arch_name()). */
const struct vdso_symbol_names *vdso_names_self(void);

#endif
