/* SPDX-License-Identifier: MIT */
/* The guest's whole root file system: the static clockscope as /init and the command. */
#ifndef CLOCKSCOPE_VM_INITRAMFS_H
#define CLOCKSCOPE_VM_INITRAMFS_H

#include <stdbool.h>
#include <stddef.h>

struct guest_files;

/* Writes an uncompressed newc initramfs to a new temporary file (its name into path):
 * /init (the binary), /dev/console, empty /proc /sys /dev /tmp, and the command's
 * arguments NUL-separated in GUEST_ARGV_PATH, the extra environment (env_size bytes of
 * NUL-terminated NAME=VALUE) in GUEST_ENV_PATH, and the added files with their parent
 * directories.  On false, why says what failed. */
bool initramfs_build(const char *binary, int argc, char **argv, const struct guest_files *files,
                     const char *env, size_t env_size, char *path, size_t path_len, char *why,
                     size_t whylen);
/* The same, with sysfs writes for init to make before the command (sysfs_size bytes of
 * NUL-terminated PATH, VALUE strings in GUEST_SYSFS_PATH; none when sysfs_size is 0). */
bool initramfs_build_with_sysfs(const char *binary, int argc, char **argv,
                                const struct guest_files *files, const char *env,
                                size_t env_size, const char *sysfs, size_t sysfs_size,
                                char *path, size_t path_len, char *why, size_t whylen);

#endif
