/* SPDX-License-Identifier: MIT */
/* The live verdict logic on proofs this machine cannot produce: a syscall on every call
 * (clocksource=hpet in a VM), a counter read that traps (riscv time CSR emulated by
 * firmware), errors and backwards readings, seccomp refused, qemu-user. */
#include "check.h"
#include "doctor/diagnosis.h"
#include "doctor/rules.h"
#include "facts/facts.h"

#include <string.h>

static struct facts fs;
static struct proof pr;
static struct diagnosis dg;

static void set_fact(enum fact_id id, const char *text)
{
    fact_set_text(&fs.f[id], "test", text, strlen(text));
}

static void live_facts(const char *machine, const char *cs)
{
    facts_free(&fs);
    memset(&fs, 0, sizeof fs);
    fs.live = true;
    set_fact(F_UNAME, machine);
    if (cs)
        set_fact(F_CURRENT_CS, cs);
}

static void counted_proof(long mono_syscalls, long real_syscalls)
{
    memset(&pr, 0, sizeof pr);
    pr.ran = pr.counted = pr.vdso_present = true;
    pr.calls = PROOF_CALLS;
    pr.syscalls[PC_MONOTONIC] = mono_syscalls;
    pr.syscalls[PC_REALTIME] = real_syscalls;
    pr.syscalls[PC_CONTROL] = pr.syscalls[PC_CPUTIME] = PROOF_CALLS;
}

static void add_timing(const char *id, double ns)
{
    struct proof_timing *t = &pr.timing[pr.ntimings++];
    snprintf(t->id, sizeof t->id, "%s", id);
    t->ok = true;
    t->ns_per_call = ns;
}

static bool has_finding(const char *id)
{
    for (int i = 0; i < dg.nfindings; i++)
        if (!strcmp(dg.findings[i].id, id))
            return true;
    return false;
}

TEST(proof_of_a_syscall_per_call_is_slow_whatever_the_name_says)
{
    live_facts("x86_64", "hpet");
    counted_proof(PROOF_CALLS, PROOF_CALLS);
    add_timing("libc.clock_gettime.monotonic", 1200);
    add_timing("syscall.clock_gettime.monotonic", 1150);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && dg.fast_path == 0 && dg.decided_by_proof);
    CHECK(has_finding("proof-syscalls") && has_finding("clocksource-no-vdso"));
    /* a name that looks fast does not outvote the count */
    live_facts("x86_64", "tsc");
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && dg.fast_path == 0);
}

TEST(proof_without_syscalls_is_ok)
{
    live_facts("x86_64", "tsc");
    counted_proof(0, 0);
    add_timing("libc.clock_gettime.monotonic", 33);
    add_timing("syscall.clock_gettime.monotonic", 236);
    add_timing("counter.rdtsc", 15);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_OK && dg.fast_path == 1);
    CHECK(strstr(dg.summary, "0 syscalls"));
    /* kvm-clock: unknown from the facts, decided by the proof */
    live_facts("x86_64", "kvm-clock");
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_OK);
}

TEST(a_trapping_counter_is_slow_even_without_syscalls)
{
    live_facts("riscv64", "riscv_clocksource");
    set_fact(F_VERSION, "Linux version 6.12.0");
    counted_proof(0, 0);
    add_timing("libc.clock_gettime.monotonic", 2600);
    add_timing("libc.clock_gettime.monotonic_coarse", 20);
    add_timing("ref.empty_call", 2);
    add_timing("counter.rdtime", 2400);
    add_timing("counter.rdcycle", 3);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && dg.fast_path == 1);
    CHECK(has_finding("counter-read-traps"));
    /* the same board with a hardware time CSR */
    counted_proof(0, 0);
    add_timing("libc.clock_gettime.monotonic", 60);
    add_timing("libc.clock_gettime.monotonic_coarse", 20);
    add_timing("ref.empty_call", 2);
    add_timing("counter.rdtime", 8);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_OK && !has_finding("counter-read-traps"));
}

/* The trap is judged on each operation's fastest sample: interruptions that lift the
 * medians of the empty call and COARSE (a busy host under an emulator) do not hide it.
 * Figures of the sifive_u guest under TCG: rdtime ~1080 ns, COARSE 58-92, empty 9-17. */
