/* SPDX-License-Identifier: MIT */
/* libfastclock's shared state (declared and explained in fc_state.h): defined here, apart
 * from the code that reads it (fastclock.c), writes it (fc_refresh.c) and starts, forks and
 * reports it (fc_lifecycle.c). */
#define FASTCLOCK_BUILD
#include "fastclock/fc_internal.h"
#include "fastclock/fc_state.h"

#include <pthread.h>
#include <time.h>

/* The hot data, in this order (FC_HOT_DATA: one section, definition order): the line
 * (page-aligned), the kernel clock function, `recent` and its due point, then padding to
 * the page's end: a page of its own (fc_state.h says why). */
FC_HIDDEN struct fc_line fc_line FC_HOT_DATA __attribute__((aligned(FC_HOT_PAGE_SIZE))) = FC_LINE_INITIALIZER;
FC_HIDDEN fc_clock_fn fc_kernel_clock FC_HOT_DATA = clock_gettime;
/* `recent`: exported for fastclock_recent_ns_inline(); accessed only through __atomic
 * builtins (relaxed: it is a value, not a flag guarding other data). */
uint64_t fastclock_recent_cache FC_HOT_DATA __attribute__((aligned(64)));
/* Counter value of the next `recent` update (same cache line).  The automatic ticker also
 * watches it: a change means reads on the live line (fc_lifecycle.c: it parks when nobody
 * reads). */
FC_HIDDEN _Atomic uint64_t fc_recent_due_ticks FC_HOT_DATA;
/* The line and the function end before the 64-aligned `recent` at 192; `recent` and the due
 * point end at 208; the padding fills the page from 256 on (its own alignment: the compiler
 * aligns arrays as it likes, and a pad that started late would spill into the next page). */
_Static_assert(sizeof(struct fc_line) + sizeof(fc_clock_fn) <= 192,
               "the hot data fits in 208 bytes");
FC_HIDDEN char fc_hot_page_end[FC_HOT_PAGE_SIZE - 256] FC_HOT_DATA __attribute__((used, aligned(256)));

/* Set by stale reads (which do not update `recent`), cleared by the ticker when it sees it
 * set.  Neither is written by the ticker while reads come on the live line: a sparse read
 * finds them in its own cache.  Hints: relaxed, ordered with nothing. */
FC_HIDDEN _Atomic unsigned fc_stale_reads_seen;

FC_HIDDEN _Atomic uint64_t fc_kernel_floor;
FC_HIDDEN struct fc_sig_snapshot fc_sig;
FC_HIDDEN _Thread_local bool fc_tl_in_writer FC_TLS;
FC_HIDDEN _Thread_local bool fc_tl_in_init FC_TLS;

FC_HIDDEN pthread_mutex_t fc_lock = PTHREAD_MUTEX_INITIALIZER;
FC_HIDDEN _Atomic unsigned fc_refreshing; /* word-sized: riscv has no 1-byte exchange without libatomic */
FC_HIDDEN struct fc_writer fc_w;

void fc_set_kernel_clock(fc_clock_fn fn) { fc_kernel_clock = fn; }
