/* SPDX-License-Identifier: MIT */
/* One arch descriptor (src/common/arch_table.c): every name of an arch finds its row, the
 * ELF machine number maps to it in one place, and the places that map through it (the
 * vDSO parser, the vm kernel image check, the vm arch rows) agree. */
#include "check.h"
#include "common/arch_table.h"
#include "vdso/vdso_elf.h"
#include "vm/kernel_image.h"
#include "vm/vm_arch.h"

#include <elf.h>
#include <string.h>

TEST(every_name_of_an_arch_finds_its_one_row)
{
    CHECK(arch_table_len == 3);
    CHECK(arch_table_find("arm64") == arch_table_find("aarch64"));
    CHECK(!strcmp(arch_table_find("arm64")->triple, "aarch64-linux-gnu"));
    CHECK(arch_table_find("amd64") == arch_table_find("x86_64"));
    CHECK(!strcmp(arch_table_find("x86")->qemu_system, "qemu-system-x86_64"));
    CHECK(!strcmp(arch_table_find("riscv")->name, "riscv64"));
    CHECK(!arch_table_find("armhf") && !arch_table_find(NULL));
    CHECK(arch_table_by_elf(EM_AARCH64) == arch_table_find("aarch64"));
    CHECK(arch_table_by_elf(EM_RISCV) == arch_table_find("riscv64"));
    CHECK(!arch_table_by_elf(EM_ARM));
}

TEST(the_vdso_the_vm_kernel_check_and_the_vm_arches_map_through_the_table)
{
    char buf[32];
    for (size_t i = 0; i < arch_table_len; i++) {
        const struct arch_desc *a = &arch_table[i];
        CHECK(!strcmp(vdso_machine_name((uint16_t)a->elf_machine, buf, sizeof buf), a->name));
        unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2, 1};
        h[18] = (unsigned char)(a->elf_machine & 0xff);
        h[19] = (unsigned char)(a->elf_machine >> 8);
        const char *kind = kernel_image_kind(h, sizeof h);
        CHECK(kind && !strcmp(kind, a->name));
        const struct vm_arch *v = vm_arch_find(a->name);
        CHECK(v && v->desc == a);
    }
    CHECK(!strcmp(vdso_machine_name(EM_ARM, buf, sizeof buf), "machine 40"));
}
