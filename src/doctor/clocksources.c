/* SPDX-License-Identifier: MIT */
#include "doctor/clocksources.h"

#include "facts/machine.h"

#include "facts/kernel_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* kernel < major.minor, only when the version is known */
static bool older(const struct machine *c, int major, int minor)
{
    return c->kernel.known && kernel_version_cmp(&c->kernel, major, minor) < 0;
}

/* Records the class and its reason; every judgement ends here. */
static void judged(struct cs_judgement *j, enum cs_class cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void judged(struct cs_judgement *j, enum cs_class cls, const char *fmt, ...)
{
    j->cls = cls;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->why, sizeof j->why, fmt, ap);
    va_end(ap);
}

/* The x86 clocksources with no vDSO clock mode (VDSO_CLOCKMODE_NONE). */
static bool x86_syscall_only(const char *n)
{
    static const char *const names[] = {"acpi_pm", "pit", "jiffies", "refined-jiffies",
                                        "hyperv_clocksource_msr", "hyperv_clocksource", "lguest",
                                        "cyclone", "vmi-timer", "scx200_hrt", "mmtimer"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is(n, names[i]))
            return true;
    return false;
}

/* A paravirtual clock the vDSO reads only when the host makes it stable. */
static void depends_on_pvclock(struct cs_judgement *j, const char *why)
{
    judged(j, CS_DEPENDS, "%s", why);
    j->pvclock = true;
}

static void judge_x86(const struct machine *c, const char *n, struct cs_judgement *j)
{
    bool i686 = c->machine[0] && strcmp(c->machine, "x86_64") != 0 && strcmp(c->machine, "amd64") != 0;
    if (is(n, "tsc") || is(n, "tsc-early")) {
        if (i686 && older(c, 3, 15)) {
            judged(j, CS_SYSCALL, "the 32-bit x86 vDSO has clock_gettime only since "
                   "Linux 3.15; kernel %s makes the syscall", c->kernel.release);
            return;
        }
        judged(j, CS_FAST, "the vDSO reads the TSC with rdtsc in user space "
               "(VDSO_CLOCKMODE_TSC, arch/x86/include/asm/vdso/gettimeofday.h)");
        return;
    }
    if (is(n, "hpet")) {
        if (older(c, 5, 6)) {
            judged(j, CS_DEVICE_READ, "kernel %s still has the HPET vclock: the vDSO "
                   "reads the HPET's counter through a mapped page, an uncached device "
                   "read of about 0.5-1.5 \xc2\xb5s (and a VM exit in a guest)", c->kernel.release);
            return;
        }
        judged(j, CS_SYSCALL, "the vDSO cannot read the HPET (its vclock was removed "
               "in Linux 5.6; older kernels read it through a mapped page, still an uncached "
               "device read of about 1 \xc2\xb5s): every call falls back to the syscall");
        return;
    }
    if (x86_syscall_only(n)) {
        judged(j, CS_SYSCALL, "'%s' has no vDSO clock mode (VDSO_CLOCKMODE_NONE): the "
               "vDSO returns to the syscall on every call, and the kernel then reads a slow "
               "device (port I/O, MSR or memory-mapped timer)", n);
        return;
    }
    if (is(n, "kvm-clock")) {
        char v[64] = "";
        if (older(c, 3, 8))
            judged(j, CS_SYSCALL, "kvm-clock got a vDSO read path in Linux 3.8; "
                   "kernel %s makes the syscall", c->kernel.release);
        else if (cmdline_param(c->cmdline, "no-kvmclock-vsyscall", v, sizeof v))
            judged(j, CS_SYSCALL, "no-kvmclock-vsyscall on the command line keeps "
                   "kvm-clock out of the vDSO");
        else if (c->kvm_stable_bit == 0)
            judged(j, CS_SYSCALL, "the hypervisor does not offer "
                   "KVM_FEATURE_CLOCKSOURCE_STABLE_BIT (CPUID 0x40000001 EAX bit 24), so the "
                   "guest never sets PVCLOCK_TSC_STABLE_BIT and the vDSO cannot read kvm-clock: "
                   "every call is a syscall");
        else
            depends_on_pvclock(j, "the vDSO reads kvm-clock (pvclock) only when the host "
                               "sets PVCLOCK_TSC_STABLE_BIT (a host on a stable TSC with its master "
                               "clock); otherwise every call is a syscall "
                               "(arch/x86/kernel/kvmclock.c, kvm_setup_vsyscall_timeinfo)");
        return;
    }
    if (is(n, "xen")) {
        if (c->log.xen_no_vdso.n)
            judged(j, CS_SYSCALL, "the kernel logged that Xen does not place the vcpu time page "
                   "for user space: the xen clocksource has no vDSO path here");
        else if (older(c, 4, 11))
            judged(j, CS_SYSCALL, "the xen clocksource has a vDSO path only since Linux 4.11 "
                   "(\"x86/xen/time: setup vcpu 0 time info page\"); older kernels make the syscall");
        else
            depends_on_pvclock(j, "the vDSO reads the xen clocksource only when the hypervisor "
                               "places a vcpu time page with PVCLOCK_TSC_STABLE_BIT (Linux >= 4.11, "
                               "Xen >= 4.8 on a stable TSC); EC2 Xen instances commonly do not, and "
                               "then every call is a syscall");
        return;
    }
    if (is(n, "hyperv_clocksource_tsc_page")) {
        if (older(c, 4, 11)) {
            judged(j, CS_SYSCALL, "the Hyper-V TSC page got a vDSO path in Linux 4.11 "
                   "(VCLOCK_HVCLOCK); kernel %s makes the syscall", c->kernel.release);
            return;
        }
        judged(j, CS_FAST, "the vDSO reads the Hyper-V TSC page and rdtsc in user "
               "space (VDSO_CLOCKMODE_HVCLOCK)");
        return;
    }
    judged(j, CS_UNKNOWN, "'%s' is not a clocksource this doctor knows on x86", n);
}

