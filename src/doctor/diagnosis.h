/* The doctor's answer: a verdict, whether CLOCK_MONOTONIC has a fast path, and findings
 * that each carry their evidence, meaning and fix. */
#ifndef CLOCKSCOPE_DIAGNOSIS_H
#define CLOCKSCOPE_DIAGNOSIS_H

#include "facts/logscan.h"
#include "doctor/proof.h"
#include "facts/cpuinfo.h"
#include "facts/facts.h"
#include "facts/kernel_text.h"

#include <stdbool.h>

#define FINDINGS_MAX 24
#define FINDING_EVIDENCE_MAX 8
#define FINDING_FIX_MAX 6

enum severity {
    SEV_INFO,     /* context, nothing to do */
    SEV_NOTICE,   /* worth knowing; not what makes reads slow here */
    SEV_WARNING,  /* makes time reads slow */
    SEV_CRITICAL, /* makes time reads fail or go wrong */
};

struct finding {
    char id[48];
    enum severity severity;
    char title[200];
    int nevidence;
    char evidence[FINDING_EVIDENCE_MAX][KLOG_LINE_MAX + 96];
    char meaning[900];
    int nfix;
    char fix[FINDING_FIX_MAX][480];
    char gain[240];
};

enum verdict { V_OK, V_SLOW, V_BROKEN, V_UNKNOWN };

/* What the rules derived from the facts before judging. */
struct context {
    char family[8];            /* "x86", "arm64", "arm32", "riscv" or "" */
    char machine[16];
    char family_source[64];
    struct kernel_version kernel;
    char kernel_source[64];
    char current_cs[64];       /* "" unknown */
    char current_cs_source[96];
    char available_cs[256];    /* "" unknown */
    char virt[64];             /* "none", a hypervisor name, or "" unknown */
    char virt_source[96];
    char cmdline[2048];        /* /proc/cmdline, else the log's "Kernel command line:" */
    char cmdline_source[64];
    int kvm_stable_bit;        /* clockscope/cpu kvm_clock_stable_bit: 1, 0, -1 not known */
    struct cpuinfo cpu;
    struct logscan log;
};

struct diagnosis {
    enum verdict verdict;
    int fast_path;             /* 1 yes, 0 no, -1 not known */
    char summary[400];         /* one sentence: why this verdict */
    bool decided_by_proof;
    struct context ctx;
    int nfindings;
    struct finding findings[FINDINGS_MAX];
};

const char *verdict_name(enum verdict v);
const char *severity_name(enum severity s);
/* Runs every rule on the facts (and on the proof when p->ran). */
void diagnose(const struct facts *fs, const struct proof *p, struct diagnosis *d);

#endif
