/* SPDX-License-Identifier: MIT */
/* From raw facts to the machine model: which architecture, kernel, clocksource,
 * hypervisor, command line and counter, each with where it came from. */
#include "facts/machine.h"

#include "facts/hypervisor.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Non-printable bytes of a fact shown in findings become '?'. */
static void scrub(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            *s = '?';
}

/* First whitespace-separated word of a one-line fact. */
static bool first_word(const struct fact *f, char *out, size_t len)
{
    char line[512];
    fact_line(f, line, sizeof line);
    size_t n = strcspn(line, " \t\r\n");
    if (n == 0 || n >= len)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x21 || (unsigned char)line[i] >= 0x7f)
            return false;
    memcpy(out, line, n);
    out[n] = 0;
    return true;
}

static void derive_family(const struct facts *fs, struct machine *c)
{
    char buf[512];
    if (fs->f[F_UNAME].status == FACT_OK) {
        machine_name_parse(fact_line(&fs->f[F_UNAME], buf, sizeof buf), c->machine,
                           sizeof c->machine);
        if (c->machine[0]) {
            snprintf(c->family, sizeof c->family, "%s", machine_family(c->machine));
            snprintf(c->family_source, sizeof c->family_source, "uname");
            return;
        }
    }
    facts_cpu_value(fs, "arch", buf, sizeof buf);
    if (buf[0]) {
        snprintf(c->machine, sizeof c->machine, "%.*s", (int)sizeof c->machine - 1, buf);
        snprintf(c->family, sizeof c->family, "%s", machine_family(buf));
        snprintf(c->family_source, sizeof c->family_source, "clockscope/cpu");
        return;
    }
    const char *fam = NULL, *src = NULL;
    if (!strcmp(c->cpu.family, "x86"))
        fam = "x86", src = "proc/cpuinfo";
    else if (!strcmp(c->cpu.family, "riscv"))
        fam = "riscv", src = "proc/cpuinfo";
    else if (!strcmp(c->cpu.family, "arm"))
        fam = cpuinfo_has_flag(&c->cpu, "asimd") || cpuinfo_has_flag(&c->cpu, "cpuid") ? "arm64" : "arm32",
        src = "proc/cpuinfo";
    else if (!strcmp(c->current_cs, "tsc") || !strcmp(c->current_cs, "hpet") ||
             !strcmp(c->current_cs, "acpi_pm") || !strcmp(c->current_cs, "kvm-clock") ||
             !strcmp(c->current_cs, "xen") || !strncmp(c->current_cs, "hyperv", 6))
        fam = "x86", src = "clocksource name";
    else if (!strcmp(c->current_cs, "riscv_clocksource") || c->log.riscv_timer)
        fam = "riscv", src = "clocksource name";
    else if (c->log.tsc_detected || c->log.tsc_unstable.n || c->log.warps.n || c->log.calibration.n ||
             (c->log.x86_hint && !c->log.arch_timer && !c->log.riscv_timer))
        fam = "x86", src = "kernel log (TSC messages)";
    else if (!strcmp(c->current_cs, "arch_sys_counter") || c->log.arch_timer)
        fam = "arm64", src = "clocksource name (arm64 assumed)";
    if (fam) {
        snprintf(c->family, sizeof c->family, "%s", fam);
        snprintf(c->family_source, sizeof c->family_source, "%s", src);
    }
}

/* The kernel version from one witness; true when it is known. */
static bool kernel_from(struct machine *c, const char *text, const char *source)
{
    kernel_version_parse(text, &c->kernel);
    if (c->kernel.known)
        snprintf(c->kernel_source, sizeof c->kernel_source, "%s", source);
    return c->kernel.known;
}

static void derive_kernel(const struct facts *fs, struct machine *c)
{
    char buf[1024];
    const struct fact *v = &fs->f[F_VERSION], *u = &fs->f[F_UNAME];
    if (v->status == FACT_OK && kernel_from(c, fact_line(v, buf, sizeof buf), "proc/version"))
        return;
    if (u->status == FACT_OK && kernel_from(c, fact_line(u, buf, sizeof buf), "uname"))
        return;
    if (c->log.version[0])
        kernel_from(c, c->log.version, "kernel log");
}

static void set_virt(struct machine *c, const char *v, const char *src)
{
    snprintf(c->virt, sizeof c->virt, "%.*s", (int)sizeof c->virt - 1, v);
    snprintf(c->virt_source, sizeof c->virt_source, "%s", src);
}

