/* SPDX-License-Identifier: MIT */
/* The machine model (facts/machine.c) and the header view of it (facts/sysinfo.c): one
 * answer per fact, whatever the witness, and no crash on malformed or mutated fact text. */
#include "check.h"
#include "facts/machine.h"
#include "facts/sysinfo.h"

#include <stdlib.h>
#include <string.h>

/* Facts from text, as a facts root would give them. */
static void set(struct facts *fs, enum fact_id id, const char *text)
{
    fact_set_text(&fs->f[id], "test", text, strlen(text));
}

static struct machine m; /* large: the kernel-log events */

TEST(machine_names_the_cpuid_hypervisor_with_the_one_table)
{
    struct facts fs;
    memset(&fs, 0, sizeof fs);
    set(&fs, F_CPU, "arch=x86_64\nhypervisor_vendor= QNXQVMBSQG \n");
    machine_derive(&fs, &m);
    CHECK(!strcmp(m.virt, "qnx") && !strcmp(m.virt_source, "CPUID hypervisor leaf"));
    facts_free(&fs);

    memset(&fs, 0, sizeof fs);
    set(&fs, F_CPU, "arch=x86_64\nhypervisor_vendor=bhyve bhyve \n");
    machine_derive(&fs, &m);
    CHECK(!strcmp(m.virt, "bhyve"));
    facts_free(&fs);

    /* An unknown signature is reported as it is, not guessed. */
    memset(&fs, 0, sizeof fs);
    set(&fs, F_CPU, "arch=x86_64\nhypervisor_vendor=FooBarHv\n");
    machine_derive(&fs, &m);
    CHECK(!strcmp(m.virt, "FooBarHv"));
    facts_free(&fs);

    /* systemd-detect-virt outranks CPUID; the device tree answers on arm guests. */
    memset(&fs, 0, sizeof fs);
    set(&fs, F_VIRT, "kvm\n");
    set(&fs, F_CPU, "arch=x86_64\nhypervisor_vendor=Microsoft Hv\n");
    machine_derive(&fs, &m);
    CHECK(!strcmp(m.virt, "kvm") && !strcmp(m.virt_source, "systemd-detect-virt"));
    facts_free(&fs);

    memset(&fs, 0, sizeof fs);
    set(&fs, F_UNAME, "Linux h 6.1.0 #1 SMP aarch64\n");
    set(&fs, F_DT_HYPERVISOR, "xen,xen-4.17\0xen,xen");
    machine_derive(&fs, &m);
    CHECK(!strcmp(m.virt, "xen,xen-4.17"));
    facts_free(&fs);
}

TEST(machine_exposes_counter_facts)
{
    struct facts fs;
    memset(&fs, 0, sizeof fs);
    set(&fs, F_CPU, "arch=x86_64\ncounter_hz=2445406000\ncounter_hz_source=CPUID leaf 0x15\n"
                    "counter_invariant=1\nkvm_clock_stable_bit=0\ncounter.rdtsc=permitted\n"
                    "counter.rdtscp=not permitted: RDTSCP absent\ncounter.\ncounter\n");
    set(&fs, F_VDSO, "__vdso_time@LINUX_2.6\n__vdso_clock_gettime@LINUX_2.6\n");
    set(&fs, F_PERF_USER, "2\n");
    machine_derive(&fs, &m);
    const struct counter_facts *k = &m.counter;
    CHECK(k->known && !strcmp(k->hz, "2445406000") && !strcmp(k->hz_source, "CPUID leaf 0x15"));
    CHECK(k->invariant == 1 && k->kvm_stable_bit == 0 && m.kvm_stable_bit == 0);
    CHECK(k->nreads == 2 && !strcmp(k->reads[0], "rdtsc=permitted") &&
          !strcmp(k->reads[1], "rdtscp=not permitted: RDTSCP absent"));
    CHECK(!strcmp(k->perf_user_access, "2") && k->vdso == VDSO_HAS_CLOCK_GETTIME);
    facts_free(&fs);

    /* Malformed values are "not known", never a wrong yes or no. */
    memset(&fs, 0, sizeof fs);
    set(&fs, F_CPU, "counter_invariant=maybe\nkvm_clock_stable_bit=\ncounter_hz\n");
    set(&fs, F_VDSO, "absent: no AT_SYSINFO_EHDR\n");
    machine_derive(&fs, &m);
    CHECK(m.counter.invariant == -1 && m.counter.kvm_stable_bit == -1 && !m.counter.hz[0]);
    CHECK(m.counter.vdso == VDSO_ABSENT && m.counter.nreads == 0);
    facts_free(&fs);

    memset(&fs, 0, sizeof fs);
    machine_derive(&fs, &m);
    CHECK(!m.counter.known && m.counter.vdso == VDSO_UNKNOWN && m.counter.invariant == -1);
}

