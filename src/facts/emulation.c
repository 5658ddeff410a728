/* SPDX-License-Identifier: MIT */
/* Emulation witnesses, one row each.  A decisive witness cannot be seen on hardware or
 * under KVM: QEMU's own marks of TCG (the word `clockscope vm` puts on the command line,
 * TCG's CPUID signature, its x86 model name, systemd-detect-virt's "qemu", which it says
 * only when no KVM is found) and CPU identities no silicon has (arm64 implementer 0x00,
 * "reserved for software use", QEMU's `-cpu max`; riscv mvendorid 0 on QEMU's virt board).
 * A supporting witness (QEMU's virt board in the device tree, QEMU in DMI) is true under
 * KVM as well: it names the emulator once a decisive witness has been seen, never alone. */
#include "facts/emulation.h"

#include "facts/machine.h"
#include "common/words.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum strength { SUPPORTING, DECISIVE };

struct witness {
    enum strength strength;
    bool qemu;                 /* the witness names QEMU */
    /* true with what[] filled (what it saw) when the witness is present */
    bool (*seen)(const struct facts *fs, const struct machine *m, char *what, size_t len);
};

static const char *text_of(const struct facts *fs, enum fact_id id)
{
    return fs->f[id].status == FACT_OK && fs->f[id].text ? fs->f[id].text : "";
}

static bool vm_said_so(const struct facts *fs, const struct machine *m, char *what, size_t len)
{
    (void)fs;
    if (!words_has(m->cmdline, EMULATION_CMDLINE_WORD))
        return false;
    snprintf(what, len, "kernel command line: %s (clockscope vm booted this guest under TCG)",
             EMULATION_CMDLINE_WORD);
    return true;
}

static bool tcg_cpuid(const struct facts *fs, const struct machine *m, char *what, size_t len)
{
    (void)m;
    char sig[64];
    facts_cpu_value(fs, "hypervisor_vendor", sig, sizeof sig);
    if (!strstr(sig, "TCGTCGTCGTCG"))
        return false;
    snprintf(what, len, "CPUID hypervisor leaf: TCGTCGTCGTCG (QEMU's TCG)");
    return true;
}

static bool tcg_model_name(const struct facts *fs, const struct machine *m, char *what, size_t len)
{
    (void)fs;
    if (!strstr(m->cpu.model_name, "QEMU TCG CPU"))
        return false;
    snprintf(what, len, "cpuinfo model name: %.120s", m->cpu.model_name);
    return true;
}

static bool detect_virt_qemu(const struct facts *fs, const struct machine *m, char *what, size_t len)
{
    (void)fs;
    if (strcmp(m->virt, "qemu") != 0 || strcmp(m->virt_source, "systemd-detect-virt") != 0)
        return false;
    snprintf(what, len, "systemd-detect-virt: qemu (QEMU without KVM)");
    return true;
}

static bool arm_software_implementer(const struct facts *fs, const struct machine *m, char *what,
                                     size_t len)
{
    (void)fs;
    if (strcmp(m->cpu.family, "arm") != 0 || strcmp(m->cpu.vendor, "0x00") != 0)
        return false;
    snprintf(what, len, "cpuinfo CPU implementer 0x00 (reserved for software: no silicon has it)%s%s",
             m->cpu.part[0] ? ", CPU part " : "", m->cpu.part);
    return true;
}

static bool dt_qemu_virt_board(const struct facts *fs, const struct machine *m, char *what, size_t len)
{
    (void)m;
    const char *compat = text_of(fs, F_DT_COMPATIBLE);
    const char *board = words_has(compat, "linux,dummy-virt") ? "linux,dummy-virt" :
                        words_has(compat, "riscv-virtio") ? "riscv-virtio" : NULL;
    if (!board)
        return false;
    snprintf(what, len, "device tree compatible: %s (QEMU's virt board)", board);
    return true;
}

/* riscv mvendorid 0 ("not implemented or non-commercial") on QEMU's virt board: under KVM
 * the guest sees the host's vendor, on boards the silicon's. */
static bool riscv_no_vendor_on_virt(const struct facts *fs, const struct machine *m, char *what,
                                    size_t len)
{
    if (strcmp(m->cpu.family, "riscv") != 0 || strcmp(m->cpu.vendor, "0x0") != 0 ||
        !words_has(text_of(fs, F_DT_COMPATIBLE), "riscv-virtio"))
        return false;
    snprintf(what, len, "cpuinfo mvendorid 0x0 on QEMU's virt board (KVM would show the host's vendor)");
    return true;
}

static bool dmi_qemu(const struct facts *fs, const struct machine *m, char *what, size_t len)
{
    (void)m;
    const char *v = text_of(fs, F_DMI_VENDOR);
    if (!strstr(v, "QEMU"))
        return false;
    snprintf(what, len, "DMI sys_vendor: QEMU");
    return true;
}

static const struct witness witnesses[] = {
    {DECISIVE, true, vm_said_so},
    {DECISIVE, true, tcg_cpuid},
    {DECISIVE, true, tcg_model_name},
    {DECISIVE, true, detect_virt_qemu},
    {DECISIVE, false, arm_software_implementer},
    {DECISIVE, true, riscv_no_vendor_on_virt},
    {SUPPORTING, true, dt_qemu_virt_board},
    {SUPPORTING, true, dmi_qemu},
};

void emulation_derive(const struct facts *fs, const struct machine *m, struct emulation *e)
{
    memset(e, 0, sizeof *e);
    char seen[sizeof witnesses / sizeof witnesses[0]][192];
    bool decisive = false, qemu = false;
    for (size_t i = 0; i < sizeof witnesses / sizeof witnesses[0]; i++) {
        seen[i][0] = 0;
        if (!witnesses[i].seen(fs, m, seen[i], sizeof seen[i])) {
            seen[i][0] = 0;
            continue;
        }
        decisive |= witnesses[i].strength == DECISIVE;
        qemu |= witnesses[i].qemu;
    }
    if (!decisive)
        return;
    snprintf(e->kind, sizeof e->kind, "%s", qemu ? "qemu-tcg" : "emulated");
    for (size_t i = 0; i < sizeof witnesses / sizeof witnesses[0] && e->nevidence < EMULATION_EVIDENCE_MAX; i++)
        if (seen[i][0])
            snprintf(e->evidence[e->nevidence++], sizeof e->evidence[0], "%.191s", seen[i]);
}
