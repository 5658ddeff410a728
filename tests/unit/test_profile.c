/* SPDX-License-Identifier: MIT */
/* clockscope profile's pure parts: the perf text parsers (every format perf has printed,
 * malformed text, in-process mutation), the attribution of call chains, the attribution
 * table against the vDSO names, and the permission plan. */
#include "check.h"

#include "profile/attribution.h"
#include "profile/count_table.h"
#include "profile/perf_access.h"
#include "profile/perf_text.h"
#include "profile/tally.h"
#include "vdso/vdso_names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct tally t;

static bool near(double a, double b) { return fabs(a - b) < 0.006; }

static bool script(const char *text, char *why, size_t whylen)
{
    return perf_script_parse(text, strlen(text), &t, why, whylen);
}

static bool report(const char *text, char *why, size_t whylen)
{
    return perf_report_parse(text, strlen(text), &t, why, whylen);
}

/* The RISC-V entries of the RISC-V clock_gettime report (openEuler,
 * kernel 6.12), also tests/data/perf/riscv-report-whisper-riscv.report. */
static const char riscv_report[] =
    "# Samples: 363K of event 'cpu-clock'\n"
    "# Overhead  Shared Object          Symbol\n"
    "#\n"
    "    13.27%  [vdso]                 [.] __vdso_clock_gettime\n"
    "    11.90%  libm.so.6              [.] expf@@GLIBC_2.27\n"
    "     8.96%  libgomp.so.1.0.0.xdd   [.] gomp_barrier_wait_end\n"
    "     4.26%  libc.so.6              [.] clock_gettime@@GLIBC_2.27\n";

TEST(test_profile_report_riscv_report_shares)
{
    char err[300];
    CHECK(report(riscv_report, err, sizeof err));
    CHECK(near(tally_percent(&t, CAT_VDSO), 13.27));
    CHECK(near(tally_percent(&t, CAT_LIBC), 4.26));
    CHECK(near(tally_time_percent(&t), 17.53));
    CHECK(near(tally_percent(&t, CAT_OTHER), 82.47));
    CHECK(t.samples == 363000);
    CHECK(strcmp(t.event, "cpu-clock") == 0);
    CHECK(t.arches & 4u); /* __vdso_clock_gettime names riscv64 (and x86_64) */
}

TEST(test_profile_report_formats_agree)
{
    /* The same entries with CRLF, with Children columns, with a Samples column, with a -g
     * tree and folded chains, with a Command column: the same shares. */
    static const char *const variants[] = {
        "    13.27%  [vdso]  [.] __vdso_clock_gettime\r\n     4.26%  libc.so.6  [.] clock_gettime@@GLIBC_2.27\r\n",
        "# Children      Self  Command  Shared Object  Symbol\n"
        "    20.00%    13.27%  python3  [vdso]         [.] __vdso_clock_gettime\n"
        "            |\n            ---__vdso_clock_gettime\n               clock_gettime\n\n"
        "    17.53%     4.26%  python3  libc.so.6      [.] clock_gettime@@GLIBC_2.27\n"
        "             --13.27%--clock_gettime\n                       __vdso_clock_gettime\n",
        "# Overhead       Samples  Command  Shared Object  Symbol\n"
        "    13.27%         48170  python3  [vdso]  [.] __vdso_clock_gettime\n"
        "13.27% __vdso_clock_gettime;clock_gettime;main\n"
        "     4.26%         15464  python3  libc.so.6  [.] clock_gettime@@GLIBC_2.27\n",
        "    13.27%  python3  [vdso]     __vdso_clock_gettime\n"
        "     4.26%  python3  libc.so.6  clock_gettime@@GLIBC_2.27\n",
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char err[300] = "";
        if (!report(variants[i], err, sizeof err)) {
            fprintf(stderr, "variant %zu: %s\n", i, err);
            CHECK(false);
        }
        CHECK(near(tally_percent(&t, CAT_VDSO), 13.27));
        CHECK(near(tally_percent(&t, CAT_LIBC), 4.26));
    }
}

TEST(test_profile_report_kernel_entries)
{
    char err[300];
    CHECK(report("     5.58%  ts  [kernel.kallsyms]  [k] read_hpet\n"
                 "     2.00%  ts  [kernel.kallsyms]  [k] posix_get_monotonic_timespec\n"
                 "     1.00%  ts  [kernel.kallsyms]  [k] do_syscall_64\n"
                 "     1.00%  ts  ts                 [.] read_hpet\n", err, sizeof err));
    CHECK(near(tally_percent(&t, CAT_CLOCKSOURCE), 5.58));
    CHECK(near(tally_percent(&t, CAT_SYSCALL), 2.00));
    CHECK(t.nclocksources == 1 && strcmp(t.clocksources[0].name, "hpet") == 0);
    /* A user-space function that happens to be called read_hpet is not the kernel's. */
    CHECK(near(tally_percent(&t, CAT_OTHER), 100 - 7.58));
}

