/* SPDX-License-Identifier: MIT */
/* What differs between the guest architectures `clockscope vm` boots: one table row each. */
#ifndef CLOCKSCOPE_VM_ARCH_H
#define CLOCKSCOPE_VM_ARCH_H

#include "common/arch_table.h"

#include <stdbool.h>
#include <stddef.h>

struct vm_arch {
    const char *name;         /* "x86_64", "aarch64", "riscv64" (clockscope's arch names) */
    const struct arch_desc *desc; /* its ELF machine, Debian name, QEMU (common/arch_table.h) */
    const char *qemu_package; /* the Debian package that installs desc->qemu_system */
    const char *machine;      /* -machine */
    const char *tcg_cpu;      /* -cpu under TCG */
    const char *kvm_cpu;      /* -cpu under KVM */
    const char *bios;         /* -bios, or NULL */
    const char *console;      /* the kernel's name for the first serial port */
    const char *debian_suite; /* the suite its default kernel comes from */
    const char *cross_packages; /* Debian packages of its cross compiler and libc */
    /* Debian's cross libc package (libc6-ARCH-cross), named in messages: it keeps the
     * loader and libraries in /usr/TRIPLE/lib (desc->triple), which the guest finds in
     * /lib/TRIPLE. */
    const char *cross_libc_package;
};

/* A QEMU machine model an arch's guests may use (--machine).  The first of an arch is its
 * default, the one the arch row names. */
struct vm_machine {
    const char *arch;         /* vm_arch name */
    const char *name;         /* -machine */
    const char *console;      /* the kernel's name for its first serial port */
    bool cpu_option;          /* -cpu may be given (fixed-SoC models choose their own cores) */
    const char *what;         /* one line for --help and the catalogue */
};

/* The row for an arch name, or NULL. */
const struct vm_arch *vm_arch_find(const char *name);
/* "x86_64, aarch64, riscv64", for messages. */
const char *vm_arch_names(void);
/* The machine model NAME of ARCH (NULL: the arch's default), or NULL when it has none so
 * named. */
const struct vm_machine *vm_machine_find(const struct vm_arch *arch, const char *name);
/* "virt, sifive_u", the machine models of ARCH, for messages. */
void vm_machine_names(const struct vm_arch *arch, char *out, size_t len);

#endif