TEST(a_trap_is_judged_on_the_fastest_samples_not_medians_lifted_by_interruptions)
{
    live_facts("riscv64", "riscv_clocksource");
    set_fact(F_VERSION, "Linux version 6.12.0");
    counted_proof(0, 0);
    add_timing("libc.clock_gettime.monotonic", 1300);
    add_timing("counter.rdtime", 1090);
    pr.timing[pr.ntimings - 1].min_ns = 1070;
    add_timing("libc.clock_gettime.monotonic_coarse", 140); /* 7.8x: under 10x */
    pr.timing[pr.ntimings - 1].min_ns = 58;
    add_timing("ref.empty_call", 12);
    pr.timing[pr.ntimings - 1].min_ns = 9;
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && has_finding("counter-read-traps"));
}

TEST(a_trap_is_judged_against_this_machines_own_costs_not_a_fixed_threshold)
{
    /* QEMU sifive_u under TCG (measured): rdtime traps to OpenSBI */
    CHECK(counter_read_traps(3508, 36, 133, 0));
    /* QEMU virt under TCG: slow emulated reads, no trap; 400 ns crossed the old 500 ns line */
    CHECK(!counter_read_traps(137, 46, 219, 94));
    CHECK(!counter_read_traps(600, 46, 219, 0));
    /* many empty calls' worth, but about a COARSE call: an emulated counter, not a trap */
    CHECK(!counter_read_traps(600, 10, 219, 0));
    /* hardware: rdtsc 15 ns beside a 2 ns empty call; a 1 us trap on a fast board */
    CHECK(!counter_read_traps(15, 1.9, 6.9, 0));
    CHECK(!counter_read_traps(40, 1, 10, 0));
    CHECK(counter_read_traps(1000, 1.5, 20, 0));
    /* another counter of the core as slow as this one: the core is slow, not trapping */
    CHECK(!counter_read_traps(3000, 20, 100, 2000));
    CHECK(counter_read_traps(3000, 20, 100, 90));
    /* an empty call netted to 0 ns still counts as a cycle, not as "anything is a trap" */
    CHECK(!counter_read_traps(10, 0, 2, 0));
    CHECK(!counter_read_traps(0, 1, 1, 0));
}

TEST(a_trap_is_proof_enough_when_the_syscall_count_cannot_be_taken)
{
    live_facts("riscv64", "riscv_clocksource");
    set_fact(F_VERSION, "Linux version 6.12.0");
    memset(&pr, 0, sizeof pr);
    pr.ran = pr.vdso_present = true;
    snprintf(pr.count_why, sizeof pr.count_why, "the counting child did not report in 2.0 s");
    add_timing("libc.clock_gettime.monotonic", 2750);
    add_timing("libc.clock_gettime.monotonic_coarse", 130);
    add_timing("ref.empty_call", 36);
    add_timing("counter.rdtime", 2600);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && dg.fast_path == 1 && dg.decided_by_proof && !dg.inferred);
    CHECK(strstr(dg.summary, "could not be taken") && strstr(dg.summary, "did not report"));
    CHECK(has_finding("proof-not-counted") && has_finding("counter-read-traps"));
    /* without the trap the timing answers what the facts left open: ok, said how */
    pr.ntimings = 0;
    add_timing("libc.clock_gettime.monotonic", 300);
    add_timing("libc.clock_gettime.monotonic_coarse", 200);
    add_timing("ref.empty_call", 40);
    add_timing("counter.rdtime", 130);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_OK && dg.fast_path == 1 && !has_finding("counter-read-traps"));
    CHECK(strstr(dg.summary, "does not trap") && strstr(dg.summary, "could not be taken"));
    /* ... but not without the references a trap is judged against */
    pr.ntimings = 0;
    add_timing("counter.rdtime", 130);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_UNKNOWN);
    /* nor on x86, where the clocksource decides: acpi_pm stays slow */
    live_facts("x86_64", "acpi_pm");
    pr.ntimings = 0;
    add_timing("libc.clock_gettime.monotonic_coarse", 20);
    add_timing("ref.empty_call", 2);
    add_timing("counter.rdtsc", 15);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW);
}

