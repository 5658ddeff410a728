/* SPDX-License-Identifier: MIT */
/* Which static clockscope `clockscope vm` puts into a guest as its /init. */
#ifndef CLOCKSCOPE_VM_GUEST_BINARY_H
#define CLOCKSCOPE_VM_GUEST_BINARY_H

#include "vm/vm_arch.h"

#include <stdbool.h>
#include <stddef.h>

/* `given` (--binary) when not NULL; otherwise the first that exists of:
 *   $CLOCKSCOPE_VM_BINARY_DIR/ARCH/clockscope           (only this one when the variable is set)
 *   <dir of this binary>/ARCH/clockscope                (a build tree: make vm-binaries)
 *   <dir of this binary>/../libexec/clockscope/ARCH/clockscope   (make install, packages)
 *   this binary itself, when it is a static executable of ARCH (releases, the .deb).
 * The result must be a static 64-bit little-endian executable of ARCH.  On failure `why`
 * names the places looked at and the Debian packages and make targets that give one. */
bool guest_binary_find(const struct vm_arch *arch, const char *given, char *out, size_t len,
                       char *why, size_t whylen);

#endif
