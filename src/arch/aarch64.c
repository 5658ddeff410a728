/* SPDX-License-Identifier: MIT */
/* aarch64: the generic timer's virtual counter.
 *
 * A plain `mrs cntvct_el0` may be executed speculatively, ahead of earlier loads; `isb`
 * before it makes it wait for everything before.  FEAT_ECV adds CNTVCTSS_EL0, a
 * self-synchronized read that needs no isb. */
#include "arch/arch.h"
#include "arch/counter_funcs.h"

#include <linux/audit.h>
#include <stdio.h>
#include <ucontext.h>
#include <sys/auxv.h>


#ifndef HWCAP2_ECV
#define HWCAP2_ECV (1UL << 19)
#endif

static inline uint64_t cntvct_plain(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}

static inline uint64_t cntvct_isb(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

static inline uint64_t cntvctss(void)
{
    uint64_t v;
    /* CNTVCTSS_EL0 by its encoding, so that older assemblers accept it. */
    __asm__ volatile("mrs %0, s3_3_c14_c0_6" : "=r"(v) : : "memory");
    return v;
}


COUNTER_FUNCS(cntvct_el0, cntvct_plain())
COUNTER_FUNCS(isb_cntvct_el0, cntvct_isb())
COUNTER_FUNCS(cntvctss_el0, cntvctss())

static bool always(char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    return true;
}

static bool has_ecv(char *why, size_t whylen)
{
    if (getauxval(AT_HWCAP2) & HWCAP2_ECV)
        return true;
    snprintf(why, whylen, "no FEAT_ECV (HWCAP2_ECV not set)");
    return false;
}

static const struct counter_method a64_counters[] = {
    {"cntvct_el0", "mrs cntvct_el0, unordered", false, read_cntvct_el0, batch_cntvct_el0, always},
    {"isb_cntvct_el0", "isb; mrs cntvct_el0: after earlier instructions", true,
     read_isb_cntvct_el0, batch_isb_cntvct_el0, always},
    {"cntvctss_el0", "mrs cntvctss_el0 (FEAT_ECV): self-synchronized", true, read_cntvctss_el0,
     batch_cntvctss_el0, has_ecv},
};

const char *arch_name(void) { return "aarch64"; }

size_t arch_counters(const struct counter_method **out)
{
    *out = a64_counters;
    return sizeof a64_counters / sizeof a64_counters[0];
}

uint64_t arch_counter_stated_hz(char *source, size_t len)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    snprintf(source, len, "CNTFRQ_EL0");
    return hz;
}

/* The generic timer's counter is constant-rate by the architecture. */
int arch_counter_invariant(void) { return 1; }

uint32_t arch_audit_arch(void) { return AUDIT_ARCH_AARCH64; }

long arch_ucontext_syscall_arg(const void *uc, int i)
{
    return (long)((const ucontext_t *)uc)->uc_mcontext.regs[i];
}

void arch_ucontext_set_return(void *uc, long value)
{
    ((ucontext_t *)uc)->uc_mcontext.regs[0] = (unsigned long)value;
}

uint64_t arch_fast_counter_ordered(void) { return cntvct_isb(); }
uint64_t arch_fast_counter_raw(void) { return cntvct_plain(); }
const char *arch_fast_counter_clocksource(void) { return "arch_sys_counter"; }
const char *arch_fast_counter_name(void) { return "cntvct_el0"; }

bool arch_fast_counter_constant(char *why, size_t whylen)
{
    /* The generic timer runs at a fixed rate by the architecture.  A trapping erratum
     * workaround (the kernel clears CNTKCTL_EL1.EL0VCTEN) shows as a read that costs
     * microseconds, which libfastclock's cost check catches. */
    (void)why;
    (void)whylen;
    return true;
}

void arch_spin_pause(void) { __asm__ volatile("yield"); }
