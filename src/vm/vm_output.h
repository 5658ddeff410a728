/* SPDX-License-Identifier: MIT */
/* What `clockscope vm` says on stderr: the notes about each boot and scenario, and how a
 * boot ended, with the console tail when it failed. */
#ifndef CLOCKSCOPE_VM_OUTPUT_H
#define CLOCKSCOPE_VM_OUTPUT_H

#include "vm/qemu.h"
#include "vm/scenarios.h"

#include <stdbool.h>

/* How the boot ended, said on stderr (unless it ran the command and `quiet`), and vm's
 * exit status for it: the command's own, 125 the VM failed, 128+N stopped by signal N. */
int vm_report(const struct vm_boot *b, const struct vm_result *r, bool quiet);

/* The note before a boot attempt: arch, kernel (desc), vCPUs, memory, KVM or TCG; with
 * `tcg_why`, the note that TCG timings are emulation timings, and why not KVM (kvm_why). */
void vm_note_boot(const struct vm_boot *b, const char *desc, bool tcg_why, const char *kvm_why);

/* The note that scenario s boots with its device-tree property. */
void vm_note_scenario_tree(const struct vm_scenario *s);

/* The note naming scenario s, its machine, its kernel command line (append, or NULL) and
 * the doctor's verdict expected in it. */
void vm_note_scenario(const struct vm_scenario *s, const char *machine, const char *append);

/* One of vm's own notes on stderr, "clockscope vm: " then the formatted text, wrapped
 * within 100 columns under a hanging indent (a command in `backquotes` kept whole); a
 * line of the text indented 4 (a command to paste) stands as it is. */
void vm_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
