/* SPDX-License-Identifier: MIT */
/* Hypervisor names from what the machine says about itself: the one table of CPUID
 * hypervisor signatures (x86 leaf 0x40000000, EBX:ECX:EDX, as arch_cpu_hypervisor() reads
 * them) and the one table of DMI vendor/product names.  The names are systemd-detect-virt's
 * identifiers, so that every witness names a hypervisor the same way. */
#ifndef CLOCKSCOPE_HYPERVISOR_H
#define CLOCKSCOPE_HYPERVISOR_H

#include <stdbool.h>

/* The name for a CPUID hypervisor signature (12 bytes as text; leading and trailing spaces
 * and NULs are ignored on both sides, so "KVMKVMKVM\0\0\0", " QNXQVMBSQG " and a saved
 * "bhyve bhyve" all match); NULL for a signature not in the table. */
const char *hypervisor_from_cpuid_signature(const char *signature);
/* The name for DMI sys_vendor / product_name text (either may be ""); NULL if neither
 * names a hypervisor. */
const char *hypervisor_from_dmi(const char *vendor, const char *product);

#endif
