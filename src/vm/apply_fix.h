/* SPDX-License-Identifier: MIT */
/* vm --apply-fix: boot the scenario, read the doctor's recommended actions (its --json
 * "actions" list, first = recommended), apply the first one the guest allows, run the
 * command under it, and show the doctor's figures before and after (docs/vm.md). */
#ifndef CLOCKSCOPE_VM_APPLY_FIX_H
#define CLOCKSCOPE_VM_APPLY_FIX_H

#include "vm/guest_files.h"
#include "vm/qemu.h"

#include <stdbool.h>
#include <stddef.h>

/* vm's own way of booting a guest and saying what became of it (vm_cmd.c): opaque here,
 * given back to run_boot and report_failure. */
struct vm_boot_policy;

struct fix_context {
    const char *scenario;       /* its name, for the report */
    const char *binary;         /* the static guest clockscope */
    const struct guest_files *files;
    const char *env;            /* --env strings, NUL-terminated each */
    size_t env_size;
    struct vm_boot boot;        /* kernel, machine, tree, CPUs, memory, timeout, command line */
    bool json;                  /* --json: one JSON document on stdout, nothing else there */
    const struct vm_boot_policy *policy;
    /* Boots b (KVM or TCG, with vm's notes); the result in r. */
    void (*run_boot)(const struct vm_boot_policy *p, struct vm_boot *b, struct vm_result *r);
    /* vm's message and exit status for a boot that did not end in the command's status. */
    int (*report_failure)(const struct vm_boot_policy *p, const struct vm_boot *b,
                          const struct vm_result *r);
};

/* Runs the whole --apply-fix sequence for the command argv[0..argc); returns vm's exit
 * status: the command's own (in the fixed guest), 1 when no action of the doctor applies
 * in the guest, 125 when a guest failed or the doctor's output cannot be read. */
int apply_fix_run(const struct fix_context *ctx, int argc, char **argv);

/* The kernel command line after a cmdline action: `base`'s words minus every word in
 * remove[], then add[] (each once); false when it would not fit in len. */
bool apply_fix_cmdline(const char *base, const char *const *remove, size_t n_remove,
                       const char *const *add, size_t n_add, char *out, size_t len);

/* Why a run action has no "after" from the doctor, from what its command did: the
 * action changes only the program it wraps, so the command's own output is the
 * measurement; a command run could not start (127 not found, 126 not executable) is said
 * as such. */
void apply_fix_run_after_why(int command_status, const char *command, char *out, size_t len);

#endif
