/* SPDX-License-Identifier: MIT */
/* /proc/cpuinfo, on any architecture: the keys the doctor uses, from the first processor
 * block that has them.  x86: vendor_id, model name, flags; arm: Features, CPU implementer,
 * CPU part, Hardware; riscv: isa, mmu, uarch, mvendorid. */
#ifndef CLOCKSCOPE_CPUINFO_H
#define CLOCKSCOPE_CPUINFO_H

#include <stdbool.h>
#include <stddef.h>

struct cpuinfo {
    bool parsed;            /* at least one "key : value" line */
    int processors;         /* "processor" lines (x86/arm) or "hart" lines (riscv) */
    char family[8];         /* "x86", "arm", "riscv" or "" from the keys present */
    char vendor[32];        /* vendor_id / CPU implementer / mvendorid */
    char model[128];        /* model name / cpu model / CPU part */
    char model_name[128];   /* "model name" alone (x86, some arm) */
    char part[32];          /* arm "CPU part" */
    char flags[4096];       /* x86 flags, arm Features, riscv isa (+ isa extensions) */
    char hardware[96];      /* arm Hardware, riscv uarch or mmu */
};

void cpuinfo_parse(const char *text, size_t len, struct cpuinfo *out);
/* Whether the whitespace-separated word appears in flags (x86 flags, arm Features). */
bool cpuinfo_has_flag(const struct cpuinfo *c, const char *flag);

#endif
