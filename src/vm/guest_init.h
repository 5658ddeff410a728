/* SPDX-License-Identifier: MIT */
/* The guest side of `clockscope vm`: the static clockscope is the initramfs's /init. */
#ifndef CLOCKSCOPE_VM_GUEST_INIT_H
#define CLOCKSCOPE_VM_GUEST_INIT_H

/* Where the host puts the command to run: its arguments, each ending in a NUL byte. */
#define GUEST_ARGV_PATH "/clockscope-vm/argv"
/* The command's extra environment (vm --env): NAME=VALUE strings, each ending in NUL. */
#define GUEST_ENV_PATH "/clockscope-vm/env"
/* vm --apply-fix: sysfs writes init makes before the command (PATH, VALUE pairs, each
 * string ending in NUL; PATH under /sys/).  A write the guest refuses is reported in a
 * GUEST_FRAME_FIX_REFUSED frame, and the command does not run. */
#define GUEST_SYSFS_PATH "/clockscope-vm/sysfs"
#define GUEST_FRAME_FIX_REFUSED 'r'
/* PATH for the command unless --env sets it: where --add puts programs by default. */
#define GUEST_DEFAULT_PATH "/bin:/usr/bin:/sbin:/usr/sbin:/usr/local/bin"
/* Limits of that file, checked by the host before it boots anything. */
#define GUEST_MAX_ARGS 255
#define GUEST_MAX_ARGV_BYTES 65536
/* Where the binary itself lives in the initramfs. */
#define GUEST_INIT_PATH "/init"

/* Runs as PID 1: mounts /proc, /sys and /dev, runs `clockscope <argv file>` as a child,
 * sends its stdout, stderr and exit status framed over the console, powers off.
 * Never returns. */
_Noreturn void guest_init_main(void);

#endif
