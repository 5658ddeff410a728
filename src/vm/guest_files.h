/* SPDX-License-Identifier: MIT */
/* `vm --add HOST[:GUEST]` and `vm --env NAME=VALUE`: extra files in the guest's initramfs
 * (with, for a dynamically linked ELF, its loader and shared libraries) and extra
 * environment for the command.  Everything is checked on the host before anything boots. */
#ifndef CLOCKSCOPE_VM_GUEST_FILES_H
#define CLOCKSCOPE_VM_GUEST_FILES_H

#include "vm/vm_arch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The initramfs lives in the guest's RAM: these keep it well inside the default 512 MiB. */
#define GUEST_FILES_MAX 512
#define GUEST_FILES_MAX_BYTES (160ull << 20)
#define GUEST_PATH_MAX 255
#define GUEST_ENV_MAX 64
#define GUEST_ENV_MAX_BYTES 16384

struct guest_file {
    char *host;  /* as given, or as ldd printed it */
    char *guest; /* absolute path in the guest */
    unsigned mode;
    uint64_t size;
    bool requested; /* named by --add (not found as a dependency) */
};

struct guest_files {
    struct guest_file *v;
    size_t n;
    uint64_t bytes;
};

/* A valid guest path: absolute, at most GUEST_PATH_MAX bytes, no empty, "." or ".."
 * component, and not where init mounts or keeps its own files (/init, /dev, /proc,
 * /sys, /tmp, /clockscope-vm). */
bool guest_path_check(const char *path, char *why, size_t whylen);

/* Adds `spec` (HOST or HOST:GUEST; the default GUEST is /bin/<basename of HOST>) and, for
 * a dynamically linked ELF of the guest's arch, what it loads: what `ldd` on the host says
 * when the guest's arch is the host's, else its loader and libraries from Debian's cross
 * libc directory (/usr/TRIPLET/lib, or $CLOCKSCOPE_CROSS_LIBDIR).
 * False (why filled) for a missing or non-regular file, a bad guest path, the same guest
 * path given twice, an ELF of another arch, a library that cannot be found, unparseable ldd
 * output, or the limits exceeded: all usage errors (exit 2). */
bool guest_files_add(struct guest_files *g, const struct vm_arch *arch, const char *spec,
                     char *why, size_t whylen);
void guest_files_free(struct guest_files *g);

/* Parses `ldd` output in place: the absolute paths of what the loader maps (libraries and
 * the loader itself), into paths[0..max).  The vDSO line is skipped; "statically linked"
 * gives 0.  -1 (why filled) for "not found" libraries, more than max, or any line that is
 * not one of ldd's forms. */
int ldd_parse(char *text, const char **paths, int max, char *why, size_t whylen);

/* NAME=VALUE with NAME a C identifier; false (why filled) otherwise. */
bool guest_env_check(const char *assignment, char *why, size_t whylen);

#endif
