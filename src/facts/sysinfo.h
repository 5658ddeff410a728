/* SPDX-License-Identifier: MIT */
/* A short description of the machine, attached to every result so that figures from
 * different machines can be compared: arch, CPU model, kernel, clocksource, virtualization.
 * It is a view of the machine model (facts/machine.h), read from the quick live facts: the
 * header of bench and warp and the doctor name the same machine the same way. */
#ifndef CLOCKSCOPE_SYSINFO_H
#define CLOCKSCOPE_SYSINFO_H

#include "common/json.h"
#include "facts/machine.h"

#include <stdio.h>

struct sysinfo {
    char arch[32];
    char cpu_model[128];
    char kernel[128];
    char clocksource[64];          /* "" when unreadable */
    char available_clocksource[256];
    char virtualization[96];       /* "none", a hypervisor name, or "" when unknown */
    char virtualization_source[96];
    struct emulation emulation;    /* an emulated CPU (QEMU TCG), kind "" when none seen */
    int cpus_online;
    double loadavg_1m;             /* -1 when unknown */
};

/* The live machine (facts_load_live_quick, machine_derive) plus online CPUs and load. */
void sysinfo_read(struct sysinfo *s);
/* The description part from a machine model (arch is this binary's). */
void sysinfo_from_machine(const struct machine *m, struct sysinfo *s);
/* Whether other work is likely to share the CPUs being measured: the 1-minute load average
 * is above half the online CPUs (false when unknown). */
bool sysinfo_busy(const struct sysinfo *s);
void sysinfo_json(struct json *j, const struct sysinfo *s);
/* sysinfo_json's members, inside an object the caller opened (and closes). */
void sysinfo_json_fields(struct json *j, const struct sysinfo *s);
/* The live cpuidle driver and governor (/sys/devices/system/cpu/cpuidle/current_driver,
 * current_governor or current_governor_ro), "" each when unreadable. */
void sysinfo_cpuidle(char *driver, size_t dlen, char *governor, size_t glen);
/* "emulation": kind or null, "emulation_evidence": [what each witness saw]. */
void emulation_json(struct json *j, const struct emulation *e);
/* The first line of a command's text report: "clockscope CMD: arch, CPU, Linux kernel,
 * clocksource X, virtualization Y". */
void sysinfo_print_header(FILE *out, const char *cmd, const struct sysinfo *s);

#endif
