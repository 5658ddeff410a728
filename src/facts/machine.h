/* SPDX-License-Identifier: MIT */
/* The one model of the machine: what the facts (live or from a facts root) say about its
 * architecture, kernel, clocksource, virtualization, command line, CPU, counter and kernel
 * log, each with the witness it came from.  Every consumer reads the machine through this:
 * the doctor's rules, the header of bench and warp (facts/sysinfo), and nobody re-parses the
 * raw fact text behind it.  Which reader answers each fact: docs/ARCHITECTURE.md. */
#ifndef CLOCKSCOPE_MACHINE_H
#define CLOCKSCOPE_MACHINE_H

#include "common/message.h"
#include "facts/cpuinfo.h"
#include "facts/emulation.h"
#include "facts/facts.h"
#include "facts/kernel_text.h"
#include "facts/logscan.h"

#include <stdbool.h>

#define MACHINE_COUNTER_READS 8

enum vdso_state { VDSO_UNKNOWN, VDSO_ABSENT, VDSO_NO_CLOCK_GETTIME, VDSO_HAS_CLOCK_GETTIME };

/* The hardware counter as the CPU states it (the clockscope/cpu and clockscope/vdso facts). */
struct counter_facts {
    bool known;                /* the clockscope/cpu fact was read */
    char hz[24];               /* stated frequency in Hz as text, "" not stated */
    char hz_source[128];
    int invariant;             /* constant-rate counter: 1, 0, -1 not known */
    int kvm_stable_bit;        /* KVM's kvm-clock stable bit: 1, 0, -1 not known */
    int nreads;                /* user-space reads probed: "name=permitted" or "name=why" */
    char reads[MACHINE_COUNTER_READS][304];
    char perf_user_access[64]; /* kernel.perf_user_access, "" not known */
    enum vdso_state vdso;
};

struct machine {
    char family[8];            /* "x86", "arm64", "arm32", "riscv" or "" */
    char machine[16];
    char family_source[64];
    struct kernel_version kernel;
    char kernel_source[64];
    char current_cs[64];       /* "" unknown */
    char current_cs_source[96];
    char current_cs_unreadable[MSG_LINE]; /* why current_clocksource could not be read, "" else */
    char log_unreadable[MSG_LINE]; /* why the kernel log could not be read, "" else */
    char available_cs[256];    /* "" unknown */
    char virt[64];             /* "none", a hypervisor name, or "" unknown */
    char virt_source[96];
    struct emulation emulation; /* an emulated CPU (QEMU TCG): kind "" when none seen */
    char cmdline[2048];        /* /proc/cmdline, else the log's "Kernel command line:" */
    char cmdline_source[64];
    int kvm_stable_bit;        /* = counter.kvm_stable_bit */
    struct cpuinfo cpu;
    char cpu_description[128]; /* machine_cpu_description(), "" not known */
    struct counter_facts counter;
    struct logscan log;
};

/* Derives the model from facts: each fact from its most direct witness to the least. */
void machine_derive(const struct facts *fs, struct machine *m);
bool machine_is_vm(const struct machine *m);
bool machine_is_bare_metal(const struct machine *m);
/* Whether name is a word of available_clocksource. */
bool machine_cs_available(const struct machine *m, const char *name);
/* A one-line description of the CPU from /proc/cpuinfo ("model name", else uarch or
 * Hardware, else "CPU part X", else the riscv isa), "" when none. */
void machine_cpu_description(const struct machine *m, char *out, size_t len);

#endif