TEST(test_profile_report_malformed_names_the_line)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "no entries"},
        {"# only comments\n#\n", "no entries"},
        {"hello world\n", "line 1: not a perf report line"},
        {"    13.27%  [vdso]  [.] __vdso_clock_gettime\ngarbage\n", "line 2: not a perf report line"},
        {"    130.5%  [vdso]  [.] x\n", "line 1: a percentage out of range"},
        {"    60%  a  [.] x\n    60%  b  [.] y\n", "line 2: the entries' own percentages add up"},
        {"# Children  Self\n    20.00%  a  [.] x\n", "line 2: the header names Children"},
        {"    10.00%     20.00%  a  [.] x\n", "line 1: a percentage out of range"},
        {"# Overhead  Samples  Symbol\n    10.00%  a  [.] x\n", "line 2: the header names a Samples column"},
        {"    10.00%  \x01 [.] x\n", "line 1: control byte 0x01"},
        {"# Samples: 1 of event 'a'\n    1.00%  a  [.] x\n# Samples: 1 of event 'b'\n", "line 3: a second event"},
        {"    5.00%\n", "line 1: an entry with a percentage but no symbol"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[300] = "";
        bool ok = report(bad[i].text, err, sizeof err);
        if (ok || !strstr(err, bad[i].says)) {
            fprintf(stderr, "case %zu: ok=%d err='%s', wanted '%s'\n", i, ok, err, bad[i].says);
            CHECK(false);
        }
    }
}

/* A vDSO that falls back to the syscall (clocksource hpet), as perf script prints it. */
static const char hpet_fallback[] =
    "app 4242 [001] 100.000001:     250000 cpu-clock: \n"
    "\tffffffff81045e70 read_hpet+0x10 ([kernel.kallsyms])\n"
    "\tffffffff8113a0e2 ktime_get_ts64+0x52 ([kernel.kallsyms])\n"
    "\tffffffff81139d8c posix_get_monotonic_timespec+0x1c ([kernel.kallsyms])\n"
    "\tffffffff81439d8c __x64_sys_clock_gettime+0x6c ([kernel.kallsyms])\n"
    "\tffffffff8225a6c1 do_syscall_64+0x71 ([kernel.kallsyms])\n"
    "\tffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])\n"
    "\t            b6e __vdso_clock_gettime+0x7e ([vdso])\n"
    "\t          cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\t           1234 handle_request+0x44 (/usr/bin/app)\n"
    "\n"
    "app 4242 [001] 100.000002:     250000 cpu-clock: \n"
    "\tffffffff8225a6c1 do_syscall_64+0x71 ([kernel.kallsyms])\n"
    "\tffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])\n"
    "\t            b6e __vdso_clock_gettime+0x7e ([vdso])\n"
    "\t          cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\t           1234 handle_request+0x44 (/usr/bin/app)\n"
    "\n"
    "app 4242 [001] 100.000003:     250000 cpu-clock: \n"
    "\t            b46 __vdso_clock_gettime+0x56 ([vdso])\n"
    "\t          cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\t           1300 log_line+0x10 (/usr/bin/app)\n"
    "\n"
    "app 4242 [001] 100.000004:     250000 cpu-clock: \n"
    "\t           5678 compute+0x8 (/usr/bin/app)\n"
    "\t        35ea699e [unknown] ([unknown])\n";

TEST(test_profile_script_attributes_by_innermost_time_frame)
{
    char err[300];
    CHECK(script(hpet_fallback, err, sizeof err));
    CHECK(t.samples == 4);
    CHECK(t.weight[CAT_CLOCKSOURCE] == 1);  /* read_hpet under the syscall under the vDSO */
    CHECK(t.weight[CAT_SYSCALL] == 1);      /* kernel entry inside the vDSO: its fallback */
    CHECK(t.weight[CAT_VDSO] == 1);
    CHECK(t.weight[CAT_OTHER] == 1);
    CHECK(t.fallback_weight == 2);
    CHECK(t.nclocksources == 1 && strcmp(t.clocksources[0].name, "hpet") == 0);
    tally_sort(&t);
    CHECK(t.ncall_sites == 2);
    CHECK(strcmp(t.call_sites[0].name, "handle_request") == 0 && t.call_sites[0].weight == 2);
    CHECK(strcmp(t.call_sites[1].name, "log_line") == 0);
    CHECK(strcmp(t.event, "cpu-clock") == 0);
}

