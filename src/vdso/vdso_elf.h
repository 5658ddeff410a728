/* SPDX-License-Identifier: MIT */
/* A bounds-checked reader of a vDSO image's dynamic symbol table.
 *
 * It trusts nothing in the image: every offset, size and count is checked against the
 * buffer length before use, so that it can also read vDSO dumps from other machines and
 * survive corrupted ones (it is fuzzed: tests/fuzz/fuzz_vdso_elf.c). */
#ifndef CLOCKSCOPE_VDSO_ELF_H
#define CLOCKSCOPE_VDSO_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VDSO_MAX_SYMBOLS 4096

struct vdso_image {
    const uint8_t *base;
    size_t size;
    uint16_t machine;        /* e_machine */
    uint64_t load_vaddr;     /* p_vaddr of the first PT_LOAD */
    uint64_t load_offset;    /* its p_offset: vaddr v lies at load_offset + (v - load_vaddr) */
    size_t dynsym_off, dynstr_off, dynstr_size, versym_off, verdef_off;
    bool has_versym, has_verdef;
    size_t nsyms;
    /* What tells a vDSO from another shared object (vdso_is_kernel_image) */
    uint64_t interp_off, interp_len; /* PT_INTERP's path, interp_len 0 when none */
    uint64_t soname;                 /* DT_SONAME's string, when has_soname */
    bool has_soname;
    uint64_t needed;                 /* the first DT_NEEDED's string, when nneeded */
    size_t nneeded;
};

struct vdso_symbol {
    const char *name;
    const char *version;     /* NULL when unversioned */
    uint64_t offset;         /* from the image start */
    uint64_t size;
    bool is_function;
};

/* Parses the image.  Returns false with a one-line reason in why. */
bool vdso_parse(const void *buf, size_t size, struct vdso_image *img, char *why, size_t whylen);
/* Whether a parsed image is a kernel's vDSO, not another shared object or a program: no
 * interpreter, no library needed, and the soname linux-vdso.so.1 (linux-gate.so.1) or a
 * LINUX_* version definition (LINUX_2.6 x86_64, LINUX_2.6.39 aarch64, LINUX_4.15 riscv64).
 * False with the reason in why ("it asks for an interpreter (/lib64/ld-linux...)"). */
bool vdso_is_kernel_image(const struct vdso_image *img, char *why, size_t whylen);
/* The i-th defined, global or weak, function or object symbol; false when i is past the
 * table or the entry is not a usable definition. */
bool vdso_symbol_at(const struct vdso_image *img, size_t i, struct vdso_symbol *out);
/* Finds a function by name, and by version unless version is NULL. */
bool vdso_lookup(const struct vdso_image *img, const char *name, const char *version,
                 struct vdso_symbol *out);
/* "x86_64", "aarch64", "riscv64" or "machine N". */
const char *vdso_machine_name(uint16_t machine, char *buf, size_t len);

#endif
