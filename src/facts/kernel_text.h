/* SPDX-License-Identifier: MIT */
/* Small parsers for what the kernel says about itself: the command line, the version and
 * the machine name.  Each takes foreign text and trusts nothing in it. */
#ifndef CLOCKSCOPE_KERNEL_TEXT_H
#define CLOCKSCOPE_KERNEL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The value of the LAST occurrence of `key` on the command line (the kernel's __setup
 * handlers run in order, so the last one wins).  A bare flag ("notsc") gives value "".
 * Quotes ("key=\"a b\"") are honoured.  Returns false when absent. */
bool cmdline_param(const char *cmdline, const char *key, char *value, size_t len);

struct kernel_version {
    bool known;
    int major, minor, patch;
    char release[96];       /* the release string as given, e.g. "5.10.0-18-amd64" */
};
/* From "Linux version 5.10.0-18-amd64 (...)", a `uname -a` line or a bare release. */
void kernel_version_parse(const char *text, struct kernel_version *out);
/* -1, 0, 1 comparing v with major.minor; unknown versions compare as 0 (callers check known). */
int kernel_version_cmp(const struct kernel_version *v, int major, int minor);

/* The machine name in `uname -m` terms from "x86_64" or a whole `uname -a` line; "" if none. */
void machine_name_parse(const char *text, char *out, size_t len);
/* "x86", "arm64", "arm32", "riscv" or "" for a machine name. */
const char *machine_family(const char *machine);

#endif