TEST(test_profile_script_other_arches_and_forms)
{
    char err[300];
    /* aarch64: the vDSO's name and the syscall's; riscv64: the time CSR read in the vDSO;
     * a sample without call chain (the frame on the header line); CRLF; a C++ symbol with
     * parentheses; an object "(deleted)"; a '#' header; a PERF_RECORD line. */
    static const char text[] =
        "# ========\r\n# captured on: x\r\n"
        "java 1 [000] 5.000001: 1 cpu-clock:u: \r\n"
        "\t ffff800080123456 arch_counter_get_cntvct+0x8 ([kernel.kallsyms])\r\n"
        "\t ffff800080123000 __arm64_sys_clock_gettime+0x20 ([kernel.kallsyms])\r\n"
        "\t ffff800080100000 el0_svc+0x30 ([kernel.kallsyms])\r\n"
        "\t 7f00001000 __kernel_clock_gettime+0x40 ([vdso])\r\n"
        "\t 7f00002000 os::javaTimeNanos()+0x10 (/usr/lib/jvm/libjvm.so)\r\n"
        "\t 7f00003000 Foo::bar(int, char const*) const+0x4 (/opt/app (deleted))\r\n"
        "\r\n"
        "py 2 [000] 5.000002: 1 cpu-clock:u: 3fb7e01000 __vdso_clock_gettime+0x30 ([vdso])\r\n"
        "py 2 [000] 5.000003: PERF_RECORD_MMAP 2/2: [0x1000(0x1000) @ 0]: x /bin/py\r\n"
        "py 2 [000] 5.000004: 1 cpu-clock:u: 1000 time_time+0x1 (/usr/bin/python3.11)\r\n";
    CHECK(script(text, err, sizeof err));
    CHECK(t.samples == 3);
    CHECK(t.weight[CAT_CLOCKSOURCE] == 1);
    CHECK(strcmp(t.clocksources[0].name, "arch_sys_counter") == 0);
    CHECK(t.weight[CAT_VDSO] == 1);
    CHECK(t.weight[CAT_RUNTIME] == 1);
    CHECK(strcmp(t.event, "cpu-clock:u") == 0);
    CHECK(t.arches & 2u);
    tally_sort(&t);
    CHECK(t.ncall_sites == 2);
    CHECK(strcmp(t.call_sites[0].name, "(no caller in the chain)") == 0 && t.call_sites[0].weight == 2);
    CHECK(strcmp(t.call_sites[1].name, "Foo::bar(int, char const*) const") == 0);
    CHECK(strcmp(t.call_sites[1].dso, "/opt/app (deleted)") == 0);
}

TEST(test_profile_script_malformed_names_the_line)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "no samples"},
        {"\n\n# comment\n", "no samples"},
        {"\tffffffff81000000 x ([kernel.kallsyms])\n", "line 1: a call-chain frame before any sample header"},
        {"a 1 1.0: 1 cpu-clock:\n\tnot-an-address x (y)\n", "line 2: a call-chain frame must start with a hexadecimal address"},
        {"a 1 1.0: 1 cpu-clock:\n\t1234 x y)\n", "line 2: unbalanced parentheses"},
        {"just some words\n", "line 1: neither a sample header"},
        {"a 1 1.0: 1 cpu-clock:\n\t1234 x\x7f (y)\n", "line 2: control byte 0x7f"},
        {"a 1 1.0: 1 cpu-clock:\n\t12345678901234567 x (y)\n", "line 2: a call-chain frame must start"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[300] = "";
        bool ok = script(bad[i].text, err, sizeof err);
        if (ok || !strstr(err, bad[i].says)) {
            fprintf(stderr, "case %zu: ok=%d err='%s', wanted '%s'\n", i, ok, err, bad[i].says);
            CHECK(false);
        }
    }
}

/* Random edits of good text: each parse ends in a tally whose shares add up, or an error
 * naming a line; never a crash (ASan/UBSan builds run this too). */
