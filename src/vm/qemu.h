/* SPDX-License-Identifier: MIT */
/* Booting one guest under qemu-system and reading its console until the command ends. */
#ifndef CLOCKSCOPE_VM_QEMU_H
#define CLOCKSCOPE_VM_QEMU_H

#include "common/message.h"
#include "vm/vm_arch.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* The command's stdout kept in memory as it arrives (vm --apply-fix reads the guest
 * doctor's JSON), and relayed to ours too when `relay`.  At most cap bytes are kept; more
 * sets `overflow`. */
struct vm_capture {
    char *buf;
    size_t len, cap;
    bool relay, overflow;
};

struct vm_boot {
    const struct vm_arch *arch;
    const struct vm_machine *machine; /* the QEMU machine model (vm_machine_find) */
    const char *dtb;     /* a device tree to boot with (-dtb), or NULL: QEMU's own */
    const char *kernel;
    const char *initrd;
    const char *append;  /* the user's kernel arguments, added after ours; may be NULL */
    unsigned cpus;
    unsigned memory_mb;
    bool kvm;
    double timeout_s;    /* from starting qemu to the command's exit status */
    double init_deadline_s; /* when > 0: give up if /init has not started by then */
    struct vm_capture *capture; /* NULL: the command's stdout goes to ours */
};

enum vm_outcome {
    VM_DONE,        /* the command ran; exit_code is its status */
    VM_QEMU_FAILED, /* qemu exited without booting the guest (qemu_stderr says why) */
    VM_PANIC,       /* the kernel panicked (panic_line) */
    VM_TIMEOUT,     /* killed at the timeout */
    VM_STOPPED,     /* the guest stopped without reporting an exit status */
    VM_FRAMING,     /* the console frames were corrupt: the output is not complete */
    VM_INIT_LATE,   /* /init had not started by init_deadline_s */
    VM_INTERRUPTED, /* a signal asked us to stop */
};

struct vm_result {
    enum vm_outcome outcome;
    int exit_code;
    bool console_output;   /* the guest printed anything at all */
    bool init_started;     /* our /init ran */
    double init_s;         /* from starting qemu to /init running */
    double run_s;          /* from /init running to the exit status */
    char qemu_stderr[MSG_TEXT];
    char console_tail[MSG_TEXT]; /* the last console lines that were not frames */
    char panic_line[MSG_LINE];
    char framing_error[MSG_LINE];
    char fix_refused[MSG_REASON]; /* vm --apply-fix: why the guest refused a sysfs write, or "" */
};

/* qemu's command line for b; with dumpdtb, one that makes qemu write the machine's device
 * tree to that file and exit (-machine NAME,dumpdtb=FILE), with everything else the same
 * (CPUs and memory shape the tree).  The strings live in *a. */
struct qemu_args {
    char smp[16], mem[16], append[2048], accel[16], machine[4200];
    char *argv[40];
};
void vm_qemu_args(const struct vm_boot *b, const char *dumpdtb, struct qemu_args *a);

/* Set by the caller's signal handler: the console loop kills qemu and returns. */
extern volatile sig_atomic_t vm_stop_requested; /* the signal that asked for it, or 0 */

/* CLOCK_MONOTONIC in seconds: the boot's timings and deadlines. */
double vm_now_s(void);

/* Boots the guest with the command's stdout/stderr relayed to ours as it arrives.  qemu
 * runs in its own process group and is always killed and reaped before this returns. */
void vm_boot_run(const struct vm_boot *b, struct vm_result *r);

#endif
