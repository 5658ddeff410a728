/* SPDX-License-Identifier: MIT */
/* The attribution table: which symbols read the time, and by which path.
 *
 * Names come from the kernel (syscall entry points per arch, clocksource read functions),
 * the vDSO linker scripts (also in vdso/vdso_names.c, which a unit test checks against
 * this table), glibc and musl, and the runtimes' clock functions.  First match wins, so
 * the specific rows come before the wildcard ones.  Every arch's rows are matched: saved
 * perf text may come from any machine, and the names do not collide across arches. */
#include "profile/attribution.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define T(sym, dso, cat, arch) {sym, dso, ROLE_TIME, cat, arch, NULL}
#define CS(sym, arch, name) {sym, NULL, ROLE_TIME, CAT_CLOCKSOURCE, arch, name}
#define PASS(sym, dso, arch) {sym, dso, ROLE_PASS, CAT_OTHER, arch, NULL}
#define NOT(sym, dso) {sym, dso, ROLE_NOTTIME, CAT_OTHER, NULL, NULL}

static const struct attr_row table[] = {
    /* The kernel's clocksource reads (drivers/clocksource, arch/x86/kernel): the name is
     * the clocksource as current_clocksource names it. */
    CS("read_hpet", "x86_64", "hpet"),
    CS("acpi_pm_read", "x86_64", "acpi_pm"),
    CS("acpi_pm_read_verified", "x86_64", "acpi_pm"),
    CS("acpi_pm_read_slow", "x86_64", "acpi_pm"),
    CS("xen_clocksource_read", NULL, "xen"),
    CS("xen_clocksource_get_cycles", NULL, "xen"),
    CS("kvm_clock_get_cycles", "x86_64", "kvm-clock"),
    CS("kvm_clock_read", "x86_64", "kvm-clock"),
    CS("pvclock_clocksource_read", "x86_64", "kvm-clock"),
    CS("pvclock_clocksource_read_nowd", "x86_64", "kvm-clock"),
    CS("read_hv_clock_tsc", NULL, "hyperv_clocksource_tsc_page"),
    CS("read_hv_clock_tsc_cs", NULL, "hyperv_clocksource_tsc_page"),
    CS("read_hv_clock_msr", NULL, "hyperv_clocksource_msr"),
    CS("read_hv_clock_msr_cs", NULL, "hyperv_clocksource_msr"),
    CS("read_tsc", "x86_64", "tsc"),
    CS("read_pit", "x86_64", "pit"),
    CS("arch_counter_read", "aarch64", "arch_sys_counter"),
    CS("arch_counter_read_cc", "aarch64", "arch_sys_counter"),
    CS("arch_counter_get_cntvct", "aarch64", "arch_sys_counter"),
    CS("arch_counter_get_cntvct_stable", "aarch64", "arch_sys_counter"),
    CS("arch_counter_get_cntpct", "aarch64", "arch_sys_counter"),
    CS("riscv_clocksource_rdtime", "riscv64", "riscv_clocksource"),
    CS("clint_get_cycles64", "riscv64", "clint_clocksource"),
    CS("jiffies_read", NULL, "jiffies"),

    /* The time syscalls, by each arch's entry-point names, and their common bodies. */
    T("__x64_sys_clock_gettime", NULL, CAT_SYSCALL, "x86_64"),
    T("__x64_sys_gettimeofday", NULL, CAT_SYSCALL, "x86_64"),
    T("__x64_sys_time", NULL, CAT_SYSCALL, "x86_64"),
    T("__ia32_sys_clock_gettime*", NULL, CAT_SYSCALL, "x86_64"),
    T("__ia32_sys_gettimeofday", NULL, CAT_SYSCALL, "x86_64"),
    T("__ia32_compat_sys_gettimeofday", NULL, CAT_SYSCALL, "x86_64"),
    T("__ia32_sys_time*", NULL, CAT_SYSCALL, "x86_64"),
    T("__arm64_sys_clock_gettime", NULL, CAT_SYSCALL, "aarch64"),
    T("__arm64_sys_gettimeofday", NULL, CAT_SYSCALL, "aarch64"),
    T("__arm64_compat_sys_gettimeofday", NULL, CAT_SYSCALL, "aarch64"),
    T("__arm64_sys_clock_gettime32", NULL, CAT_SYSCALL, "aarch64"),
    T("__riscv_sys_clock_gettime", NULL, CAT_SYSCALL, "riscv64"),
    T("__riscv_sys_gettimeofday", NULL, CAT_SYSCALL, "riscv64"),
    T("__do_sys_clock_gettime*", NULL, CAT_SYSCALL, NULL),
    T("__se_sys_clock_gettime*", NULL, CAT_SYSCALL, NULL),
    T("__do_sys_gettimeofday", NULL, CAT_SYSCALL, NULL),
    T("__se_sys_gettimeofday", NULL, CAT_SYSCALL, NULL),
    T("__do_sys_time", NULL, CAT_SYSCALL, NULL),
    T("sys_clock_gettime", NULL, CAT_SYSCALL, NULL),
    T("sys_gettimeofday", NULL, CAT_SYSCALL, NULL),
    T("posix_get_monotonic_timespec", NULL, CAT_SYSCALL, NULL),
    T("posix_get_realtime_timespec", NULL, CAT_SYSCALL, NULL),
    T("posix_get_boottime_timespec", NULL, CAT_SYSCALL, NULL),
    T("posix_get_tai_timespec", NULL, CAT_SYSCALL, NULL),
    T("posix_get_monotonic_raw", NULL, CAT_SYSCALL, NULL),
    T("posix_get_hrtimer_res", NULL, CAT_SYSCALL, NULL),
    T("posix_ktime_get_ts", NULL, CAT_SYSCALL, NULL),

    /* Transparent frames: how a syscall is entered, which alone does not say which
     * syscall (kernel entry per arch; the C library's syscall() wrapper). */
    PASS("entry_SYSCALL_64*", NULL, "x86_64"),
    PASS("do_syscall_64", NULL, "x86_64"),
    PASS("x64_sys_call", NULL, "x86_64"),
    PASS("syscall_exit_to_user_mode*", NULL, NULL),
    PASS("syscall_enter_from_user_mode*", NULL, NULL),
    PASS("el0_svc*", NULL, "aarch64"),
    PASS("do_el0_svc", NULL, "aarch64"),
    PASS("invoke_syscall*", NULL, "aarch64"),
    PASS("el0t_64_sync*", NULL, "aarch64"),
    PASS("handle_exception", NULL, "riscv64"),
    PASS("do_trap_ecall_u", NULL, "riscv64"),
    PASS("ret_from_exception", NULL, "riscv64"),
    PASS("syscall", "libc", NULL),
    PASS("__GI_syscall", "libc", NULL),

    /* The vDSO: the time entry points of each arch (vdso/vdso_names.c), then every other
     * symbol in it that is not a time function, then anything else inside the vDSO (its
     * inner functions, do_hres and the counter read, when perf resolves them). */
    T("__vdso_clock_gettime", NULL, CAT_VDSO, "x86_64"),
    T("__vdso_gettimeofday", NULL, CAT_VDSO, "x86_64"),
    T("__vdso_time", NULL, CAT_VDSO, "x86_64"),
    T("__vdso_clock_gettime64", NULL, CAT_VDSO, NULL),
    T("__kernel_clock_gettime", NULL, CAT_VDSO, "aarch64"),
    T("__kernel_gettimeofday", NULL, CAT_VDSO, "aarch64"),
    T("__vdso_clock_gettime", NULL, CAT_VDSO, "riscv64"),
    T("__vdso_gettimeofday", NULL, CAT_VDSO, "riscv64"),
    NOT("__vdso_getcpu", NULL),
    NOT("__vdso_sgx_enter_enclave", NULL),
    NOT("__vdso_getrandom", NULL),
    NOT("__vdso_riscv_hwprobe", NULL),
    NOT("__vdso_rt_sigreturn", NULL),
    NOT("__kernel_rt_sigreturn", NULL),
    NOT("__vdso_flush_icache", NULL),
    NOT("__vdso_clock_getres", NULL),
    NOT("__kernel_clock_getres", NULL),
    NOT("getcpu", "[vdso]"),
    T("*", "[vdso]", CAT_VDSO, NULL),

    /* libfastclock (src/fastclock/fastclock.h) and its internal readers. */
    T("fastclock_*", NULL, CAT_FASTCLOCK, NULL),
    T("fc_read*", NULL, CAT_FASTCLOCK, NULL),

    /* The C library's wrappers (glibc, musl): the names perf shows for them.  time() and
     * the generic names only inside the C library itself. */
    T("clock_gettime", NULL, CAT_LIBC, NULL),
    T("__clock_gettime", NULL, CAT_LIBC, NULL),
    T("__clock_gettime64", NULL, CAT_LIBC, NULL),
    T("__GI___clock_gettime*", NULL, CAT_LIBC, NULL),
    T("__clock_gettime_2", NULL, CAT_LIBC, NULL),
    T("gettimeofday", NULL, CAT_LIBC, NULL),
    T("__gettimeofday*", NULL, CAT_LIBC, NULL),
    T("__GI___gettimeofday*", NULL, CAT_LIBC, NULL),
    T("timespec_get", "libc", CAT_LIBC, NULL),
    T("time", "libc", CAT_LIBC, NULL),
    T("__time", "libc", CAT_LIBC, NULL),
    T("__time64", "libc", CAT_LIBC, NULL),

    /* Language runtimes' own clock functions. */
    T("runtime.nanotime", NULL, CAT_RUNTIME, NULL),
    T("runtime.nanotime1", NULL, CAT_RUNTIME, NULL),
    T("runtime.walltime", NULL, CAT_RUNTIME, NULL),
    T("runtime.walltime1", NULL, CAT_RUNTIME, NULL),
    T("time.now", NULL, CAT_RUNTIME, NULL),
    T("time.Now", NULL, CAT_RUNTIME, NULL),
    T("time_time", NULL, CAT_RUNTIME, NULL),                  /* CPython's time.time() */
    T("time_time_ns", NULL, CAT_RUNTIME, NULL),
    T("time_monotonic", NULL, CAT_RUNTIME, NULL),
    T("time_monotonic_ns", NULL, CAT_RUNTIME, NULL),
    T("time_perf_counter", NULL, CAT_RUNTIME, NULL),
    T("time_perf_counter_ns", NULL, CAT_RUNTIME, NULL),
    T("_PyTime_GetSystemClock*", NULL, CAT_RUNTIME, NULL),
    T("_PyTime_GetMonotonicClock*", NULL, CAT_RUNTIME, NULL),
    T("_PyTime_GetPerfCounter*", NULL, CAT_RUNTIME, NULL),
    T("py_get_system_clock", NULL, CAT_RUNTIME, NULL),
    T("py_get_monotonic_clock", NULL, CAT_RUNTIME, NULL),
    T("PyTime_Time", NULL, CAT_RUNTIME, NULL),
    T("PyTime_Monotonic", NULL, CAT_RUNTIME, NULL),
    T("PyTime_PerfCounter", NULL, CAT_RUNTIME, NULL),
    T("os::javaTimeNanos*", NULL, CAT_RUNTIME, NULL),         /* HotSpot */
    T("os::javaTimeMillis*", NULL, CAT_RUNTIME, NULL),
    T("os::javaTimeSystemUTC*", NULL, CAT_RUNTIME, NULL),
    T("JVM_NanoTime", NULL, CAT_RUNTIME, NULL),
    T("JVM_CurrentTimeMillis", NULL, CAT_RUNTIME, NULL),
    T("uv_hrtime", NULL, CAT_RUNTIME, NULL),                  /* libuv (Node.js) */
    T("uv__hrtime", NULL, CAT_RUNTIME, NULL),
    T("v8::base::TimeTicks::Now*", NULL, CAT_RUNTIME, NULL),
    T("std::time::Instant::now", NULL, CAT_RUNTIME, NULL),    /* Rust */
    T("std::time::SystemTime::now", NULL, CAT_RUNTIME, NULL),
    T("std::sys::pal::unix::time::Timespec::now", NULL, CAT_RUNTIME, NULL),
    T("std::sys::unix::time::Timespec::now", NULL, CAT_RUNTIME, NULL),
};

