/* SPDX-License-Identifier: MIT */
/* Is a file a kernel image that QEMU can boot for a given arch? */
#ifndef CLOCKSCOPE_VM_KERNEL_IMAGE_H
#define CLOCKSCOPE_VM_KERNEL_IMAGE_H

#include "vm/vm_arch.h"

#include <stdbool.h>
#include <stddef.h>

/* Checks the image's boot header for the arch: x86 bzImage ("HdrS" at 0x202), arm64
 * Image ("ARM\x64" at 0x38), riscv Image ("RSC\x05" at 0x38), or an ELF vmlinux of that
 * machine.  A gzip-compressed image, or the payload of an EFI zboot image, is
 * decompressed (with the host's gzip, zstd or xz) into tmp_path, which the caller removes; boot_path then names what to boot.  On false, why
 * says what the file is not. */
bool kernel_image_check(const struct vm_arch *arch, const char *path, char *boot_path,
                        size_t boot_len, char *tmp_path, size_t tmp_len, char *why,
                        size_t whylen);

/* Classifies a header (at least 0x240 bytes, zero-padded): the arch name it boots on, or
 * "gzip", "zboot", or NULL. */
const char *kernel_image_kind(const unsigned char *head, size_t len);

#endif
