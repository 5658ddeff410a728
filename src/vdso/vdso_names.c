/* SPDX-License-Identifier: MIT */
/* From the kernel's vDSO linker scripts: arch/x86/entry/vdso/vdso.lds.S,
 * arch/arm64/kernel/vdso/vdso.lds.S, arch/riscv/kernel/vdso/vdso.lds.S. */
#include "vdso/vdso_names.h"

#include "arch/arch.h"

#include <string.h>

static const struct {
    const char *arch;
    struct vdso_symbol_names names;
} table[] = {
    {"x86_64", {"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time",
                "__vdso_clock_getres", "__vdso_getcpu", "LINUX_2.6"}},
    {"aarch64", {"__kernel_clock_gettime", "__kernel_gettimeofday", NULL,
                 "__kernel_clock_getres", NULL, "LINUX_2.6.39"}},
    {"riscv64", {"__vdso_clock_gettime", "__vdso_gettimeofday", NULL, "__vdso_clock_getres",
                 "__vdso_getcpu", "LINUX_4.15"}},
};

const struct vdso_symbol_names *vdso_names_for(const char *arch)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].arch, arch) == 0)
            return &table[i].names;
    return NULL;
}

/* This binary's own arch, from the same table. */
const struct vdso_symbol_names *vdso_names_self(void) { return vdso_names_for(arch_name()); }
