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

#include "run/run_reader_abi.h"
#include "run/run_trace.h"
#include "vdso/vdso_elf.h"

/* Why a program is not patched (RUN_VPATCH_OK: it is). */
enum run_vpatch_result {
    RUN_VPATCH_OK,
    RUN_VPATCH_UNSUPPORTED,    /* this arch, or no reader built */
    RUN_VPATCH_NO_VDSO,        /* the kernel mapped none: every read is a syscall anyway */
    RUN_VPATCH_UNKNOWN_LAYOUT, /* not an ELF we can read, or no clock_gettime entry */
    RUN_VPATCH_TOO_SMALL,      /* an entry point shorter than the jump, or overlapping another */
    RUN_VPATCH_TRACE_FAILED,   /* ptrace or /proc/PID/mem failed (lockdown, ...) */
    RUN_VPATCH_ALREADY,        /* its entry points already jump (served before) */
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
                                       size_t *nsites, char *why, size_t whylen);

/* Where the reader's region is asked for (an mmap hint): near the vDSO at vdso_base, so
 * that a direct jump reaches it from every entry point. */
#define RUN_VPATCH_HINT_GAP (1ull << 20)
uint64_t run_vpatch_region_hint(uint64_t vdso_base);

/* The jump written at `at` (an entry point) to target: the arch's direct jump where it
 * reaches (x86_64: jmp rel32, 5 bytes, no register), else its absolute one (movabs+jmp *%r11,
 * 13 bytes; the plan checks every site for this longer one).  Its length. */
size_t run_vpatch_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target);

/* The tracee's vDSO: where, a copy of its bytes (malloc'ed, the caller frees image), and
 * the plan.  RUN_VPATCH_OK, or why not in how. */
struct run_vpatch_target {
    uint64_t base;
    size_t size;
    uint8_t *image;
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t nsites;
};
enum run_vpatch_result run_vpatch_read(pid_t pid, struct run_vpatch_target *t, char *how, size_t hl);
/* The reader's region a patched clock_gettime entry jumps to (from the jump's operand). */
bool run_vpatch_region_of(const struct run_vpatch_target *t, uint64_t *region);

/* A running process (run -p) has no descriptor of the data pages' memfd: run_vpatch creates
 * one in it (memfd_create) and hands its number to adopt, which opens it through
 * /proc/PID/fd/N (as root may across users and PID namespaces, where the process could not
 * open a helper's) and moves the helper's pages into it; false with the reason. */
struct run_vpatch_share {
    bool (*adopt)(pid_t pid, long fd_in_target, void *ctx, char *why, size_t whylen);
    void *ctx;
};

/* Patches the stopped tracee.  memfd_in_target is the data page's memfd as numbered in the
 * tracee (inherited through exec; closed in it here), or -1 and share (run -p, above).  On RUN_VPATCH_OK, `how` says what was
 * patched; otherwise it says why not, and the tracee is left as it was.  Signals the
 * thread dequeued meanwhile are kept in *taken, for run_trace_detach_giving_back.  heal:
 * the syscalls run through run -p's self-healing stub (run_heal_begin done; the caller
 * ends it), or NULL: from the syscall instruction written over clock_gettime's entry (the
 * exec stop, where the program dies with run: PTRACE_O_EXITKILL).  first: the process
 * page's contents as run_page_process found them, written before the jumps (NULL: left
 * zero, and the process learns them at its first read). */
struct run_heal;
struct run_process_page;
enum run_vpatch_result run_vpatch(pid_t pid, int memfd_in_target,
                                  const struct run_vpatch_share *share,
                                  const struct run_process_page *first, char *how, size_t hl,
                                  struct run_trace_signals *taken, struct run_heal *heal);
/* The bytes of a vDSO image past everything its ELF headers describe, to the end of its
 * last page: zeros nobody reads or executes, where run -p's self-healing step is written
 * (run/run_heal.h).  false when the headers are malformed or nothing is left. */
bool run_vpatch_scratch(const uint8_t *image, size_t size, uint64_t *off, size_t *room);

#endif
