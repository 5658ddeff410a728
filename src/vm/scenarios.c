/* SPDX-License-Identifier: MIT */
/* The scenario table: data only.  Each row names the machine, kernel command line and
 * device tree change that make a real kernel take one path, the source it reproduces, and
 * the verdict `clockscope doctor` must give inside (tests/test_lab.py boots every row). */
#include "common/message.h"
#include "common/text_wrap.h"
#include "vm/scenarios.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct vm_scenario scenarios[] = {
    {"riscv64-time-trap", "riscv64", "sifive_u", NULL, 0, NULL, NULL,
     "the time CSR is not implemented by the harts: every rdtime (the vDSO's counter read) "
     "raises an illegal-instruction trap that M-mode firmware (OpenSBI) emulates",
     "the RISC-V vDSO clock_gettime analysis report (openEuler, kernel 6.12): "
     "__vdso_clock_gettime at ~3 µs per call",
     "clocksource riscv_clocksource, vDSO clock mode ARCHTIMER: clock_gettime never makes "
     "a syscall, but each call pays a trap to OpenSBI",
     "slow"},
    {"riscv64-user-counters", "riscv64", "virt", "sysctl.kernel.perf_user_access=2", 0, NULL,
     NULL,
     "healthy: the time CSR is read in hardware, and user space may also read the cycle "
     "counter (legacy perf_user_access=2), so rdtime and rdcycle can be compared",
     "the same report's check \"compare rdcycle with rdtime\" (a fast rdcycle beside a slow "
     "rdtime puts the cost in the time CSR)",
     "riscv_clocksource read by the vDSO in user space; scounteren lets U-mode read cycle "
     "and instret as well as time",
     "ok"},
    {"x86_64-hpet", "x86_64", NULL, "clocksource=hpet", 1, NULL, NULL,
     "the HPET has no vDSO clock mode since Linux 5.6: every clock_gettime falls back to the "
     "syscall, and the kernel reads the HPET (an MMIO read; a VM exit in a guest)",
     "\"A Performance Issue Caused by the TSC Clock Source Missing in Linux\" (deeperf.com, "
     "2019): hpet only, gettimeofday 4.5 µs",
     "switches to clocksource hpet as asked; the vDSO falls back to the syscall (1 vCPU, so "
     "the parameter is the only cause: the TSC stays registered and a switch back fixes it)",
     "slow"},
    {"x86_64-acpi-pm", "x86_64", NULL, "clocksource=acpi_pm", 1, NULL, NULL,
     "the ACPI PM timer has no vDSO clock mode: a syscall and a port read per call",
     "the same report's list of fallbacks (HPET, ACPI-PM, PIT) and \"Clocksource tsc unstable\" "
     "machines that land on acpi_pm",
     "switches to clocksource acpi_pm as asked; the vDSO falls back to the syscall (1 vCPU: "
     "the TSC stays registered)",
     "slow"},
    {"x86_64-tsc-unstable", "x86_64", NULL, "tsc=unstable", 1, NULL, NULL,
     "the TSC is declared unstable at boot: its rating drops to 0, the kernel never selects "
     "it, and the next clocksource (hpet) has no vDSO path",
     "the blog post \"why the clock source affects performance\" (Chinese, 2021): "
     "\"Clocksource tsc unstable\", the vDSO falls back to the syscall; fix tsc=reliable",
     "tsc: Marking TSC unstable due to boot parameter; clocksource hpet (1 vCPU, so only the "
     "parameter is at work)",
     "slow"},
    {"x86_64-tsc-sync", "x86_64", NULL, NULL, 4, NULL, NULL,
     "the kernel finds the TSCs of several CPUs unsynchronized (a CPU that states no "
     "constant_tsc on a vendor other than Intel, with more than one CPU: "
     "unsynchronized_tsc() in arch/x86/kernel/tsc.c) and never uses the TSC",
     "the same report (the vDSO falls back once the TSC is out); the TCG guest with several "
     "vCPUs that lost its TSC, captured on purpose",
     "tsc: Marking TSC unstable due to TSCs unsynchronized; clocksource hpet",
     "slow"},
    {"aarch64-timer-erratum", "aarch64", "virt", NULL, 0, "arm,armv8-timer", "fsl,erratum-a008585",
     "the timer node carries an erratum the kernel knows (Freescale/NXP A-008585): the "
     "workaround reads CNTVCT out of line, so the clocksource's vDSO mode is NONE for every "
     "task and user-space CNTVCT reads trap",
     "drivers/clocksource/arm_arch_timer.c (arch_timer_enable_workaround); the boards with "
     "the erratum (NXP LS1043A/LS1046A)",
     "arch_timer: Enabling global workaround for Freescale erratum a005858; CPUn: Trapping "
     "CNTVCT access; every clock_gettime is a syscall",
     "slow"},
};