TEST(test_profile_parsers_survive_mutation)
{
    uint64_t x = 0x5eed;
    static char buf[4096];
    for (int round = 0; round < 3000; round++) {
        bool use_script = round & 1;
        snprintf(buf, sizeof buf, "%s", use_script ? hpet_fallback : riscv_report);
        for (int k = 0; k <= round % 7; k++)
            check_mutate(buf, sizeof buf, "0123456789abcdef%[]().:;+@ \t\n\r#k-xK", &x);
        char err[300] = "";
        bool ok = use_script ? script(buf, err, sizeof err) : report(buf, err, sizeof err);
        if (!ok) {
            CHECK(strncmp(err, "line ", 5) == 0 || strncmp(err, "no ", 3) == 0);
            continue;
        }
        double sum = 0;
        for (int c = 0; c < CAT_COUNT; c++) {
            CHECK(t.weight[c] >= 0);
            sum += tally_percent(&t, c);
        }
        CHECK(fabs(sum - 100.0) < 0.6);
        CHECK(tally_time_percent(&t) >= 0 && tally_time_percent(&t) <= 100.0001);
    }
}

TEST(test_profile_normalize_symbols)
{
    char out[64];
    CHECK(strcmp(attr_normalize("clock_gettime@@GLIBC_2.27", 25, out, sizeof out), "clock_gettime") == 0);
    CHECK(strcmp(attr_normalize("clock_gettime@GLIBC_2.17+0x19", 29, out, sizeof out), "clock_gettime") == 0);
    CHECK(strcmp(attr_normalize("read_hpet.cold+0x3", 18, out, sizeof out), "read_hpet") == 0);
    CHECK(strcmp(attr_normalize("ktime_get.isra.0", 16, out, sizeof out), "ktime_get") == 0);
    CHECK(strcmp(attr_normalize("a.b.c", 5, out, sizeof out), "a.b.c") == 0);
    CHECK(strcmp(attr_normalize("x", 1, out, 1), "") == 0);
}

/* Every arch's vDSO time entry points (vdso/vdso_names.c) are vDSO time frames here. */
TEST(test_profile_table_knows_every_vdso_name)
{
    static const char *const arches[] = {"x86_64", "aarch64", "riscv64"};
    for (size_t a = 0; a < 3; a++) {
        const struct vdso_symbol_names *n = vdso_names_for(arches[a]);
        CHECK(n);
        const char *names[] = {n->clock_gettime, n->gettimeofday, n->time};
        for (size_t i = 0; i < 3; i++) {
            if (!names[i])
                continue;
            struct attr_frame f = {names[i], strlen(names[i]), "[vdso]", 6, false};
            const struct attr_row *r = attr_classify(&f);
            CHECK(r && r->role == ROLE_TIME && r->category == CAT_VDSO);
        }
        if (n->getcpu) {
            struct attr_frame f = {n->getcpu, strlen(n->getcpu), "[vdso]", 6, false};
            const struct attr_row *r = attr_classify(&f);
            CHECK(r && r->role == ROLE_NOTTIME);
        }
    }
    /* time() only inside the C library; "time" elsewhere is someone's function. */
    struct attr_frame mine = {"time", 4, "/usr/bin/app", 12, false};
    CHECK(attr_classify(&mine) == NULL);
    struct attr_frame libc = {"time", 4, "/lib/libc.so.6", 14, false};
    CHECK(attr_classify(&libc) && attr_classify(&libc)->category == CAT_LIBC);
    CHECK(attr_dso_is_kernel("[kvm_intel]", 11) && !attr_dso_is_kernel("[vdso]", 6) &&
          !attr_dso_is_kernel("[anon:x]", 8) && !attr_dso_is_kernel("libc.so.6", 9));
}

TEST(test_profile_permission_plan)
{
    struct perf_plan p;
    struct perf_access root = {true, 3, true};
    perf_plan_for(&root, TARGET_ALL, &p);
    CHECK(p.allowed && !p.user_only);
    struct perf_access debian = {true, 3, false};
    perf_plan_for(&debian, TARGET_COMMAND, &p);
    CHECK(!p.allowed && strstr(p.why, "is 3") && strstr(p.why, "CAP_PERFMON") &&
          strstr(p.why, "does not change it"));
    struct perf_access two = {true, 2, false};
    perf_plan_for(&two, TARGET_COMMAND, &p);
    CHECK(p.allowed && p.user_only && strstr(p.why, "is 2"));
    perf_plan_for(&two, TARGET_ALL, &p);
    CHECK(!p.allowed && strstr(p.why, "-a (every CPU) needs 0"));
    struct perf_access one = {true, 1, false};
    perf_plan_for(&one, TARGET_PID, &p);
    CHECK(p.allowed && !p.user_only && !p.why[0]);
    perf_plan_for(&one, TARGET_ALL, &p);
    CHECK(!p.allowed);
    struct perf_access zero = {true, 0, false};
    perf_plan_for(&zero, TARGET_ALL, &p);
    CHECK(p.allowed && !p.user_only);
}

