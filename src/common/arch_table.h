/* SPDX-License-Identifier: MIT */
/* The one descriptor of each architecture clockscope knows, whatever names it: its ELF
 * machine number, uname's, Debian's and the kernel's names, the doctor's family, the GNU
 * toolchain triple and QEMU's programs.  Every mapping between them goes through this table
 * (vdso: an image's machine; vm: a kernel image's, a guest binary's, the Debian packages and
 * QEMU to use), so that "aarch64" and "arm64" meet in one row. */
#ifndef CLOCKSCOPE_ARCH_TABLE_H
#define CLOCKSCOPE_ARCH_TABLE_H

#include <stddef.h>

struct arch_desc {
    const char *name;        /* clockscope's and `uname -m`'s: "x86_64", "aarch64", "riscv64" */
    unsigned elf_machine;    /* e_machine of its ELF files (EM_X86_64, EM_AARCH64, EM_RISCV) */
    const char *debian;      /* Debian's architecture: "amd64", "arm64", "riscv64" */
    const char *kernel;      /* the kernel's ARCH= and arch/ directory: "x86", "arm64", "riscv" */
    const char *family;      /* the doctor's machine family (facts/machine.h) */
    const char *triple;      /* the GNU toolchain triple: "aarch64-linux-gnu" */
    const char *qemu_system; /* QEMU's full-system emulator */
    const char *qemu_user;   /* QEMU's user-mode emulator */
};

extern const struct arch_desc arch_table[];
extern const size_t arch_table_len;
/* The row any of whose names (clockscope's, Debian's or the kernel's) is name, or NULL. */
const struct arch_desc *arch_table_find(const char *name);
/* The row of an ELF machine number, or NULL. */
const struct arch_desc *arch_table_by_elf(unsigned elf_machine);

#endif
