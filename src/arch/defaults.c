/* SPDX-License-Identifier: MIT */
/* What an architecture lacks, said once: weak definitions that an arch file (x86_64.c,
 * aarch64.c, riscv64.c) overrides where it has the feature.  Today these are x86's alone:
 * a time(2) syscall, a hypervisor CPUID leaf, KVM's kvm-clock stable bit, a provisional
 * clocksource (tsc-early) and a kernel log that states the counter's calibration.  Linked
 * beside the arch file into everything that links one (Makefile CLI_SRC, FC_SRC). */
#include "arch/arch.h"

#define ARCH_DEFAULT __attribute__((weak))

ARCH_DEFAULT long arch_syscall_time_nr(void) { return -1; }

ARCH_DEFAULT bool arch_cpu_hypervisor(char *vendor, size_t len)
{
    (void)vendor;
    (void)len;
    return false;
}

ARCH_DEFAULT int arch_kvm_clock_stable_bit(void) { return -1; }

ARCH_DEFAULT const char *arch_fast_counter_provisional_clocksource(void) { return NULL; }

ARCH_DEFAULT bool arch_kernel_logs_counter_calibration(void) { return false; }