TEST(the_proof_deadline_follows_the_machines_speed)
{
    /* hardware: milliseconds of work, the 2 s floor */
    CHECK(proof_child_deadline_s(33, 240) == 2.0);
    /* a TCG guest where a syscall costs 82 us: tens of seconds */
    double tcg = proof_child_deadline_s(3800, 82000);
    CHECK(tcg > 30 && tcg < 40);
    /* monotone in the syscall cost, capped */
    CHECK(proof_child_deadline_s(100, 10000) < proof_child_deadline_s(100, 20000));
    CHECK(proof_child_deadline_s(1e6, 1e9) == 600.0);
}

TEST(errors_and_backwards_readings_are_broken)
{
    live_facts("x86_64", "tsc");
    counted_proof(0, 0);
    pr.call_errors[PC_MONOTONIC] = 3;
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_BROKEN);
    counted_proof(0, 0);
    pr.backwards = 1;
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_BROKEN);
}

TEST(without_a_count_the_facts_decide_and_no_vdso_is_slow)
{
    live_facts("x86_64", "acpi_pm");
    memset(&pr, 0, sizeof pr);
    pr.ran = pr.vdso_present = true;
    snprintf(pr.count_why, sizeof pr.count_why, "seccomp filters are not available here");
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && !dg.decided_by_proof && has_finding("proof-not-counted"));
    live_facts("x86_64", "tsc");
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_OK);
    pr.vdso_present = false;
    snprintf(pr.vdso_why, sizeof pr.vdso_why, "no AT_SYSINFO_EHDR");
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && dg.fast_path == 0 && has_finding("no-vdso"));
}

TEST(user_mode_emulation_is_unknown_not_a_wrong_diagnosis)
{
    live_facts("aarch64", "tsc"); /* the host's sysfs seen through qemu-user */
    memset(&pr, 0, sizeof pr);
    pr.ran = true;
    snprintf(pr.count_why, sizeof pr.count_why, "seccomp refused");
    snprintf(pr.vdso_why, sizeof pr.vdso_why, "no AT_SYSINFO_EHDR");
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_UNKNOWN && dg.fast_path == -1);
    CHECK(has_finding("emulated-foreign-kernel") && !has_finding("clocksource-no-vdso"));
    /* the same facts from a root are not emulation: the clocksource name decides */
    fs.live = false;
    struct proof none;
    memset(&none, 0, sizeof none);
    diagnose(&fs, &none, &dg);
    CHECK(dg.verdict == V_SLOW); /* tsc is not an arm64 clocksource */
    facts_free(&fs);
}

/* The riscv trap, live and counted: SLOW, and the answer says once what the vDSO does (no
 * syscall) and what it costs (the trap), with one figure in one unit. */
TEST(a_trapping_counter_is_one_answer_with_one_figure)
{
    live_facts("riscv64", "riscv_clocksource");
    set_fact(F_VERSION, "Linux version 6.12.0");
    counted_proof(0, 0);
    add_timing("libc.clock_gettime.monotonic", 13100);
    add_timing("libc.clock_gettime.monotonic_coarse", 310);
    add_timing("ref.empty_call", 40);
    add_timing("counter.rdtime", 12706.2);
    diagnose(&fs, &pr, &dg);
    CHECK(dg.verdict == V_SLOW && dg.fast_path == 1 && dg.counter_traps);
    CHECK(!strcmp(dg.trap_counter, "rdtime") && dg.trap_ns == 12706.2);
    CHECK(strstr(dg.summary, "made no syscall, but the counter the vDSO reads (rdtime) traps: "
                             "12.71 \xc2\xb5s per read"));
    CHECK(!strstr(dg.summary, "12706") && !strstr(dg.summary, " ns"));
    for (int i = 0; i < dg.nfindings; i++) /* nowhere the same read in raw nanoseconds */
        for (int e = 0; e < dg.findings[i].nevidence; e++)
            CHECK(!strstr(dg.findings[i].evidence[e], "12706"));
    facts_free(&fs);
}
