/* SPDX-License-Identifier: MIT */
/* The contract between `clockscope run` and the reader it injects into a program's address
 * space (src/run/reader/reader.c, built freestanding): the data page both map from one
 * memfd.  Freestanding (only <stdint.h>), pointer-free: the page sits at different addresses
 * in run's refresher and in each served process.
 *
 * Layout of the injected region, all from one memfd but the code:
 *   RUN_READER_CODE_SIZE bytes of code (the reader; private, read-only and executable),
 *   RUN_PAGE_SIZE bytes: the page holding fastclock's line (memfd offset 0; read-only in the
 *     served process: only the refresher writes it; the line lies at its start, as it does
 *     in libfastclock's own page of hot data, which the refresher maps from there),
 *   RUN_PAGE_SIZE bytes: this header (memfd offset RUN_PAGE_SIZE; read-write: count mode's
 *     counters are written by the served processes),
 *   RUN_PAGE_SIZE bytes: the process page (anonymous, private, MADV_WIPEONFORK): what the
 *     reader learnt of the process it runs in, zeros again in every forked child. */
#ifndef CLOCKSCOPE_RUN_READER_ABI_H
#define CLOCKSCOPE_RUN_READER_ABI_H

#include <stdint.h>

#define RUN_READER_CODE_SIZE 8192u
#define RUN_PAGE_SIZE 4096u
#define RUN_PAGE_MAGIC 0x31707363u /* "csp1" */
#define RUN_PAGE_VERSION 2u
#define RUN_PATH_SIZE 128u

/* The entry points the reader provides, in the order of arch_vdso_entries.name. */
enum run_entry { RUN_ENTRY_CLOCK_GETTIME, RUN_ENTRY_GETTIMEOFDAY, RUN_ENTRY_TIME, RUN_ENTRIES };

/* Count mode's slots: clock_gettime per clock id 0..15 (CLOCK_TAI is 11), then the others. */
#define RUN_COUNT_CLOCKS 16
enum { RUN_COUNT_OTHER_CLOCK = RUN_COUNT_CLOCKS, RUN_COUNT_GETTIMEOFDAY, RUN_COUNT_TIME,
       RUN_COUNT_SLOTS };

#define RUN_FLAG_COUNT 1u /* count every call (and answer it by the syscall) */
#define RUN_FLAG_UNDONE 2u /* run --undo put the vDSO back: the refresher ends */

struct run_page_header {
    uint32_t magic;        /* RUN_PAGE_MAGIC, written by run before the entry points are */
    uint32_t version;      /* RUN_PAGE_VERSION */
    uint32_t flags;        /* RUN_FLAG_* */
    uint32_t serve_mask;   /* bit (1 << clock id): clocks the line answers (0: none); the
                            * refresher clears CLOCK_REALTIME's bit for a while after a step */
    /* Set by a reader that waited WRITER_STUCK_S for a write of the line to end (the
     * refresher killed inside it): later reads go to the kernel at once.  The refresher,
     * alive after all, clears it. */
    uint32_t writer_stuck;
    /* Every syscall the reader made (unserved clocks, a stale or missing line, count mode),
     * added like the counts; `run --verbose` reports it when the program has ended. */
    uint64_t kernel_calls;
    uint64_t stuck_marks;  /* how often a reader marked the writer stuck (--verbose says) */
    /* Count mode: calls per slot, added by the served processes with relaxed atomic adds
     * (a count is a value, ordering nothing), read by the refresher at the end. */
    uint64_t calls[RUN_COUNT_SLOTS];
    /* The refresher's time namespace, written by run before any entry point jumps to the
     * reader (run_page.c).  Its line holds that namespace's clocks; a served process in
     * another one (a child forked after unshare(CLONE_NEWTIME)) adds the difference of the
     * two namespaces' offsets, which its first read learns (struct run_process_page). */
    uint32_t timens;             /* RUN_TIMENS_* */
    uint32_t timens_pad;
    uint64_t timens_inode;       /* of /proc/self/ns/time, RUN_TIMENS_KNOWN */
    int64_t timens_monotonic_ns; /* its offsets from the host's clocks, RUN_TIMENS_KNOWN */
    int64_t timens_boottime_ns;
    /* The files the reader consults, by name here: it has no string data of its own. */
    char ns_path[RUN_PATH_SIZE];       /* /proc/self/ns/time */
    char children_path[RUN_PATH_SIZE]; /* /proc/self/ns/time_for_children */
    char offsets_path[RUN_PATH_SIZE];  /* /proc/self/timens_offsets */
};

/* header.timens.  0 is a kernel without time namespaces (or a header that says nothing):
 * every process has the refresher's clocks. */
#define RUN_TIMENS_NONE 0u
#define RUN_TIMENS_KNOWN 1u   /* inode and offsets above */
#define RUN_TIMENS_UNKNOWN 2u /* namespaces exist, the refresher's could not be read (no
                               * /proc): served processes leave MONOTONIC and BOOTTIME to the
                               * kernel */

/* The process page: which namespace the process's clocks are in, learnt at its first read
 * (state 0, as the kernel leaves the page in a forked child) and kept for its life.  Written
 * by whichever thread gets there first, deltas before the state (release); every thread
 * and signal handler that finds state 0 learns the same values again. */
struct run_process_page {
    /* The fast path's one word: 0 until the state is KNOWN, then monotonic_delta_ns ^
     * RUN_PROCESS_KEY (never 0: no namespace offset is near -2^63).  Delta and flag in one
     * word, so that a relaxed load of it needs no ordering with the rest. */
    uint64_t fast_word;
    uint32_t state;      /* RUN_PROCESS_* */
    uint32_t pad;
    int64_t monotonic_delta_ns; /* this process's CLOCK_MONOTONIC - the refresher's */
    int64_t boottime_delta_ns;  /* the same for CLOCK_BOOTTIME */
};
#define RUN_PROCESS_KEY 0x8000000000000001ull
#define RUN_PROCESS_UNKNOWN 0u /* not read yet in this process */
#define RUN_PROCESS_KNOWN 1u   /* the deltas hold */
#define RUN_PROCESS_KERNEL 2u  /* another namespace whose offsets cannot be read (no /proc,
                                * or unshared again since): MONOTONIC, BOOTTIME and the
                                * coarse monotonic clock go to the kernel */

#define RUN_LINE_PAGE_OFFSET RUN_READER_CODE_SIZE
#define RUN_HEADER_OFFSET (RUN_READER_CODE_SIZE + RUN_PAGE_SIZE)
#define RUN_PROCESS_OFFSET (RUN_READER_CODE_SIZE + 2 * RUN_PAGE_SIZE)
#define RUN_REGION_SIZE (RUN_READER_CODE_SIZE + 3 * RUN_PAGE_SIZE)
#define RUN_MEMFD_SIZE (2 * RUN_PAGE_SIZE)
_Static_assert(sizeof(struct run_page_header) <= RUN_PAGE_SIZE, "header fits");

#endif
