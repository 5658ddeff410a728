/* SPDX-License-Identifier: MIT */
/* The doctor's answer: a verdict, whether CLOCK_MONOTONIC has a fast path, and findings
 * that each carry their evidence, meaning and fix. */
#ifndef CLOCKSCOPE_DIAGNOSIS_H
#define CLOCKSCOPE_DIAGNOSIS_H

#include "common/message.h"
#include "doctor/proof.h"
#include "facts/machine.h"

#include <stdbool.h>

#define FINDINGS_MAX 24
#define FINDING_EVIDENCE_MAX 8
#define FINDING_FIX_MAX 6
#define FINDING_ACTION_MAX 6
#define ACTION_WORDS_MAX 4

enum severity {
    SEV_INFO,     /* context, nothing to do */
    SEV_NOTICE,   /* worth knowing; not what makes reads slow here */
    SEV_WARNING,  /* makes time reads slow */
    SEV_CRITICAL, /* makes time reads fail or go wrong */
};

/* A fix as data (docs/json.md, "actions"): what `vm --apply-fix` and people apply. */
enum action_kind {
    ACT_SYSFS,    /* write value to path: no reboot */
    ACT_CMDLINE,  /* add / remove kernel command-line parameters, then reboot */
    ACT_RUN,      /* run the program under `clockscope run --mode MODE --` */
    ACT_CODE,     /* an application change (text) */
    ACT_FIRMWARE, /* firmware, hardware, hypervisor or kernel: nothing clockscope applies */
};

struct finding_action {
    enum action_kind kind;
    char risk[200];                          /* the same risk the fix's text states */
    char path[96], value[32];                /* sysfs */
    int nadd, nremove;                       /* cmdline */
    char add[ACTION_WORDS_MAX][48], remove[ACTION_WORDS_MAX][48];
    char mode[16];                           /* run: the --mode */
    char text[MSG_REASON];                   /* code, firmware */
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
    int naction;                             /* in the doctor's order of preference */
    struct finding_action action[FINDING_ACTION_MAX];
};

enum verdict { V_OK, V_SLOW, V_BROKEN, V_UNKNOWN };

struct diagnosis {
    enum verdict verdict;
    int fast_path;             /* 1 yes, 0 no, -1 not known */
    char summary[MSG_REASON];  /* one sentence: why this verdict */
    bool decided_by_proof;
    bool inferred;             /* the most likely verdict, not a decided one */
    char missing[240];         /* when inferred: the fact that would decide it */
    struct machine machine;    /* the machine model the rules judge */
    bool counter_traps;        /* the counter the vDSO reads traps (timed live, or the core's) */
    char trap_counter[24];     /* ... which ("rdtime", "cntvct_el0") */
    double trap_ns;            /* ... one read's cost when timed, 0 when not */
    int nfindings;
    struct finding findings[FINDINGS_MAX];
};

const char *verdict_name(enum verdict v);
const char *severity_name(enum severity s);
/* Runs every rule on the facts (and on the proof when p->ran). */
void diagnose(const struct facts *fs, const struct proof *p, struct diagnosis *d);

#endif
