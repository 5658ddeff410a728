/* The guest's whole root file system: the static clockscope as /init and the command. */
#ifndef CLOCKSCOPE_VM_INITRAMFS_H
#define CLOCKSCOPE_VM_INITRAMFS_H

#include <stdbool.h>
#include <stddef.h>

/* Writes an uncompressed newc initramfs to a new temporary file (its name into path):
 * /init (the binary), /dev/console, empty /proc /sys /dev /tmp, and the command's
 * arguments NUL-separated in GUEST_ARGV_PATH.  On false, why says what failed. */
bool initramfs_build(const char *binary, int argc, char **argv, char *path, size_t path_len,
                     char *why, size_t why_len);

#endif