static void judge_arm(const struct machine *c, const char *n, bool arm64, struct cs_judgement *j)
{
    if (is(n, "arch_sys_counter")) {
        if (c->log.arm_errata.n) {
            judged(j, CS_SYSCALL, "an arch_timer erratum workaround reads the counter "
                   "out of line and sets the clocksource's vDSO mode to NONE for every task "
                   "(drivers/clocksource/arm_arch_timer.c, arch_timer_enable_workaround): "
                   "every clock_gettime is a syscall");
            return;
        }
        if (!arm64 && older(c, 4, 1)) {
            judged(j, CS_SYSCALL, "32-bit arm has a vDSO only since Linux 4.1; kernel %s "
                   "makes the syscall", c->kernel.release);
            return;
        }
        if (!arm64 && !c->kernel.known) {
            judged(j, CS_DEPENDS, "32-bit arm reads CNTVCT in the vDSO only on kernels "
                   ">= 4.1 built with CONFIG_VDSO and with the virtual counter enabled for user "
                   "space; the kernel version is not known");
            return;
        }
        judged(j, CS_FAST, "the vDSO reads CNTVCT_EL0 in user space "
               "(VDSO_CLOCKMODE_ARCHTIMER)");
        return;
    }
    judged(j, CS_SYSCALL, "the %s vDSO reads only the architected counter "
           "(arch_sys_counter, CNTVCT); with '%s' every call is a syscall",
           arm64 ? "arm64" : "32-bit arm", n);
}

static void judge_riscv(const struct machine *c, const char *n, struct cs_judgement *j)
{
    if (is(n, "riscv_clocksource")) {
        if (older(c, 5, 8)) {
            judged(j, CS_SYSCALL, "riscv's vDSO reads the time CSR only since Linux 5.8 "
                   "(\"riscv: use vDSO common flow to reduce the latency of the time-related "
                   "functions\"); before, __vdso_clock_gettime made the syscall; kernel %s",
                   c->kernel.release);
            return;
        }
        judged(j, CS_COUNTER_TRAP, "the vDSO reads the time CSR (rdtime) in user space; "
               "where the core does not implement it in hardware, every read traps to M-mode "
               "firmware (OpenSBI) or the hypervisor and costs microseconds. Only a live run "
               "can tell (clockscope doctor times rdtime)");
        return;
    }
    judged(j, CS_SYSCALL, "the riscv vDSO reads only the time CSR "
           "(riscv_clocksource); with '%s' every call is a syscall", n);
}