const struct attr_row *attr_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

static const char *const category_ids[CAT_COUNT] = {
    "vdso", "libc", "fastclock", "runtime", "syscall", "clocksource", "other",
};
static const char *const category_whats[CAT_COUNT] = {
    "vDSO (user-space counter read)",
    "C library wrappers",
    "libfastclock",
    "runtime clock functions",
    "time syscalls (kernel)",
    "kernel clocksource read",
    "everything else",
};

const char *attr_category_id(enum profile_category c)
{
    return (unsigned)c < CAT_COUNT ? category_ids[c] : "?";
}

const char *attr_category_what(enum profile_category c)
{
    return (unsigned)c < CAT_COUNT ? category_whats[c] : "?";
}

/* Whether name ends with suffix followed by nothing or by ".<digits>". */
static size_t clone_suffix_at(const char *s, size_t len)
{
    static const char *const suffixes[] = {".isra", ".constprop", ".part", ".cold", ".lto_priv",
                                           ".localalias", ".llvm"};
    for (size_t at = 1; at < len; at++) {
        if (s[at] != '.')
            continue;
        for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
            size_t n = strlen(suffixes[k]);
            if (len - at >= n && memcmp(s + at, suffixes[k], n) == 0 &&
                (len - at == n || s[at + n] == '.'))
                return at;
        }
    }
    return len;
}

