/* SPDX-License-Identifier: MIT */
/* The Prometheus text exposition format, restricted to what node_exporter's textfile
 * collector accepts: the classic text format (no "# UNIT", no "# EOF"), only the gauge and
 * counter types (a file with an "info" or "stateset" type is rejected whole), no sample
 * timestamps (a file with one is rejected whole), each family's samples together under one
 * HELP and one TYPE line.
 *
 * The writer builds the whole text in memory, so that a file is written in one piece (see
 * textfile.h) and an invalid name is refused before anything is written: prom_* calls
 * after an error do nothing, and prom_error() says what the first error was. */
#ifndef CLOCKSCOPE_EXPOSITION_H
#define CLOCKSCOPE_EXPOSITION_H

#include <stdbool.h>
#include <stddef.h>

#include "common/message.h"

enum prom_type { PROM_GAUGE, PROM_COUNTER };

#define PROM_MAX_FAMILIES 64

struct prom {
    char *text;
    size_t len, cap;
    char error[MSG_LINE];
    /* The family whose samples are being written (a sample names its family's name, plus
     * "_total" for a counter), and every family begun so far: a name twice is an error. */
    char family[128];
    enum prom_type type;
    char families[PROM_MAX_FAMILIES][128];
    int nfamilies;
    int nsamples;  /* samples of the current family */
    size_t family_start; /* where its first sample begins */
};

/* A label: name and value (any UTF-8 text: escaped here). */
struct prom_label {
    const char *name, *value;
};

void prom_init(struct prom *p);
void prom_free(struct prom *p);
/* Begins a family.  A counter's name must end in "_total" (its samples carry it too); a
 * gauge's must not.  Names must match [a-zA-Z_:][a-zA-Z0-9_:]*.  help is one line of text. */
void prom_family(struct prom *p, const char *name, enum prom_type type, const char *help);
/* One sample of the current family, with n labels (names [a-zA-Z_][a-zA-Z0-9_]*, none
 * starting with "__", none twice).  NaN and infinities are written as Prometheus spells them. */
void prom_sample(struct prom *p, const struct prom_label *labels, int n, double value);
/* NULL when everything written so far is valid, else the first error. */
const char *prom_error(const struct prom *p);

/* Whether name is a valid metric name / label name (exported for the tests). */
bool prom_metric_name_ok(const char *name);
bool prom_label_name_ok(const char *name);

#endif
