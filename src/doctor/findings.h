/* SPDX-License-Identifier: MIT */
/* Building findings: small helpers so that rules read as what they check. */
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

#endif