TEST(test_profile_missing_perf_names_the_package)
{
    char msg[400];
    perf_missing_message("PRETTY_NAME=\"Debian GNU/Linux 12\"\nID=debian\n", msg, sizeof msg);
    CHECK(strstr(msg, "linux-perf"));
    perf_missing_message("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", msg, sizeof msg);
    CHECK(strstr(msg, "linux-tools-common"));
    perf_missing_message("ID=\"openEuler\"\n", msg, sizeof msg);
    CHECK(strstr(msg, "dnf install perf"));
    perf_missing_message("", msg, sizeof msg);
    CHECK(strstr(msg, "perf is not installed") && strstr(msg, "linux-perf"));
}

/* An interrupt that arrives while the vDSO runs is kernel time inside a time read, but not
 * a syscall: no fallback, and not counted as reading the time. */
TEST(test_profile_interrupt_inside_the_vdso_is_not_a_syscall)
{
    static const char text[] =
        "app 1 [000] 1.000001: 1 cpu-clock: \n"
        "\tffffffff81100000 __sysvec_apic_timer_interrupt+0x10 ([kernel.kallsyms])\n"
        "\tffffffff81000e00 asm_sysvec_apic_timer_interrupt+0x1a ([kernel.kallsyms])\n"
        "\t            b46 __vdso_clock_gettime+0x56 ([vdso])\n"
        "\t          cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
        "\t           1300 main+0x10 (/usr/bin/app)\n";
    char err[300];
    CHECK(script(text, err, sizeof err));
    CHECK(t.weight[CAT_OTHER] == 1 && t.weight[CAT_SYSCALL] == 0);
    CHECK(t.fallback_weight == 0 && t.interrupted_weight == 1);
}

/* Xen's clocksource read calls the pvclock one: the outermost adjacent clocksource frame
 * names it (xen, not kvm-clock). */
TEST(test_profile_clocksource_named_by_the_outermost_frame)
{
    static const char text[] =
        "app 1 [000] 1.000001: 1 cpu-clock: \n"
        "\tffffffff81100000 pvclock_clocksource_read+0x10 ([kernel.kallsyms])\n"
        "\tffffffff81100100 xen_clocksource_read+0x1a ([kernel.kallsyms])\n"
        "\tffffffff81100200 xen_clocksource_get_cycles+0x5 ([kernel.kallsyms])\n"
        "\tffffffff8113a0e2 ktime_get_ts64+0x52 ([kernel.kallsyms])\n"
        "\tffffffff81439d8c __x64_sys_clock_gettime+0x6c ([kernel.kallsyms])\n"
        "\n"
        "app 1 [000] 1.000002: 1 cpu-clock: \n"
        "\tffffffff81100000 pvclock_clocksource_read+0x10 ([kernel.kallsyms])\n"
        "\tffffffff81100300 kvm_clock_get_cycles+0x5 ([kernel.kallsyms])\n"
        "\tffffffff8113a0e2 ktime_get+0x52 ([kernel.kallsyms])\n";
    char err[300];
    CHECK(script(text, err, sizeof err));
    CHECK(t.weight[CAT_CLOCKSOURCE] == 2 && t.nclocksources == 2);
    tally_sort(&t);
    CHECK(strcmp(t.clocksources[0].name, "kvm-clock") == 0 || strcmp(t.clocksources[1].name, "kvm-clock") == 0);
    CHECK(strcmp(t.clocksources[0].name, "xen") == 0 || strcmp(t.clocksources[1].name, "xen") == 0);
}

