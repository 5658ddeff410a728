/* SPDX-License-Identifier: MIT */
/* x86_64: the TSC and its orderings.
 *
 * rdtsc is not ordered against anything: it may execute before earlier loads complete
 * and after later ones start.  For a timestamp that is monotonic across CPUs, the read
 * must not run ahead of earlier loads (lfence on Intel and on AMD with LFENCE_RDTSC,
 * mfence on older AMD), and later memory accesses must not run ahead of it (the 2011 kernel
 * patch "x86-64: Optimize vread_tsc's barriers": a load whose address depends on the counter
 * value does that without a second fence). */
#include "arch/arch.h"
#include "arch/counter_funcs.h"

#include <cpuid.h>
#include <linux/audit.h>
#include <stdio.h>
#include <ucontext.h>
#include <string.h>
#include <sys/syscall.h>


static inline uint64_t tsc_plain(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_lfence(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_mfence(void)
{
    uint32_t lo, hi;
    __asm__ volatile("mfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_rdtscp(void)
{
    uint32_t lo, hi, aux;
    /* rdtscp waits for earlier instructions to execute, but later ones may start early. */
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Always zero; loaded at an address offset by a value derived from the counter. */
static volatile uint64_t dependency_anchor;

/* That patch's trick: shifting rdx left by 32 twice yields zero that the CPU still sees
 * as depending on rdtsc's output.  Loading through an address offset by it makes that load
 * wait for the counter; x86 keeps loads ordered with later loads, so every later load
 * (and every store, which never passes an earlier load) is ordered after the read. */
static inline uint64_t tsc_dependent_load(uint64_t value_and_zero_hi, uint64_t zero)
{
    return value_and_zero_hi + *(volatile uint64_t *)((volatile char *)&dependency_anchor + zero);
}

static inline uint64_t tsc_dep(void)
{
    uint64_t value, zero;
    __asm__ volatile("rdtsc\n\t"
                     "shl $32, %%rdx\n\t"
                     "or %%rdx, %%rax\n\t"
                     "shl $32, %%rdx"
                     : "=a"(value), "=d"(zero) : : "cc");
    return tsc_dependent_load(value, zero);
}

static inline uint64_t tsc_lfence_dep(void)
{
    uint64_t value, zero;
    __asm__ volatile("lfence\n\t"
                     "rdtsc\n\t"
                     "shl $32, %%rdx\n\t"
                     "or %%rdx, %%rax\n\t"
                     "shl $32, %%rdx"
                     : "=a"(value), "=d"(zero) : : "cc", "memory");
    return tsc_dependent_load(value, zero);
}



COUNTER_FUNCS(rdtsc, tsc_plain())
COUNTER_FUNCS(lfence_rdtsc, tsc_lfence())
COUNTER_FUNCS(mfence_rdtsc, tsc_mfence())
COUNTER_FUNCS(rdtscp, tsc_rdtscp())
COUNTER_FUNCS(rdtsc_dep, tsc_dep())
COUNTER_FUNCS(lfence_rdtsc_dep, tsc_lfence_dep())

static bool cpu_has_tsc(char *why, size_t whylen)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4))) {
        snprintf(why, whylen, "CPUID reports no TSC");
        return false;
    }
    return true;
}

static bool cpu_has_rdtscp(char *why, size_t whylen)
{
    unsigned a, b, c, d;
    if (!cpu_has_tsc(why, whylen))
        return false;
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27))) {
        snprintf(why, whylen, "CPUID reports no RDTSCP");
        return false;
    }
    return true;
}

static const struct counter_method x86_counters[] = {
    {"rdtsc", "rdtsc, unordered", false, read_rdtsc, batch_rdtsc, cpu_has_tsc},
    {"lfence_rdtsc", "lfence; rdtsc: after earlier loads", true, read_lfence_rdtsc,
     batch_lfence_rdtsc, cpu_has_tsc},
    {"mfence_rdtsc", "mfence; rdtsc: after earlier loads and stores", true, read_mfence_rdtsc,
     batch_mfence_rdtsc, cpu_has_tsc},
    {"rdtscp", "rdtscp: after earlier instructions, later ones may pass", true, read_rdtscp,
     batch_rdtscp, cpu_has_rdtscp},
    {"rdtsc_dep", "rdtsc; next load depends on the value: before later loads only", false,
     read_rdtsc_dep, batch_rdtsc_dep, cpu_has_tsc},
    {"lfence_rdtsc_dep", "lfence; rdtsc; dependent load (as the kernel's vread_tsc): both sides", true,
     read_lfence_rdtsc_dep, batch_lfence_rdtsc_dep, cpu_has_tsc},
};

const char *arch_name(void) { return "x86_64"; }

size_t arch_counters(const struct counter_method **out)
{
    *out = x86_counters;
    return sizeof x86_counters / sizeof x86_counters[0];
}