static const struct vm_unemulable unemulable[] = {
    {"xen pvclock", "the xen clocksource needs a Xen hypervisor (QEMU's Xen emulation needs "
     "KVM, which does not run guests here)",
     "tests/test_doctor.py x86-xen-*, lab-xen-*"},
    {"hyperv TSC page / MSR", "Hyper-V's clocksources need Hyper-V or KVM's Hyper-V "
     "enlightenments (hv-time, hv-frequencies): KVM only",
     "tests/test_doctor.py x86-hyperv-*, lab-hyperv-*"},
    {"kvm-clock without the stable bit", "kvm-clock exists only under KVM, and the stable bit "
     "(PVCLOCK_TSC_STABLE_BIT) is set per update by the host's KVM from its own clocksource",
     "tests/test_doctor.py x86-kvm-clock-*, lab-kvm-*"},
};

#define NSCEN (sizeof scenarios / sizeof scenarios[0])
#define NUNEM (sizeof unemulable / sizeof unemulable[0])

const struct vm_scenario *vm_scenario_find(const char *name)
{
    for (size_t i = 0; i < NSCEN; i++)
        if (strcmp(scenarios[i].name, name) == 0)
            return &scenarios[i];
    return NULL;
}

const char *vm_scenario_names(void)
{
    static char names[MSG_REASON];
    if (!names[0])
        for (size_t i = 0; i < NSCEN; i++) {
            if (i)
                strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, scenarios[i].name, sizeof names - strlen(names) - 1);
        }
    return names;
}

const struct vm_scenario *vm_scenario_at(size_t i) { return i < NSCEN ? &scenarios[i] : NULL; }
const struct vm_unemulable *vm_unemulable_at(size_t i) { return i < NUNEM ? &unemulable[i] : NULL; }

void vm_scenarios_list(FILE *out)
{
    for (size_t i = 0; i < NSCEN; i++) {
        const struct vm_scenario *s = &scenarios[i];
        fprintf(out, "%s  (doctor: %s)\n", s->name, s->verdict);
        fprintf(out, "  guest:     %s, machine %s%s%s", s->arch, s->machine ? s->machine : "default",
                s->append ? ", append \"" : "", s->append ? s->append : "");
        if (s->append)
            fputc('"', out);
        if (s->cpus)
            fprintf(out, ", %u vCPU%s", s->cpus, s->cpus == 1 ? "" : "s");
        if (s->dt_property)
            fprintf(out, ", device tree: %s in the %s node", s->dt_property, s->dt_compatible);
        fputc('\n', out);
        text_wrap(out, "mechanism: ", s->mechanism, 2, 13, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
        text_wrap(out, "kernel:    ", s->kernel_does, 2, 13, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
        text_wrap(out, "source:    ", s->source, 2, 13, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
        fputc('\n', out);
    }
    fprintf(out, "Not emulated here (their logic is tested on facts roots):\n");
    for (size_t i = 0; i < NUNEM; i++) {
        char label[MSG_WORD], text[MSG_PARAGRAPH];
        snprintf(label, sizeof label, "%s: ", unemulable[i].name);
        snprintf(text, sizeof text, "%s (%s)", unemulable[i].why, unemulable[i].covered_by);
        text_wrap(out, label, text, 2, 6, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
}
