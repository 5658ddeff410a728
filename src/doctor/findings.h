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
/* Fixes as data, each with the risk its text states (NULL for cmdline's add or remove:
 * none; the words are space-separated).  Beyond FINDING_ACTION_MAX they are dropped. */
void finding_action_sysfs(struct finding *f, const char *path, const char *value, const char *risk);
void finding_action_cmdline(struct finding *f, const char *add, const char *remove, const char *risk);
void finding_action_run(struct finding *f, const char *mode, const char *risk);
void finding_action_code(struct finding *f, const char *text, const char *risk);
void finding_action_firmware(struct finding *f, const char *text, const char *risk);
const char *action_kind_name(enum action_kind k);
/* Whether two actions do the same thing (the risk aside). */
bool action_same(const struct finding_action *a, const struct finding_action *b);
/* The action as one command line a person can paste ("echo tsc | sudo tee ...", "sudo
 * grubby --update-kernel=ALL --args=clocksource=tsc" for the kernel command line), or ""
 * for code and firmware. */
void action_command_line(const struct finding_action *a, char *buf, size_t len);
/* Every finding's actions merged, each once (the first finding that offers it), in the
 * order the doctor recommends them: what applies now without a reboot (sysfs), then at the
 * next boot (cmdline), to one program (run), in the code, and what clockscope cannot apply
 * (firmware); within a kind, the more severe finding first, then the doctor's order.
 * Returns how many (at most max). */
struct ranked_action {
    const struct finding_action *action;
    const struct finding *finding;
};
int diagnosis_actions(const struct diagnosis *d, struct ranked_action *out, int max);
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