/* Virtualization, from the most direct witness to the least. */
static void derive_virt(const struct facts *fs, struct machine *c)
{
    char buf[256];
    if (first_word(&fs->f[F_VIRT], buf, sizeof buf)) {
        set_virt(c, buf, "systemd-detect-virt");
        return;
    }
    facts_cpu_value(fs, "hypervisor_vendor", buf, sizeof buf);
    if (buf[0]) {
        const char *name = hypervisor_from_cpuid_signature(buf);
        set_virt(c, name ? name : buf, "CPUID hypervisor leaf");
        return;
    }
    if (first_word(&fs->f[F_HYPERVISOR], buf, sizeof buf)) {
        set_virt(c, buf, "sys/hypervisor/type");
        return;
    }
    if (first_word(&fs->f[F_DT_HYPERVISOR], buf, sizeof buf)) {
        set_virt(c, buf, "device tree (hypervisor/compatible)");
        return;
    }
    char vendor[256] = "", product[256] = "";
    fact_line(&fs->f[F_DMI_VENDOR], vendor, sizeof vendor);
    fact_line(&fs->f[F_DMI_PRODUCT], product, sizeof product);
    const char *dmi = hypervisor_from_dmi(vendor, product);
    if (dmi) {
        set_virt(c, dmi, "DMI (sys/class/dmi/id)");
        return;
    }
    if (!strcmp(c->family, "x86") && c->cpu.parsed && c->cpu.flags[0]) {
        if (cpuinfo_has_flag(&c->cpu, "hypervisor")) {
            set_virt(c, c->log.virt[0] ? c->log.virt : "yes (unnamed)",
                     "cpuinfo flag 'hypervisor'");
            return;
        }
        /* Every x86 hypervisor sets CPUID.1:ECX[31]; its absence means bare metal. */
        set_virt(c, "none", "cpuinfo: no 'hypervisor' flag");
        return;
    }
    if (c->log.virt[0]) {
        set_virt(c, c->log.virt, "kernel log");
        return;
    }
    if (c->log.bare_metal)
        set_virt(c, "none", "kernel log (bare hardware)");
}

/* Whether the TSC was demoted after the last switch to it. */
static bool tsc_lost_after(const struct logscan *s)
{
    size_t at = s->switches.e[s->switches.n - 1].lineno;
    for (int i = 0; i < s->demotions.n; i++)
        if (s->demotions.e[i].lineno > at && !s->demotions.e[i].failover_disabled &&
            (!strcmp(s->demotions.e[i].name, "tsc") || !strcmp(s->demotions.e[i].name, "tsc-early")))
            return true;
    for (int i = 0; i < s->tsc_unstable.n; i++)
        if (s->tsc_unstable.e[i].lineno > at && s->tsc_unstable.e[i].reason != TSC_R_HYPERV)
            return true;
    for (int i = 0; i < s->warps.n; i++)
        if (s->warps.e[i].lineno > at)
            return true;
    return false;
}

static void derive_clocksource(const struct facts *fs, struct machine *c)
{
    if (first_word(&fs->f[F_CURRENT_CS], c->current_cs, sizeof c->current_cs)) {
        snprintf(c->current_cs_source, sizeof c->current_cs_source, "current_clocksource");
    } else {
        const char *last = logscan_last_switch(&c->log);
        if (last && (!strcmp(last, "tsc") || !strcmp(last, "tsc-early")) && tsc_lost_after(&c->log)) {
            /* The log switched to the TSC, then took the TSC away without showing where it
             * switched: the clocksource is not the TSC, and which it is is not known. */
            last = NULL;
        }
        if (last && last[0]) {
            snprintf(c->current_cs, sizeof c->current_cs, "%s", last);
            snprintf(c->current_cs_source, sizeof c->current_cs_source,
                     "kernel log (last \"Switched to clocksource\")");
        }
    }
    char line[256];
    fact_line(&fs->f[F_AVAILABLE_CS], line, sizeof line);
    scrub(line);
    snprintf(c->available_cs, sizeof c->available_cs, "%s", line);
}

static void derive_cmdline(const struct facts *fs, struct machine *c)
{
    char buf[2048];
    fact_line(&fs->f[F_CMDLINE], buf, sizeof buf);
    if (buf[0]) {
        snprintf(c->cmdline, sizeof c->cmdline, "%s", buf);
        snprintf(c->cmdline_source, sizeof c->cmdline_source, "proc/cmdline");
    } else if (c->log.cmdline[0]) {
        snprintf(c->cmdline, sizeof c->cmdline, "%s", c->log.cmdline);
        snprintf(c->cmdline_source, sizeof c->cmdline_source, "kernel log");
    }
    scrub(c->cmdline);
}

