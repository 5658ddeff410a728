/* SPDX-License-Identifier: MIT */
/* Serving a program through its vDSO (docs/run.md, "Static and Go programs"): at the exec
 * stop, map the reader's code and the shared data page into the tracee and overwrite the
 * vDSO's clock entry points with a jump to the reader. */
#ifndef CLOCKSCOPE_RUN_VPATCH_H
#define CLOCKSCOPE_RUN_VPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vdso/vdso_elf.h"

/* Why a program is not patched (RUN_VPATCH_OK: it is). */
enum run_vpatch_result {
    RUN_VPATCH_OK,
    RUN_VPATCH_UNSUPPORTED,    /* this arch, or no reader built */
    RUN_VPATCH_NO_VDSO,        /* the kernel mapped none: every read is a syscall anyway */
    RUN_VPATCH_UNKNOWN_LAYOUT, /* not an ELF we can read, or no clock_gettime entry */
    RUN_VPATCH_TOO_SMALL,      /* an entry point shorter than the jump, or overlapping another */
    RUN_VPATCH_TRACE_FAILED,   /* ptrace or /proc/PID/mem failed (lockdown, ...) */
};

/* One entry point to overwrite: its offset in the image and the reader's offset it jumps to. */
struct run_vpatch_site {
    const char *name;
    uint64_t offset, size;
    unsigned entry; /* enum run_entry */
    size_t jump_len; /* the jump's length at this offset (it may depend on its alignment) */
};

/* The plan for one vDSO image, decided without touching the tracee (unit-tested on
 * images read from this process and on doctored copies).  Returns RUN_VPATCH_OK with
 * the sites, or a reason in why. */
enum run_vpatch_result run_vpatch_plan(const struct vdso_image *img, struct run_vpatch_site *sites,
                                       size_t *nsites, char *why, size_t wl);

/* Patches the stopped tracee.  memfd_in_target is the data page's memfd as numbered in the
 * tracee (inherited through exec; closed in it here).  On RUN_VPATCH_OK, `how` says what was
 * patched; otherwise it says why not, and the tracee is left as it was.  A signal that came
 * meanwhile is put in *pending_sig for the detach. */
enum run_vpatch_result run_vpatch(pid_t pid, int memfd_in_target, char *how, size_t hl,
                                  int *pending_sig);

#endif