TEST(machine_cpu_description_prefers_the_model_name)
{
    static const struct { const char *cpuinfo, *want; } cases[] = {
        {"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\n", "Intel(R) Xeon(R)"},
        {"processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", "CPU part 0xd0c"},
        {"Hardware\t: BCM2835\nCPU part\t: 0xd08\n", "BCM2835"},
        {"hart\t\t: 0\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\n", "sifive,u74-mc"},
        {"hart\t\t: 0\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\n", "rv64imafdc"},
        {"no colon\n", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct facts fs;
        memset(&fs, 0, sizeof fs);
        set(&fs, F_CPUINFO, cases[i].cpuinfo);
        machine_derive(&fs, &m);
        char d[128];
        machine_cpu_description(&m, d, sizeof d);
        CHECK(!strcmp(d, cases[i].want));
        facts_free(&fs);
    }
}

TEST(header_is_a_view_of_the_machine_model)
{
    struct facts fs;
    memset(&fs, 0, sizeof fs);
    set(&fs, F_CURRENT_CS, "kvm-clock\n");
    set(&fs, F_AVAILABLE_CS, "kvm-clock tsc acpi_pm \n");
    set(&fs, F_VERSION, "Linux version 5.15.0-91-generic (buildd@lcy02) #101-Ubuntu SMP\n");
    set(&fs, F_CPU, "arch=x86_64\nhypervisor_vendor=KVMKVMKVM\n");
    set(&fs, F_CPUINFO, "model name\t: AMD EPYC 7B13\nflags\t\t: tsc hypervisor\n");
    machine_derive(&fs, &m);
    struct sysinfo si;
    sysinfo_from_machine(&m, &si);
    CHECK(!strcmp(si.clocksource, m.current_cs) && !strcmp(si.clocksource, "kvm-clock"));
    CHECK(!strcmp(si.virtualization, m.virt) && !strcmp(si.virtualization, "kvm"));
    CHECK(!strcmp(si.kernel, "5.15.0-91-generic") && !strcmp(si.cpu_model, "AMD EPYC 7B13"));
    facts_free(&fs);
}

/* Mutated clockscope/cpu, cpuinfo, vDSO and virt facts: machine_derive must neither crash
 * nor read past a fact (the suite runs this under ASan/UBSan). */
TEST(machine_survives_mutated_facts)
{
    static const char *const seeds[] = {
        "arch=x86_64\nhypervisor_vendor=bhyve bhyve \nkvm_clock_stable_bit=1\ncounter_invariant=1\n"
        "counter_hz=1000\ncounter_hz_source=x\ncounter.rdtsc=permitted\ncounter.rdtscp=permitted\n",
        "processor\t: 0\nmodel name\t: X\nflags\t\t: tsc constant_tsc nonstop_tsc hypervisor\n",
        "__vdso_clock_gettime@LINUX_2.6\nabsent\n",
    };
    unsigned seed = 11;
    char buf[512];
    for (int iter = 0; iter < 3000; iter++) {
        const char *s = seeds[iter % 3];
        size_t n = strlen(s);
        memcpy(buf, s, n);
        for (int e = 0; e < 1 + rand_r(&seed) % 6; e++) {
            size_t at = n ? (size_t)rand_r(&seed) % n : 0;
            switch (rand_r(&seed) % 3) {
            case 0: buf[at] = (char)rand_r(&seed); break;
            case 1: buf[at] = "\n=.: \0"[rand_r(&seed) % 6]; break;
            default: n = at; break;
            }
        }
        struct facts fs;
        memset(&fs, 0, sizeof fs);
        fact_set_text(&fs.f[F_CPU], "t", buf, n);
        fact_set_text(&fs.f[F_CPUINFO], "t", buf, n);
        fact_set_text(&fs.f[F_VDSO], "t", buf, n);
        fact_set_text(&fs.f[F_VIRT], "t", buf, n);
        fact_set_text(&fs.f[F_DT_HYPERVISOR], "t", buf, n);
        machine_derive(&fs, &m);
        CHECK(m.counter.nreads <= MACHINE_COUNTER_READS);
        CHECK(m.counter.invariant >= -1 && m.counter.invariant <= 1);
        struct sysinfo si;
        sysinfo_from_machine(&m, &si);
        facts_free(&fs);
    }
}

#include "doctor/diagnosis.h"

static struct diagnosis dg;

static bool evidence_has(const char *id, const char *text)
{
    for (int i = 0; i < dg.nfindings; i++)
        if (!strcmp(dg.findings[i].id, id))
            for (int e = 0; e < dg.findings[i].nevidence; e++)
                if (!strcmp(dg.findings[i].evidence[e], text))
                    return true;
    return false;
}

/* The counter-facts finding is built from the model's counter facts (not the raw text):
 * every stated fact and every probed read appears as evidence, once. */
TEST(doctor_counter_facts_come_from_the_model)
{
    struct facts fs;
    memset(&fs, 0, sizeof fs);
    set(&fs, F_CPU, "arch=riscv64\ncounter_hz=10000000\ncounter_hz_source=device tree "
                    "timebase-frequency\ncounter_invariant=1\ncounter.rdtime=permitted\n"
                    "counter.rdcycle=Illegal instruction: user access denied\n");
    set(&fs, F_VDSO, "__vdso_clock_gettime@LINUX_4.15\n");
    set(&fs, F_PERF_USER, "1\n");
    struct proof none;
    memset(&none, 0, sizeof none);
    diagnose(&fs, &none, &dg);
    CHECK(evidence_has("counter-facts", "counter frequency 10000000 Hz (device tree timebase-frequency)"));
    CHECK(evidence_has("counter-facts", "constant-rate (invariant) counter: yes"));
    CHECK(evidence_has("counter-facts", "user-space read rdtime=permitted"));
    CHECK(evidence_has("counter-facts", "user-space read rdcycle=Illegal instruction: user access denied"));
    CHECK(evidence_has("counter-facts", "vDSO: has clock_gettime"));
    CHECK(evidence_has("counter-facts", "kernel.perf_user_access = 1 (riscv/arm64: whether user space "
                                        "may read the cycle counter; 2 permits it on riscv)"));
    facts_free(&fs);
}
