/* SPDX-License-Identifier: MIT */
#include "common/arch_table.h"

#include <elf.h>
#include <string.h>

const struct arch_desc arch_table[] = {
    {"x86_64", EM_X86_64, "amd64", "x86", "x86", "x86_64-linux-gnu", "qemu-system-x86_64", "qemu-x86_64"},
    {"aarch64", EM_AARCH64, "arm64", "arm64", "arm64", "aarch64-linux-gnu", "qemu-system-aarch64", "qemu-aarch64"},
    {"riscv64", EM_RISCV, "riscv64", "riscv", "riscv", "riscv64-linux-gnu", "qemu-system-riscv64", "qemu-riscv64"},
};
const size_t arch_table_len = sizeof arch_table / sizeof arch_table[0];

const struct arch_desc *arch_table_find(const char *name)
{
    for (size_t i = 0; name && i < arch_table_len; i++) {
        const struct arch_desc *a = &arch_table[i];
        if (!strcmp(a->name, name) || !strcmp(a->debian, name) || !strcmp(a->kernel, name))
            return a;
    }
    return NULL;
}

const struct arch_desc *arch_table_by_elf(unsigned elf_machine)
{
    for (size_t i = 0; i < arch_table_len; i++)
        if (arch_table[i].elf_machine == elf_machine)
            return &arch_table[i];
    return NULL;
}
