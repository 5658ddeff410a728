/* SPDX-License-Identifier: MIT */
/* `clockscope run --mode` values: auto | fast | count | coarse[=CLOCKS], where CLOCKS is a
 * comma-separated list of realtime, monotonic (the clocks with a *_COARSE twin), with or
 * without a CLOCK_ prefix, any case.  "coarse" alone means both. */
#ifndef CLOCKSCOPE_RUN_MODE_H
#define CLOCKSCOPE_RUN_MODE_H

#include <stdbool.h>
#include <stddef.h>

enum run_mode_kind { RUN_MODE_AUTO, RUN_MODE_FAST, RUN_MODE_COARSE, RUN_MODE_COUNT };

struct run_mode {
    enum run_mode_kind kind;
    unsigned coarse_mask;  /* coarse: bit (1 << clock id) per clock answered from its twin */
};

/* False on anything else, with a message in err. */
bool run_parse_mode(const char *arg, struct run_mode *out, char *why, size_t whylen);

/* "auto", "fast", "coarse", "count": the shim's CLOCKSCOPE_RUN_MODE. */
const char *run_mode_name(enum run_mode_kind kind);

/* Whether mode can be served through a patched vDSO (static and Go programs, run -p):
 * not coarse, whose clocks the reader cannot reach.  False with the reason in why: "--mode
 * coarse is not offered through the vDSO", followed with `detail` by its cause and what to
 * use instead. */
bool run_mode_vdso_servable(const struct run_mode *mode, bool detail, char *why, size_t whylen);

#endif