long arch_syscall_time_nr(void) { return SYS_time; }

bool arch_cpu_hypervisor(char *vendor, size_t len)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
        return false;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = 0;
    snprintf(vendor, len, "%s", sig);
    return true;
}

uint64_t arch_counter_stated_hz(char *source, size_t len)
{
    unsigned max_leaf, a, b, c, d;
    max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf >= 0x15) {
        __cpuid(0x15, a, b, c, d);
        /* TSC Hz = crystal Hz * b / a; c is the crystal, 0 when not enumerated. */
        if (a && b && c) {
            snprintf(source, len, "CPUID leaf 0x15");
            return (uint64_t)c * b / a;
        }
    }
    /* Hypervisors (KVM, VMware, Hyper-V) state it at leaf 0x40000010 in kHz. */
    if (arch_cpu_hypervisor((char[16]){0}, 16)) {
        __cpuid(0x40000000, a, b, c, d);
        if (a >= 0x40000010) {
            __cpuid(0x40000010, a, b, c, d);
            if (a) {
                snprintf(source, len, "CPUID leaf 0x40000010 (hypervisor)");
                return (uint64_t)a * 1000;
            }
        }
    }
    snprintf(source, len, "not stated by CPUID");
    return 0;
}

int arch_counter_invariant(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0x80000000, NULL) < 0x80000007)
        return -1;
    __cpuid(0x80000007, a, b, c, d);
    return (d >> 8) & 1;
}

uint32_t arch_audit_arch(void) { return AUDIT_ARCH_X86_64; }

long arch_ucontext_syscall_arg(const void *uc, int i)
{
    static const int regs[6] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};
    return (long)((const ucontext_t *)uc)->uc_mcontext.gregs[regs[i]];
}

void arch_ucontext_set_return(void *uc, long value)
{
    ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = value;
}

int arch_kvm_clock_stable_bit(void)
{
    char vendor[16];
    unsigned a, b, c, d;
    if (!arch_cpu_hypervisor(vendor, sizeof vendor) || strncmp(vendor, "KVMKVMKVM", 9) != 0)
        return -1;
    __cpuid(0x40000000, a, b, c, d);
    if (a < 0x40000001)
        return -1;
    __cpuid(0x40000001, a, b, c, d);
    return (a >> 24) & 1;
}
/* rdtscp where the CPU has it: decided once (racing first calls all compute the same
 * answer); read inline by arch/x86_64/counter.h. */
__attribute__((visibility("hidden"))) int arch_x86_fast_rdtscp = -1;

static __attribute__((noinline)) uint64_t fast_counter_ordered_first(void)
{
    char unwanted[8]; /* the reason rdtscp is missing: only whether it is matters here */
    __atomic_store_n(&arch_x86_fast_rdtscp, cpu_has_rdtscp(unwanted, sizeof unwanted) ? 1 : 0,
                     __ATOMIC_RELAXED);
    return tsc_lfence();
}

uint64_t arch_fast_counter_ordered(void)
{
    int use = __atomic_load_n(&arch_x86_fast_rdtscp, __ATOMIC_RELAXED);
    if (__builtin_expect(use > 0, 1))
        return tsc_rdtscp();
    return use == 0 ? tsc_lfence() : fast_counter_ordered_first();
}
uint64_t arch_fast_counter_raw(void) { return tsc_plain(); }
const char *arch_fast_counter_clocksource(void) { return "tsc"; }
/* arch/x86/kernel/tsc.c: tsc_init registers clocksource_tsc_early; tsc_refine_calibration_work
 * (a delayed work, HZ after init_tsc_clocksource) registers clocksource_tsc and unregisters
 * tsc-early, or, the TSC found unstable, only unregisters it.  With a known TSC frequency
 * "tsc" is registered at once and tsc-early is never seen. */
const char *arch_fast_counter_provisional_clocksource(void) { return "tsc-early"; }
const char *arch_fast_counter_name(void) { return "rdtsc"; }

bool arch_fast_counter_constant(char *why, size_t whylen)
{
    if (!cpu_has_tsc(why, whylen))
        return false;
    int invariant = arch_counter_invariant(); /* the one decoding of CPUID 0x80000007 */
    if (invariant < 0) {
        snprintf(why, whylen, "CPUID has no leaf 0x80000007: cannot tell whether the TSC is invariant");
        return false;
    }
    if (!invariant) {
        snprintf(why, whylen, "TSC not invariant (CPUID 0x80000007 EDX bit 8 clear): its rate may "
                 "change with P-states or stop in deep C-states");
        return false;
    }
    return true;
}

void arch_spin_pause(void) { __asm__ volatile("pause"); }

bool arch_kernel_logs_counter_calibration(void) { return true; }
