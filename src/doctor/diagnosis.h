/* SPDX-License-Identifier: MIT */
/* The doctor's answer: a verdict, whether CLOCK_MONOTONIC has a fast path, and findings
 * that each carry their evidence, meaning and fix. */
#ifndef CLOCKSCOPE_DIAGNOSIS_H
#define CLOCKSCOPE_DIAGNOSIS_H

#include "doctor/proof.h"
#include "facts/machine.h"

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

struct diagnosis {
    enum verdict verdict;
    int fast_path;             /* 1 yes, 0 no, -1 not known */
    char summary[400];         /* one sentence: why this verdict */
    bool decided_by_proof;
    bool inferred;             /* the most likely verdict, not a decided one */
    char missing[240];         /* when inferred: the fact that would decide it */
    struct machine machine;    /* the machine model the rules judge */
    int nfindings;
    struct finding findings[FINDINGS_MAX];
};

const char *verdict_name(enum verdict v);
const char *severity_name(enum severity s);
/* Runs every rule on the facts (and on the proof when p->ran). */
void diagnose(const struct facts *fs, const struct proof *p, struct diagnosis *d);

#endif
