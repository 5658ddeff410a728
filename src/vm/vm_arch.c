/* SPDX-License-Identifier: MIT */
/* The guest architectures.  Debian 12 has no riscv64 port, so riscv64's default kernel
 * comes from Debian 13 (trixie).  aarch64 under TCG: "max" with the implementation-defined
 * pointer-authentication algorithm, which QEMU emulates far faster than the architected
 * QARMA one.  x86_64 under KVM: the host CPU without IA32_ARCH_CAPABILITIES, an MSR that
 * nested KVM (as on cloud VMs) may refuse to set, which makes qemu abort at start.  riscv64: QEMU's bundled OpenSBI ("-bios default") is the M-mode firmware. */
#include "vm/vm_arch.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* desc: the arch's row in common/arch_table.c, in the same order (a unit test checks
 * that the names agree). */
static const struct vm_arch arches[] = {
    {"x86_64", &arch_table[0], "qemu-system-x86", "pc", "max", "host,-arch-capabilities", NULL, "ttyS0",
     "bookworm", "gcc-x86-64-linux-gnu libc6-dev-amd64-cross", "libc6-amd64-cross"},
    {"aarch64", &arch_table[1], "qemu-system-arm", "virt", "max,pauth-impdef=on", "host", NULL,
     "ttyAMA0", "bookworm", "gcc-aarch64-linux-gnu libc6-dev-arm64-cross", "libc6-arm64-cross"},
    {"riscv64", &arch_table[2], "qemu-system-misc", "virt", "rv64", "host", "default", "ttyS0",
     "trixie", "gcc-riscv64-linux-gnu libc6-dev-riscv64-cross", "libc6-riscv64-cross"},
};

const struct vm_arch *vm_arch_find(const char *name)
{
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        if (strcmp(arches[i].name, name) == 0)
            return &arches[i];
    return NULL;
}

const char *vm_arch_names(void) { return "x86_64, aarch64, riscv64"; }

/* sifive_u models the HiFive Unleashed's FU540: its harts implement no time CSR (QEMU's
 * CLINT there does not provide rdtime), so every rdtime traps to OpenSBI, which emulates
 * it from the CLINT's mtime; its UART is SiFive's own (ttySIF0), and it fixes its cores,
 * so no -cpu. */
static const struct vm_machine machines[] = {
    {"x86_64", "pc", "ttyS0", true, "i440FX PC (default)"},
    {"x86_64", "q35", "ttyS0", true, "Q35 PC (ICH9, PCIe)"},
    {"aarch64", "virt", "ttyAMA0", true, "QEMU's generic Arm machine (default)"},
    {"riscv64", "virt", "ttyS0", true, "QEMU's generic RISC-V machine, time CSR in hardware (default)"},
    {"riscv64", "sifive_u", "ttySIF0", false,
     "SiFive HiFive Unleashed (FU540): no time CSR, rdtime traps to OpenSBI"},
};

const struct vm_machine *vm_machine_find(const struct vm_arch *arch, const char *name)
{
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
        if (strcmp(machines[i].arch, arch->name) == 0 &&
            strcmp(machines[i].name, name ? name : arch->machine) == 0)
            return &machines[i];
    return NULL;
}

void vm_machine_names(const struct vm_arch *arch, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
        if (strcmp(machines[i].arch, arch->name) == 0 && used < len) {
            int n = snprintf(out + used, len - used, "%s%s", used ? ", " : "", machines[i].name);
            if (n < 0)
                break;
            used += (size_t)n;
        }
}
