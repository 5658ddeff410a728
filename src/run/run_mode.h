/* SPDX-License-Identifier: MIT */
/* `clockscope run --mode` values: auto | fast | count | coarse[=CLOCKS], where CLOCKS is a
 * comma-separated list of realtime, monotonic (the clocks with a *_COARSE twin), with or
 * without a CLOCK_ prefix, any case.  "coarse" alone means both. */
#ifndef CLOCKSCOPE_RUN_MODE_H
#define CLOCKSCOPE_RUN_MODE_H

#include <stdbool.h>
#include <stddef.h>

struct run_mode {
    char name[8];          /* "auto", "fast", "coarse", "count": the shim's CLOCKSCOPE_RUN_MODE */
    unsigned coarse_mask;  /* coarse: bit (1 << clock id) per clock answered from its twin */
};

/* False on anything else, with a message in err. */
bool run_parse_mode(const char *arg, struct run_mode *out, char *err, size_t errlen);

#endif