char *attr_normalize(const char *sym, size_t len, char *out, size_t cap)
{
    if (cap == 0)
        return out;
    /* perf's "+0x1f" offset, then "@@GLIBC_2.27" / "@GLIBC_2.17" (a C++ name has no '@'). */
    for (size_t i = 0; i + 2 < len; i++)
        if (sym[i] == '+' && sym[i + 1] == '0' && sym[i + 2] == 'x') {
            len = i;
            break;
        }
    const char *at = memchr(sym, '@', len);
    if (at && at > sym)
        len = (size_t)(at - sym);
    len = clone_suffix_at(sym, len);
    while (len && isspace((unsigned char)sym[len - 1]))
        len--;
    if (len >= cap)
        len = cap - 1;
    memcpy(out, sym, len);
    out[len] = 0;
    return out;
}

bool attr_dso_is_kernel(const char *dso, size_t len)
{
    static const char *const user_brackets[] = {"[vdso]", "[unknown]", "[vsyscall]", "[heap]",
                                                "[stack]", "[anon]", "[jit]", "[vvar]",
                                                "[uprobes]", "[vectors]", "[sigpage]"};
    if (len < 2 || dso[0] != '[' || dso[len - 1] != ']')
        return false;
    for (size_t k = 0; k < sizeof user_brackets / sizeof user_brackets[0]; k++)
        if (strlen(user_brackets[k]) == len && memcmp(dso, user_brackets[k], len) == 0)
            return false;
    /* "[anon:name]", "[stack:123]" are user mappings too. */
    return !(len > 7 && (memcmp(dso, "[anon:", 6) == 0 || memcmp(dso, "[stack:", 7) == 0));
}

