/* SPDX-License-Identifier: MIT */
/* The one interface behind which all architecture-specific code lives.
 * Exactly one of arch/x86_64.c, arch/aarch64.c, arch/riscv64.c is linked (the Makefile
 * picks it from the compiler's target triple), with arch/defaults.c: weak definitions of
 * what an arch may lack (a time syscall, a hypervisor CPUID leaf, the kvm-clock stable
 * bit, a provisional clocksource, a calibration in the kernel log), which an arch file
 * overrides where it has it.  The other functions each arch file must define. */
#ifndef CLOCKSCOPE_ARCH_H
#define CLOCKSCOPE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads per call of a counter batch function; batch sizes are multiples of this. */
#define BATCH_UNROLL 8

/* One way of reading the raw hardware counter, with its ordering. */
struct counter_method {
    const char *name;          /* id suffix: counter.<name> */
    const char *description;   /* the instruction sequence and what it orders */
    bool ordered;              /* ordered against earlier loads on this CPU */
    uint64_t (*read)(void);    /* one read, in ticks */
    void (*batch)(uint64_t n); /* n reads, n a multiple of BATCH_UNROLL */
    /* Whether the read is permitted here.  Must not be called concurrently: it may
     * execute the instruction under a SIGILL guard.  On false, fills `why`. */
    bool (*permitted)(char *why, size_t whylen);
};

const char *arch_name(void);
size_t arch_counters(const struct counter_method **out);
/* The time(2) syscall number, or -1 where the arch has none (aarch64, riscv64). */
long arch_syscall_time_nr(void);
/* Hypervisor vendor from the CPU itself (x86 CPUID leaf 0x40000000), or false. */
bool arch_cpu_hypervisor(char *vendor, size_t len);
/* The counter frequency the platform states (CPUID 0x15, CNTFRQ_EL0, riscv timebase),
 * in Hz, with where it came from; 0 when not stated. */
uint64_t arch_counter_stated_hz(char *source, size_t len);
/* Whether the counter ticks at a constant rate through frequency and idle states:
 * x86 CPUID 0x80000007 EDX[8] (invariant TSC); the arm64 generic timer and the riscv time
 * CSR are constant-rate by specification.  1 yes, 0 no, -1 not known. */
int arch_counter_invariant(void);
/* Whether the hypervisor offers the kvm-clock stable bit (x86 KVM: CPUID 0x40000001 EAX
 * bit 24, KVM_FEATURE_CLOCKSOURCE_STABLE_BIT): without it the guest never marks kvm-clock
 * usable by the vDSO.  1 yes, 0 no, -1 not a KVM guest or not applicable. */
int arch_kvm_clock_stable_bit(void);
/* AUDIT_ARCH_* of this arch: seccomp filters must check it before trusting syscall numbers. */
uint32_t arch_audit_arch(void);
/* Inside a SIGSYS handler (seccomp SECCOMP_RET_TRAP): syscall argument i (0..5) and the
 * return-value register, in the interrupted context `uc` (a ucontext_t). */
long arch_ucontext_syscall_arg(const void *uc, int i);
void arch_ucontext_set_return(void *uc, long value);
/* A spin-wait hint for busy loops (x86 pause, arm64 yield, riscv pause hint): lets an SMT
 * sibling run and stops the loop from flooding the memory system.  Orders nothing. */
void arch_spin_pause(void);
/* Whether the kernel's "tsc: Detected/Refined ... MHz" log lines describe this arch's
 * counter (x86 only), so that they can be compared with the measured rate. */
bool arch_kernel_logs_counter_calibration(void);

/* For libfastclock (src/fastclock): the one counter it uses, read two ways. */
/* Ordered after every earlier load on this CPU (rdtscp, or lfence;rdtsc without RDTSCP /
 * isb;mrs cntvct_el0 / fence r,i;rdtime).  Later loads are not ordered after it. */
uint64_t arch_fast_counter_ordered(void);
/* Unordered, the cheapest read of the same counter. */
uint64_t arch_fast_counter_raw(void);
/* The kernel's name for that counter as a clocksource ("tsc", "arch_sys_counter",
 * "riscv_clocksource"), and the instruction's name ("rdtsc", "cntvct_el0", "rdtime"). */
const char *arch_fast_counter_clocksource(void);
const char *arch_fast_counter_name(void);
/* The kernel's provisional clocksource for the same counter, registered at boot before its
 * final checks ("tsc-early": x86 replaces it with "tsc" once the TSC's refined calibration
 * has run, about a second into boot, or drops both if the TSC turned out unstable), or
 * NULL where there is none (aarch64, riscv64). */
const char *arch_fast_counter_provisional_clocksource(void);
/* Whether the CPU itself promises a constant-rate counter readable from user mode (x86:
 * invariant TSC, CPUID 0x80000007 EDX bit 8; riscv: rdtime does not raise SIGILL, probed
 * under a guard, so not thread-safe; aarch64: architecturally constant).  On false, fills why. */
bool arch_fast_counter_constant(char *why, size_t whylen);

#endif