/* 1, 0 or -1 (not known) from a "0"/"1" value. */
static int tristate(const char *v) { return v[0] == '1' ? 1 : v[0] == '0' ? 0 : -1; }

/* The clockscope/cpu key=value lines (arch_* answers, written by facts_live.c), the
 * perf_user_access sysctl and the vDSO's symbol list. */
static void derive_counter(const struct facts *fs, struct counter_facts *k)
{
    char v[16];
    k->known = fs->f[F_CPU].status == FACT_OK;
    facts_cpu_value(fs, "counter_hz", k->hz, sizeof k->hz);
    facts_cpu_value(fs, "counter_hz_source", k->hz_source, sizeof k->hz_source);
    k->invariant = tristate(facts_cpu_value(fs, "counter_invariant", v, sizeof v));
    k->kvm_stable_bit = tristate(facts_cpu_value(fs, "kvm_clock_stable_bit", v, sizeof v));
    /* counter.<name>=permitted|why, one line each */
    for (const char *line = k->known ? fs->f[F_CPU].text : NULL; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (n > 8 && !strncmp(line, "counter.", 8) && k->nreads < MACHINE_COUNTER_READS) {
            size_t keep = n - 8 < 300 ? n - 8 : 300;
            snprintf(k->reads[k->nreads++], sizeof k->reads[0], "%.*s", (int)keep, line + 8);
        }
        line = nl ? nl + 1 : NULL;
    }
    fact_line(&fs->f[F_PERF_USER], k->perf_user_access, sizeof k->perf_user_access);
    const struct fact *vd = &fs->f[F_VDSO];
    if (vd->status == FACT_OK)
        k->vdso = !strncmp(vd->text, "absent", 6)        ? VDSO_ABSENT
                  : strstr(vd->text, "clock_gettime") ? VDSO_HAS_CLOCK_GETTIME
                                                       : VDSO_NO_CLOCK_GETTIME;
}

void machine_derive(const struct facts *fs, struct machine *c)
{
    memset(c, 0, sizeof *c);
    /* Unreadable is "not known", never "absent": keep why, for the rules to say so. */
    if (fs->f[F_CURRENT_CS].status == FACT_UNREADABLE)
        snprintf(c->current_cs_unreadable, sizeof c->current_cs_unreadable, "%s", fs->f[F_CURRENT_CS].why);
    if (fs->f[F_DMESG].status == FACT_UNREADABLE)
        snprintf(c->log_unreadable, sizeof c->log_unreadable, "%s", fs->f[F_DMESG].why);
    const struct fact *log = &fs->f[F_DMESG];
    if (log->status == FACT_OK)
        logscan_run(log->text, log->len, &c->log);
    if (fs->f[F_CPUINFO].status == FACT_OK)
        cpuinfo_parse(fs->f[F_CPUINFO].text, fs->f[F_CPUINFO].len, &c->cpu);
    derive_counter(fs, &c->counter);
    c->kvm_stable_bit = c->counter.kvm_stable_bit;
    derive_clocksource(fs, c);
    derive_family(fs, c);
    derive_kernel(fs, c);
    derive_virt(fs, c);
    derive_cmdline(fs, c);
    emulation_derive(fs, c, &c->emulation);
    machine_cpu_description(c, c->cpu_description, sizeof c->cpu_description);
}

bool machine_is_vm(const struct machine *c) { return c->virt[0] && strcmp(c->virt, "none") != 0; }
bool machine_is_bare_metal(const struct machine *c) { return strcmp(c->virt, "none") == 0; }

bool machine_cs_available(const struct machine *c, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = c->available_cs; (p = strstr(p, name)) != NULL; p += n)
        if ((p == c->available_cs || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return true;
    return false;
}

void machine_cpu_description(const struct machine *m, char *out, size_t len)
{
    const struct cpuinfo *c = &m->cpu;
    if (c->model_name[0])
        snprintf(out, len, "%s", c->model_name);
    else if (c->hardware[0])
        snprintf(out, len, "%s", c->hardware);
    else if (c->part[0])
        snprintf(out, len, "CPU part %s", c->part);
    else if (!strcmp(c->family, "riscv") && c->flags[0])
        snprintf(out, len, "%.*s", (int)(len > 0 ? len - 1 : 0), c->flags);
    else
        snprintf(out, len, "%s", c->model);
}
