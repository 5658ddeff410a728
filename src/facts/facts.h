/* SPDX-License-Identifier: MIT */
/* Everything the doctor reasons from, read either from the live machine or from a facts
 * root (a directory laid out like the part of a Linux file system the doctor reads; the
 * layout is in docs/doctor.md, "Facts-root layout").
 * The same rules run on both: a fact is text plus a status, and a missing fact means
 * "not known", never "absent". */
#ifndef CLOCKSCOPE_FACTS_H
#define CLOCKSCOPE_FACTS_H

#include "facts/reader.h"

#include <stdbool.h>

/* The facts, by their path in a facts root. */
enum fact_id {
    F_CURRENT_CS,      /* sys/devices/system/clocksource/clocksource0/current_clocksource */
    F_AVAILABLE_CS,    /* .../available_clocksource */
    F_CPUINFO,         /* proc/cpuinfo */
    F_CMDLINE,         /* proc/cmdline */
    F_VERSION,         /* proc/version */
    F_HYPERVISOR,      /* sys/hypervisor/type */
    F_DMESG,           /* dmesg (or sos_commands/kernel/dmesg) */
    F_UNAME,           /* uname (or sos_commands/kernel/uname_-a) */
    F_VIRT,            /* virt: systemd-detect-virt's answer */
    F_DMI_VENDOR,      /* sys/class/dmi/id/sys_vendor */
    F_DMI_PRODUCT,     /* sys/class/dmi/id/product_name */
    F_PERF_USER,       /* proc/sys/kernel/perf_user_access (riscv, arm64) */
    F_CPU,             /* clockscope/cpu: key=value lines from the CPU itself (CPUID, CNTFRQ) */
    F_VDSO,            /* clockscope/vdso: the vDSO's exported symbols, one a line */
    F_DT_HYPERVISOR,   /* proc/device-tree/hypervisor/compatible (arm, riscv guests) */
    F_DT_COMPATIBLE,   /* proc/device-tree/compatible: the board (QEMU's virt, ...) */
    F_COUNT
};

struct facts {
    bool live;
    char origin[4096];            /* "live" or the root directory */
    struct fact f[F_COUNT];
    char notes[8][200];           /* how facts were gathered (kernel log source, caps...) */
    int nnotes;
};

/* Caps: a kernel log beyond this keeps its head and tail; other files are small. */
#define FACTS_LOG_CAP (16u << 20)
#define FACTS_FILE_CAP (256u << 10)

const char *fact_path(enum fact_id id);
/* Where else a facts root may keep it (an unpacked sosreport), NULL-terminated. */
const char *const *fact_alt_paths(enum fact_id id);
/* Reads a facts root.  Returns false with why filled when root is not a readable directory. */
bool facts_load_root(const char *root, struct facts *out, char *why, size_t whylen);
/* Reads the live machine, within a time budget for the slow sources (journalctl,
 * systemd-detect-virt), never blocking on any of them. */
void facts_load_live(struct facts *out);
/* The facts a command's header needs (clocksource, cpuinfo, version, uname, CPUID,
 * hypervisor witnesses): no kernel log, no subprocess, no vDSO; the rest stay "not known". */
void facts_load_live_quick(struct facts *out);
/* The live kernel log, the one way clockscope reads it: /dev/kmsg without blocking (records
 * become "[seconds] message" lines), else syslog(2), else `journalctl -k -b` within
 * journal_timeout_ms.  Returns it malloc'ed (NUL-terminated, *len bytes, at most about
 * FACTS_LOG_CAP) with *source naming where it came from; or NULL, *source NULL and why
 * saying why each way failed.  Lines are read with klog_iter (facts/klog.h). */
/* (journal_timeout_ms <= 0: only the sources that answer at once, /dev/kmsg and syslog(2).) */
char *facts_read_kernel_log(int journal_timeout_ms, size_t *len, const char **source, char *why,
                            size_t whylen);
void facts_free(struct facts *fs);
void facts_note(struct facts *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value of "key=" in the F_CPU fact, or "" */
const char *facts_cpu_value(const struct facts *fs, const char *key, char *buf, size_t len);

/* Writes fs into dir in the facts-root layout.  dir must be absent or empty unless force.
 * Returns false with why filled. */
bool facts_save(const struct facts *fs, const char *dir, bool force, char *why, size_t whylen);

#endif
