/* The vDSO time entry point names of every arch clockscope knows, whatever arch this
 * binary is built for: reading a saved image of another arch needs that arch's names. */
#ifndef CLOCKSCOPE_VDSO_NAMES_H
#define CLOCKSCOPE_VDSO_NAMES_H

#include "arch/arch.h"

/* The names for "x86_64", "aarch64" or "riscv64"; NULL for any other arch. */
const struct vdso_symbol_names *vdso_names_for(const char *arch);

#endif
