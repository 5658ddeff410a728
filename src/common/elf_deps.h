/* SPDX-License-Identifier: MIT */
/* What a dynamically linked ELF file asks the loader for, read from the file itself rather
 * than by running its loader (`ldd`), so that it works for another arch's files: the
 * loader's path (PT_INTERP) and the shared libraries it needs (DT_NEEDED). */
#ifndef CLOCKSCOPE_ELF_DEPS_H
#define CLOCKSCOPE_ELF_DEPS_H

#include <stdbool.h>
#include <stddef.h>

#define ELF_DEPS_MAX_NEEDED 64
#define ELF_DEPS_NAME_MAX 255

struct elf_deps {
    char interp[ELF_DEPS_NAME_MAX + 1]; /* "" when the file has no PT_INTERP (a library) */
    int n_needed;
    char needed[ELF_DEPS_MAX_NEEDED][ELF_DEPS_NAME_MAX + 1];
};

/* Reads the PT_INTERP string and the DT_NEEDED names of a 64-bit little-endian ELF file,
 * every offset checked against the file's size.  False (why filled) for a file that is not
 * such an ELF, is truncated or malformed, names more than ELF_DEPS_MAX_NEEDED libraries, or
 * has a name longer than ELF_DEPS_NAME_MAX or containing '/'. */
bool elf_deps_read(const char *path, struct elf_deps *d, char *why, size_t whylen);

#endif
