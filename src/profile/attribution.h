/* SPDX-License-Identifier: MIT */
/* Which frames of a perf call chain are reading the time, and by which path: one table of
 * symbols (attribution.c), per arch, data not code.  Pure: no I/O, no allocation. */
#ifndef CLOCKSCOPE_PROFILE_ATTRIBUTION_H
#define CLOCKSCOPE_PROFILE_ATTRIBUTION_H

#include <stdbool.h>
#include <stddef.h>

/* The categories a sample is attributed to, in the order reports show them.  The first
 * PROFILE_TIME_CATEGORIES are "reading the time"; OTHER is everything else. */
enum profile_category {
    CAT_VDSO,        /* the vDSO's own code (its counter read and arithmetic) */
    CAT_LIBC,        /* the C library's wrappers: clock_gettime, gettimeofday, time */
    CAT_FASTCLOCK,   /* libfastclock */
    CAT_RUNTIME,     /* a language runtime's clock function (Go, CPython, Java, ...) */
    CAT_SYSCALL,     /* kernel entry and the time syscalls */
    CAT_CLOCKSOURCE, /* the kernel's clocksource read (read_hpet, ...) */
    CAT_OTHER,
    CAT_COUNT
};
#define PROFILE_TIME_CATEGORIES CAT_OTHER

/* What a table row says about a frame. */
enum attr_role {
    ROLE_TIME,    /* a time-reading frame of `category` */
    ROLE_PASS,    /* transparent: kernel entry, the libc syscall() wrapper (neither decides
                   * a category nor is a call site) */
    ROLE_NOTTIME, /* explicitly not a time frame (the vDSO's getcpu, sigreturn, ...) */
};

struct attr_row {
    const char *symbol;      /* exact, or a prefix when it ends with '*'; "*" any */
    const char *dso;         /* NULL: any; else a substring the frame's object must contain */
    enum attr_role role;
    enum profile_category category;
    const char *arch;        /* NULL: every arch; else the arch whose kernel/vDSO names it */
    const char *clocksource; /* CAT_CLOCKSOURCE: the clocksource's name in sysfs */
};

/* A frame as perf printed it: symbol (may carry "+0x1f", "@@GLIBC_2.27", ".isra.0") and
 * object ("[vdso]", "libc.so.6", "[kernel.kallsyms]"; may be empty). */
struct attr_frame {
    const char *sym;
    size_t sym_len;
    const char *dso;
    size_t dso_len;
    bool kernel;             /* a kernel frame ([k], a bracketed module, kallsyms) */
};

/* The symbol without perf's offset, glibc's symbol version and GCC's clone suffixes
 * (.isra.N, .constprop.N, .part.N, .cold), into out (truncated to cap-1).  Returns out. */
char *attr_normalize(const char *sym, size_t len, char *out, size_t cap);

/* The first row of the table matching the frame, or NULL (an ordinary frame). */
const struct attr_row *attr_classify(const struct attr_frame *f);

/* Whether a perf object name is the kernel or a kernel module: "[kernel.kallsyms]",
 * "[kvm_intel]", but not "[vdso]", "[unknown]", "[vsyscall]", "[heap]", ... */
bool attr_dso_is_kernel(const char *dso, size_t len);

/* Whether a kernel symbol is where the kernel was entered from user space (a syscall,
 * interrupt or exception entry: entry_SYSCALL_64*, asm_sysvec_*, el0t_64_*,
 * handle_exception, ...): in a chain without objects (perf report -g folded), the frames
 * from a kernel leaf up to this one are the kernel's. */
bool attr_is_kernel_boundary(const char *sym, size_t len);

/* Category ids ("vdso", ...) and what each means, for output. */
const char *attr_category_id(enum profile_category c);
const char *attr_category_what(enum profile_category c);

/* The whole table (tests check it against vdso/vdso_names.c). */
const struct attr_row *attr_table(size_t *n);

#endif
