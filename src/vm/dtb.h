/* SPDX-License-Identifier: MIT */
/* A QEMU machine's device tree with one property added to one node (a scenario's timer
 * erratum): dumped by qemu, edited as source, compiled with dtc. */
#ifndef CLOCKSCOPE_VM_DTB_H
#define CLOCKSCOPE_VM_DTB_H

#include "vm/dts_edit.h"
#include "vm/qemu.h"

#include <stdbool.h>
#include <stddef.h>


/* The device tree b's machine would get, with PROPERTY in the node compatible with
 * COMPATIBLE, written to dtb inside a new temporary directory dir (remove both with
 * vm_dtb_remove, also after a failure).  Needs dtc (Debian: device-tree-compiler). */
bool vm_dtb_patched(const struct vm_boot *b, const char *compatible, const char *property,
                    char *dir, size_t dirlen, char *dtb, size_t dtblen, char *why, size_t whylen);
void vm_dtb_remove(const char *dir);

#endif