TEST(test_profile_count_table)
{
    static const char text[] =
        "clockscope run --mode count: pid 12923 (/tmp/pf/timeshare), 0.307 s\n"
        "         calls       calls/s  call\n"
        "       1843200      6.01 M/s  clock_gettime(CLOCK_MONOTONIC)\n"
        "            12       39.1 /s  gettimeofday\n"
        "         calls       calls/s  calling function (module)\n"
        "       1843200      6.01 M/s  timeshare+0x122d (no symbol)\n"
        "clockscope run --mode count: pid 7 (/usr/bin/python3.11 (deleted)), 12.5 s\r\n"
        "         calls       calls/s  call\r\n"
        "           100       8.00 /s  time\r\n";
    static struct count_table ct;
    char err[300];
    CHECK(count_table_parse(text, strlen(text), &ct, err, sizeof err));
    CHECK(ct.nprocs == 2 && ct.dropped == 0);
    CHECK(ct.procs[0].pid == 12923 && strcmp(ct.procs[0].program, "/tmp/pf/timeshare") == 0);
    CHECK(fabs(ct.procs[0].seconds - 0.307) < 1e-9 && ct.procs[0].ncalls == 2);
    CHECK(ct.procs[0].calls[0].calls == 1843200 && ct.procs[0].calls[0].calls_per_sec == 6.01e6);
    CHECK(fabs(ct.procs[0].calls[1].calls_per_sec - 39.1) < 1e-9);
    CHECK(strcmp(ct.procs[0].calls[1].call, "gettimeofday") == 0);
    CHECK(strcmp(ct.procs[1].program, "/usr/bin/python3.11 (deleted)") == 0);
    CHECK(ct.procs[1].calls[0].calls == 100 && ct.procs[1].calls[0].calls_per_sec == 8);
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "no count table"},
        {"         calls       calls/s  call\n", "line 1: a count table section before its header"},
        {"clockscope run --mode count: pid x (p), 1 s\n", "line 1: a count table header"},
        {"clockscope run --mode count: pid 1 (p), 1 s\n  5 5 x\n", "line 2: not a line"},
        {"clockscope run --mode count: pid 1 (p), 1 s\n         calls       calls/s  call\n  5 x\n",
         "line 3: not a line"},
        {"clockscope run --mode count: pid 1 (p), 1 s\nhello\n", "line 2: not a line"},
        {"clockscope run --mode count: pid 1 (p), 1 s\n         calls       calls/s  call\n"
         "  5 6006154  x\n", "line 3: not a line"},
        {"clockscope run --mode count: pid 1 (p), 1 s\n         calls       calls/s  call\n"
         "  5 6.01 X/s  x\n", "line 3: not a line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        bool ok = count_table_parse(bad[i].text, strlen(bad[i].text), &ct, err, sizeof err);
        if (ok || !strstr(err, bad[i].says)) {
            fprintf(stderr, "case %zu: ok=%d err='%s', wanted '%s'\n", i, ok, err, bad[i].says);
            CHECK(false);
        }
    }
    uint64_t x = 7;
    static char buf[1024];
    for (int round = 0; round < 2000; round++) {
        snprintf(buf, sizeof buf, "%s", text);
        for (int k = 0; k <= round % 5; k++)
            check_mutate(buf, sizeof buf, "0123456789 ()\n.,sx-kM/", &x);
        err[0] = 0;
        if (!count_table_parse(buf, strlen(buf), &ct, err, sizeof err))
            CHECK(strncmp(err, "line ", 5) == 0 || strncmp(err, "no ", 3) == 0);
        else
            CHECK(ct.nprocs >= 1 && ct.nprocs <= COUNT_MAX_PROCS);
    }
}

/* perf report -g folded: the chain under a [k] entry is the kernel's up to where the kernel
 * was entered, then user space: a vDSO fallback's hpet read is seen as one. */
TEST(test_profile_report_folded_chain_crosses_into_user_space)
{
    static const char text[] =
        "# Overhead  Command  Shared Object      Symbol\n"
        "    30.00%  app  [kernel.kallsyms]  [k] read_hpet\n"
        "30.00% read_hpet;ktime_get_ts64;posix_get_monotonic_timespec;__x64_sys_clock_gettime;"
        "do_syscall_64;entry_SYSCALL_64_after_hwframe;__vdso_clock_gettime;clock_gettime;handle\n"
        "    10.00%  app  [vdso]  [.] __vdso_clock_gettime\n"
        "6.00% __vdso_clock_gettime;clock_gettime;handle\n";
    char err[300];
    CHECK(report(text, err, sizeof err));
    CHECK(near(tally_percent(&t, CAT_CLOCKSOURCE), 30) && near(tally_percent(&t, CAT_VDSO), 10));
    CHECK(near(tally_share(&t, t.fallback_weight), 30) && t.report_chains);
    tally_sort(&t);
    CHECK(t.ncall_sites == 1 && strcmp(t.call_sites[0].name, "handle") == 0);
    CHECK(near(tally_share(&t, t.call_sites[0].weight), 36)); /* the 4% without a chain: none */
}
