/* SPDX-License-Identifier: MIT */
/* Which clocksources the vDSO can read, per architecture and kernel: the knowledge the
 * verdict rests on (docs/doctor.md gives the kernel basis of each line). */
#ifndef CLOCKSCOPE_CLOCKSOURCES_H
#define CLOCKSCOPE_CLOCKSOURCES_H

#include "common/message.h"
#include "doctor/diagnosis.h"

enum cs_class {
    CS_FAST,          /* the vDSO reads it in user space: no syscall, no trap */
    CS_SYSCALL,       /* the vDSO falls back to the syscall on every call */
    CS_DEVICE_READ,   /* x86 before 5.6: the vDSO read the HPET through a mapped page */
    CS_DEPENDS,       /* paravirtual clock: vDSO only with a stable pvclock (host-decided) */
    CS_COUNTER_TRAP,  /* vDSO reads a counter that may trap to firmware (riscv time CSR) */
    CS_UNKNOWN,       /* a name this doctor does not know */
};

struct cs_judgement {
    enum cs_class cls;
    char why[MSG_REASON];
    bool pvclock;     /* CS_DEPENDS on a stable pvclock (kvm-clock, xen), not on the kernel */
};

void cs_judge(const struct machine *c, const char *name, struct cs_judgement *j);
/* The architecture a clocksource name belongs to ("x86", "arm", "riscv"), or NULL for
 * names several share or this doctor does not know. */
const char *cs_home(const char *name);

/* x86 that lost the TSC, current clocksource not known: where the kernel falls back to.
 * Linux registers a paravirtual clocksource only under KVM (kvm-clock), Xen (xen) and
 * Hyper-V (hyperv_clocksource_tsc_page); bare metal and every other hypervisor (VMware,
 * QEMU's TCG, bhyve, ...) leave the HPET or the ACPI PM timer, which the vDSO cannot read.
 * The clocksource watchdog is the best-rated clocksource that needs no verification, which
 * is also the one the kernel falls back to: a syscall-only accuser names the fallback. */
enum tsc_fallback {
    FB_NATIVE,             /* bare metal, or native calibration ran: HPET / ACPI PM timer */
    FB_NONE_USABLE,        /* every other available clocksource is syscall-only */
    FB_ACCUSER,            /* the syscall-only watchdog that accused the TSC */
    FB_KVM_NO_STABLE_BIT,  /* kvm-clock without the host's stable bit */
    FB_PLATFORM_UNKNOWN,   /* the hypervisor is not known */
    FB_KVM_CLOCK,          /* KVM or VirtualBox: kvm-clock */
    FB_HYPERV_TSC_PAGE,    /* Hyper-V: the TSC page */
    FB_XEN,                /* Xen: the xen clocksource */
    FB_NO_PVCLOCK,         /* a hypervisor Linux has no paravirtual clocksource for */
};
struct tsc_fallback_answer {
    enum tsc_fallback kind;
    const char *accuser;   /* FB_ACCUSER: the watchdog's name */
    const char *platform;  /* the platform it was judged as ("kvm", "xen", ...) */
};
/* Pure: native says a native calibration failure showed no paravirtual clock in use. */
void tsc_fallback(const struct machine *c, bool native, struct tsc_fallback_answer *a);

#endif
