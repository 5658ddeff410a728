/* SPDX-License-Identifier: MIT */
/* The parts of a bundle: each is one clockscope command run with --json.  A new command
 * joins collect by adding one row to the table in parts.c. */
#ifndef CLOCKSCOPE_COLLECT_PARTS_H
#define CLOCKSCOPE_COLLECT_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#define PART_MAX_ARGS 12

struct collect_config {
    bool quick;                 /* bench --quick, a shorter warp */
    double warp_seconds;
    double timeout_s;           /* per-part deadline; 0: each part's own */
};

struct part {
    const char *name;           /* the command, and the part's key in the bundle */
    const char *what;           /* shown in the progress line */
    double timeout_s;           /* default deadline: generous, a TCG guest is slow */
    /* Appends the part's options after "NAME --json"; returns the new argc. */
    int (*options)(const struct collect_config *cfg, char **argv, int argc, char *buf,
                   size_t buflen);
};

extern const struct part collect_parts[];
extern const size_t collect_nparts;

/* Whether a part runs only when --parts names it (profile: it needs perf, which most
 * machines lack; a default bundle must not fail for want of it). */
bool part_on_request(const struct part *p);

/* The part named name, or NULL. */
const struct part *part_find(const char *name);

/* Fills argv (PART_MAX_ARGS + 1 slots, NULL-terminated) to run part p with program;
 * buf holds option values. */
void part_argv(const struct part *p, const struct collect_config *cfg, const char *program,
               char **argv, char *buf, size_t buflen);

#endif
