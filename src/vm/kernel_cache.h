/* SPDX-License-Identifier: MIT */
/* The default kernels: Debian's, fetched once into a cache outside the repository. */
#ifndef CLOCKSCOPE_VM_KERNEL_CACHE_H
#define CLOCKSCOPE_VM_KERNEL_CACHE_H

#include "vm/vm_arch.h"

#include <stdbool.h>
#include <stddef.h>

/* $CLOCKSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/clockscope, else ~/.cache/clockscope. */
bool kernel_cache_dir(char *out, size_t len);

/* The default kernel of the arch: from the cache, or fetched into it first (progress on
 * stderr).  Fills path and a description ("linux-image-6.1.0-50-amd64 6.1.176-1, Debian
 * bookworm").  On false, why holds what failed and what to install or do instead. */
bool kernel_default(const struct vm_arch *arch, char *path, size_t path_len, char *desc,
                    size_t desc_len, char *why, size_t whylen);

#endif
