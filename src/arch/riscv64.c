/* SPDX-License-Identifier: MIT */
/* riscv64: the time, cycle and instret CSRs (Zicntr).
 *
 * Whether user mode may read them is decided above it: SCOUNTEREN (set by the kernel) and
 * MCOUNTEREN (set by firmware).  A read that is not enabled raises an illegal-instruction
 * exception; firmware may catch it and emulate the read (microseconds per read), or the
 * kernel delivers SIGILL.  Linux 6.6+ clears SCOUNTEREN.CY/IR unless
 * kernel.perf_user_access=2, so rdcycle and rdinstret usually die with SIGILL. */
#include "arch/arch.h"
#include "arch/counter.h"
#include "arch/counter_funcs.h"
#include "common/sysctl.h"
#include "common/trap_guard.h"

#include <signal.h>
#include <linux/audit.h>
#include <stdio.h>
#include <ucontext.h>
#include <string.h>


/* CSR numbers, so that assemblers without the Zicntr names accept them. */
static inline uint64_t csr_time(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, 0xc01" : "=r"(v));
    return v;
}

static inline uint64_t csr_cycle(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, 0xc00" : "=r"(v));
    return v;
}

static inline uint64_t csr_instret(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, 0xc02" : "=r"(v));
    return v;
}


COUNTER_FUNCS(rdtime, csr_time())
COUNTER_FUNCS(rdcycle, csr_cycle())
COUNTER_FUNCS(rdinstret, csr_instret())

static int read_perf_user_access(void)
{
    int v = -1;
    sysctl_read_int("/proc/sys/kernel/perf_user_access", &v);
    return v;
}

static bool probe(uint64_t (*read)(void), bool perf_counter, char *why, size_t whylen)
{
    int sig = 0;
    if (trap_guard_read(read, NULL, &sig))
        return true;
    int access = perf_counter ? read_perf_user_access() : -1;
    if (perf_counter && access >= 0 && access != 2)
        snprintf(why, whylen, "%s: user access denied by the kernel (kernel.perf_user_access=%d; "
                 "2 permits it)", strsignal(sig), access);
    else if (perf_counter)
        snprintf(why, whylen, "%s: user access not enabled (SCOUNTEREN/MCOUNTEREN)", strsignal(sig));
    else
        snprintf(why, whylen, "%s: the time CSR is not readable from user mode "
                 "(SCOUNTEREN.TM or MCOUNTEREN.TM clear, or no Zicntr)", strsignal(sig));
    return false;
}

static bool time_permitted(char *why, size_t len) { return probe(read_rdtime, false, why, len); }
static bool cycle_permitted(char *why, size_t len) { return probe(read_rdcycle, true, why, len); }
static bool instret_permitted(char *why, size_t len) { return probe(read_rdinstret, true, why, len); }

static const struct counter_method rv_counters[] = {
    {"rdtime", "csrr time: may trap to firmware where not implemented in hardware", false,
     read_rdtime, batch_rdtime, time_permitted},
    {"rdcycle", "csrr cycle: core clock cycles, not a time base", false, read_rdcycle,
     batch_rdcycle, cycle_permitted},
    {"rdinstret", "csrr instret: instructions retired", false, read_rdinstret, batch_rdinstret,
     instret_permitted},
};

const char *arch_name(void) { return "riscv64"; }

size_t arch_counters(const struct counter_method **out)
{
    *out = rv_counters;
    return sizeof rv_counters / sizeof rv_counters[0];
}

uint64_t arch_counter_stated_hz(char *source, size_t len)
{
    /* The device tree states it as a big-endian 32-bit cell. */
    FILE *f = fopen("/proc/device-tree/cpus/timebase-frequency", "rb");
    unsigned char b[8];
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    if (f)
        fclose(f);
    if (n == 4) {
        snprintf(source, len, "device tree cpus/timebase-frequency");
        return (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
    }
    if (n == 8) {
        snprintf(source, len, "device tree cpus/timebase-frequency");
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | b[i];
        return v;
    }
    snprintf(source, len, "not stated (no device-tree timebase-frequency)");
    return 0;
}

/* The time CSR counts at the constant timebase frequency by specification. */
int arch_counter_invariant(void) { return 1; }

uint32_t arch_audit_arch(void) { return AUDIT_ARCH_RISCV64; }

/* __gregs[10..17] are a0..a7. */
long arch_ucontext_syscall_arg(const void *uc, int i)
{
    return (long)((const ucontext_t *)uc)->uc_mcontext.__gregs[10 + i];
}

void arch_ucontext_set_return(void *uc, long value)
{
    ((ucontext_t *)uc)->uc_mcontext.__gregs[10] = (unsigned long)value;
}

/* Ordered: the same `fence r, i` as arch/riscv64/counter.h (CSR reads are device input). */
uint64_t arch_fast_counter_ordered(void) { return arch_counter_ordered(); }
uint64_t arch_fast_counter_raw(void) { return csr_time(); }
const char *arch_fast_counter_clocksource(void) { return "riscv_clocksource"; }
const char *arch_fast_counter_name(void) { return "rdtime"; }

bool arch_fast_counter_constant(char *why, size_t whylen)
{
    /* The time CSR is a constant-rate timebase by the spec; what can go wrong is access
     * (SIGILL) or a firmware trap (cost: caught by libfastclock's cost check). */
    return probe(read_rdtime, false, why, whylen);
}

/* Zihintpause's pause is a fence encoding that older cores execute as a no-op fence. */
void arch_spin_pause(void) { __asm__ volatile(".4byte 0x0100000f"); }
