/* SPDX-License-Identifier: MIT */
/* Building findings (the rules' side) and setting the verdict (verdict.c's side): small
 * helpers so that rules read as what they check.  Nothing here calls back into a rule or
 * the verdict. */
#ifndef CLOCKSCOPE_FINDINGS_H
#define CLOCKSCOPE_FINDINGS_H

#include "doctor/diagnosis.h"

struct finding *finding_add(struct diagnosis *d, const char *id, enum severity sev,
                            const char *title_fmt, ...) __attribute__((format(printf, 4, 5)));
void finding_evidence(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_meaning(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_fix(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_gain(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds an event's log lines as evidence ("dmesg:123: <line>"). */
void finding_log_evidence(struct finding *f, const struct log_event *e);
/* "8996.1 s (2.5 h) after boot" or "" when the time is not known. */
const char *when_after_boot(double ts, char *buf, size_t len);
/* The finding with this id, or NULL. */
const struct finding *finding_find(const struct diagnosis *d, const char *id);

/* A decided verdict with its one-sentence reason. */
void set_verdict(struct diagnosis *d, enum verdict v, int fast_path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The most likely verdict where a fact is missing: labelled inferred, the fact named. */
void set_inferred(struct diagnosis *d, enum verdict v, int fast_path, const char *missing,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
