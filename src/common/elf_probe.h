/* SPDX-License-Identifier: MIT */
/* What `vm` and `run` need to know about an ELF file on the host: its machine, and whether
 * it is dynamically linked (needs a loader and shared libraries in a guest; can be reached
 * by run's preloaded shim). */
#ifndef CLOCKSCOPE_ELF_PROBE_H
#define CLOCKSCOPE_ELF_PROBE_H

#include <stdbool.h>
#include <stddef.h>

enum elf_probe_result { ELF_PROBE_NOT_ELF, ELF_PROBE_OK, ELF_PROBE_BAD };

struct elf_facts {
    bool elf64_le;     /* ELFCLASS64, ELFDATA2LSB: the only kind the guests run */
    unsigned machine;  /* e_machine */
    unsigned phnum;    /* program headers (0: nothing to load) */
    bool has_interp;   /* PT_INTERP: a dynamic executable */
    bool has_dynamic;  /* PT_DYNAMIC: dynamic executable or shared object */
    bool go_buildinfo; /* a .go.buildinfo section: a Go program (its runtime calls the vDSO
                        * itself, whether or not it is linked dynamically) */
};

/* Reads the ELF header and program headers of `path` (bounds-checked against the file's
 * size).  NOT_ELF: no ELF magic (why empty); BAD: unreadable or truncated (why says so). */
enum elf_probe_result elf_probe(const char *path, struct elf_facts *f, char *why, size_t whylen);

#endif