static void judge_in_family(const struct machine *c, const char *family, const char *n,
                            struct cs_judgement *j)
{
    memset(j, 0, sizeof *j);
    char v[64];
    if (cmdline_param(c->cmdline, "vdso", v, sizeof v) && is(v, "0")) {
        judged(j, CS_SYSCALL, "vdso=0 on the command line: no vDSO is mapped, every "
               "call is a syscall");
        return;
    }
    if (is(family, "arm64"))
        judge_arm(c, n, true, j);
    else if (is(family, "arm32"))
        judge_arm(c, n, false, j);
    else if (is(family, "riscv"))
        judge_riscv(c, n, j);
    else
        judge_x86(c, n, j);
}

const char *cs_home(const char *n)
{
    static const char *const x86[] = {"tsc", "tsc-early", "hpet", "acpi_pm", "pit", "kvm-clock",
                                      "xen", "hyperv_clocksource_msr"};
    for (size_t i = 0; i < sizeof x86 / sizeof x86[0]; i++)
        if (is(n, x86[i]))
            return "x86";
    if (is(n, "arch_sys_counter") || is(n, "arch_mem_counter"))
        return "arm";
    if (is(n, "riscv_clocksource"))
        return "riscv";
    return NULL;
}

void cs_judge(const struct machine *c, const char *n, struct cs_judgement *j)
{
    const char *fam = c->family;
    if (!fam[0]) { /* architecture not known: judge by names that belong to one */
        const char *home = cs_home(n);
        fam = home && is(home, "arm") ? "arm64" : home && is(home, "riscv") ? "riscv" : "x86";
    }
    judge_in_family(c, fam, n, j);
}

void tsc_fallback(const struct machine *c, bool native, struct tsc_fallback_answer *a)
{
    a->kind = FB_NATIVE;
    a->accuser = "";
    a->platform = c->virt;
    if (machine_is_bare_metal(c) || native)
        return;
    if (c->available_cs[0]) {
        bool any = false;
        char copy[256];
        snprintf(copy, sizeof copy, "%s", c->available_cs);
        for (char *save, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            struct cs_judgement j;
            cs_judge(c, t, &j);
            if (j.cls != CS_SYSCALL && j.cls != CS_DEVICE_READ && !is(t, "tsc") && !is(t, "tsc-early"))
                any = true;
        }
        if (!any) {
            a->kind = FB_NONE_USABLE;
            return;
        }
    }
    for (int i = 0; i < c->log.demotions.n; i++)
        if (c->log.demotions.e[i].watchdog[0])
            a->accuser = c->log.demotions.e[i].watchdog;
    if (a->accuser[0]) {
        struct cs_judgement j;
        cs_judge(c, a->accuser, &j);
        if (j.cls == CS_SYSCALL || j.cls == CS_DEVICE_READ) {
            a->kind = FB_ACCUSER;
            return;
        }
    }
    /* A paravirtual clocksource the kernel registered names the platform better than any
     * detection: it exists only there. */
    if (machine_cs_available(c, "kvm-clock"))
        a->platform = "kvm";
    else if (machine_cs_available(c, "hyperv_clocksource_tsc_page"))
        a->platform = "microsoft";
    else if (machine_cs_available(c, "xen"))
        a->platform = "xen";
    const char *pf = a->platform;
    if (is(pf, "kvm") && c->kvm_stable_bit == 0)
        a->kind = FB_KVM_NO_STABLE_BIT;
    else if (!pf[0] || is(pf, "vm"))
        a->kind = FB_PLATFORM_UNKNOWN;
    else if (is(pf, "kvm") || is(pf, "oracle")) /* VirtualBox: KVM's interface */
        a->kind = FB_KVM_CLOCK;
    else if (is(pf, "microsoft"))
        a->kind = FB_HYPERV_TSC_PAGE;
    else if (is(pf, "xen"))
        a->kind = FB_XEN;
    else
        a->kind = FB_NO_PVCLOCK;
}
