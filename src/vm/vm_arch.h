/* What differs between the guest architectures `clockscope vm` boots: one table row each. */
#ifndef CLOCKSCOPE_VM_ARCH_H
#define CLOCKSCOPE_VM_ARCH_H

struct vm_arch {
    const char *name;         /* "x86_64", "aarch64", "riscv64" (clockscope's arch names) */
    const char *qemu;         /* qemu-system-* program */
    const char *qemu_package; /* the Debian package that installs it */
    const char *machine;      /* -machine */
    const char *tcg_cpu;      /* -cpu under TCG */
    const char *kvm_cpu;      /* -cpu under KVM */
    const char *bios;         /* -bios, or NULL */
    const char *console;      /* the kernel's name for the first serial port */
    const char *debian_arch;  /* Debian architecture of the default kernel */
    const char *debian_suite; /* the suite it comes from */
    unsigned elf_machine;     /* e_machine of this arch's ELF files */
    const char *cross_packages; /* Debian packages of its cross compiler and libc */
};

/* The row for an arch name, or NULL. */
const struct vm_arch *vm_arch_find(const char *name);
/* "x86_64, aarch64, riscv64", for messages. */
const char *vm_arch_names(void);

#endif