/* Where each arch's kernel is entered from user space (arch/x86/entry/entry_64.S,
 * arch/arm64/kernel/entry.S, arch/riscv/kernel/entry.S). */
static const char *const kernel_boundaries[] = {
    "entry_SYSCALL_64", "entry_SYSENTER", "entry_INT80", "asm_sysvec_", "asm_exc_",
    "asm_common_interrupt", "el0t_64_", "el0t_32_", "handle_exception", "ret_from_exception",
};

bool attr_is_kernel_boundary(const char *sym, size_t len)
{
    for (size_t i = 0; i < sizeof kernel_boundaries / sizeof kernel_boundaries[0]; i++) {
        size_t n = strlen(kernel_boundaries[i]);
        if (len >= n && memcmp(sym, kernel_boundaries[i], n) == 0)
            return true;
    }
    return false;
}

static bool symbol_matches(const char *pattern, const char *sym)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*')
        return strncmp(pattern, sym, n - 1) == 0;
    return strcmp(pattern, sym) == 0;
}

static bool dso_contains(const char *needle, const char *dso, size_t len)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(dso + i, needle, n) == 0)
            return true;
    return false;
}

const struct attr_row *attr_classify(const struct attr_frame *f)
{
    char sym[256];
    attr_normalize(f->sym ? f->sym : "", f->sym ? f->sym_len : 0, sym, sizeof sym);
    if (!sym[0] || strcmp(sym, "[unknown]") == 0) {
        /* An unresolved address in the vDSO is still the vDSO. */
        if (!(f->dso_len == 6 && memcmp(f->dso, "[vdso]", 6) == 0))
            return NULL;
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const struct attr_row *r = &table[i];
        if (r->dso && !dso_contains(r->dso, f->dso ? f->dso : "", f->dso ? f->dso_len : 0))
            continue;
        /* A kernel name never matches a user frame or the reverse. */
        bool kernel_row = r->category == CAT_SYSCALL || r->category == CAT_CLOCKSOURCE ||
                          (r->role == ROLE_PASS && !r->dso);
        if (kernel_row != f->kernel && r->role != ROLE_NOTTIME)
            continue;
        if (symbol_matches(r->symbol, sym))
            return r;
    }
    return NULL;
}
