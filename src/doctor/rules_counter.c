/* SPDX-License-Identifier: MIT */
/* The hardware counter: as the CPU states it (frequency, invariance, user-space reads,
 * the vDSO), and whether reading it traps (riscv's time CSR emulated by firmware, an arm64
 * CNTVCT trap). */
#include "doctor/rules.h"

#include "common/units.h"
#include "doctor/findings.h"

#include <stdio.h>
#include <stdbool.h>
#include <string.h>

rule_fn rule_counter_facts, rule_counter_traps;

void rule_counter_facts(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd, (void)p;
    const struct counter_facts *k = &d->machine.counter;
    if (!k->known)
        return;
    struct finding *f = finding_add(d, "counter-facts", SEV_INFO,
                                    "The hardware counter, as the CPU states it");
    if (k->hz[0])
        finding_evidence(f, "counter frequency %s Hz (%s)", k->hz, k->hz_source);
    else
        finding_evidence(f, "counter frequency not stated by the CPU");
    if (k->invariant >= 0)
        finding_evidence(f, "constant-rate (invariant) counter: %s", k->invariant ? "yes" : "no");
    if (k->kvm_stable_bit >= 0)
        finding_evidence(f, "KVM offers the kvm-clock stable bit (CPUID 0x40000001 EAX[24]): %s",
                         k->kvm_stable_bit ? "yes" : "no");
    for (int i = 0; i < k->nreads; i++)
        finding_evidence(f, "user-space read %s", k->reads[i]);
    if (k->perf_user_access[0])
        finding_evidence(f, "kernel.perf_user_access = %s (riscv/arm64: whether user space may read "
                         "the cycle counter; 2 permits it on riscv)", k->perf_user_access);
    if (k->vdso != VDSO_UNKNOWN)
        finding_evidence(f, "vDSO: %s", k->vdso == VDSO_ABSENT               ? "absent"
                                        : k->vdso == VDSO_HAS_CLOCK_GETTIME ? "has clock_gettime"
                                                                            : "no clock_gettime");
}

/* Whether a counter read traps, judged against this machine's own cheapest operations,
 * so that it holds under emulation (where everything is slow) and on hardware alike.  A
 * read that is executed by the core costs a few times an empty function call and about
 * what a COARSE clock_gettime costs (a vDSO call that reads memory, no counter); a trap
 * adds an exception entry, an emulation in firmware, the kernel or the hypervisor, and a
 * return.  Measured: rdtime on QEMU's sifive_u (trapped to OpenSBI) 97x the empty call and
 * 26x COARSE; on QEMU's virt (no trap) 3x and 0.6x; rdtsc on a KVM guest 8x and 2x. */
#define TRAP_VS_EMPTY_CALL 50.0
#define TRAP_VS_COARSE 10.0
#define TRAP_VS_OTHER_COUNTER 4.0
bool counter_read_traps(double counter_ns, double empty_call_ns, double coarse_ns,
                        double other_counter_ns)
{
    if (counter_ns <= 0 || empty_call_ns < 0 || coarse_ns < 0)
        return false;
    /* An empty call that nets out at 0 ns (loop cost subtracted) is still one cycle. */
    double empty = empty_call_ns > 0.3 ? empty_call_ns : 0.3;
    if (counter_ns < TRAP_VS_EMPTY_CALL * empty || counter_ns < TRAP_VS_COARSE * coarse_ns)
        return false;
    /* Another counter of the same core read as cheaply: the core is slow, not trapping. */
    return other_counter_ns <= 0 || counter_ns >= TRAP_VS_OTHER_COUNTER * other_counter_ns;
}

/* What a timing says an operation costs for the trap's judgement: its fastest sample
 * where known.  The ratios compare costs the core pays on every call, and an interruption
 * (a busy host, an emulator's thread preempted) only ever makes a sample larger: with one
 * CPU kept busy, a few such samples can move the median of the empty call or COARSE
 * enough for a trapping rdtime under TCG to fall under TRAP_VS_COARSE. */
static double cost(const struct proof_timing *t)
{
    return t->min_ns > 0 ? t->min_ns : t->ns_per_call;
}

/* The counter itself: a read that costs far more than this machine's empty call and COARSE
 * clock_gettime is a trap to firmware or the hypervisor (riscv time CSR emulated by
 * OpenSBI; an arm64 CNTVCT trap). */
void rule_counter_traps(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    if (!p || !p->ran)
        return;
    const struct proof_timing *empty = proof_timing_find(p, "ref.empty_call");
    const struct proof_timing *coarse = proof_timing_find(p, "libc.clock_gettime.monotonic_coarse");
    if (!empty || !coarse)
        return; /* nothing to judge against */
    for (int i = 0; i < p->ntimings; i++) {
        const struct proof_timing *t = &p->timing[i];
        if (!t->ok || strncmp(t->id, "counter.", 8) != 0 || !strcmp(t->id, "counter.rdcycle"))
            continue;
        const struct proof_timing *cyc = proof_timing_find(p, "counter.rdcycle");
        if (!counter_read_traps(cost(t), cost(empty), cost(coarse), cyc ? cost(cyc) : 0))
            continue;
        if (!jd->counter_traps) { /* the first trapping counter speaks for the verdict */
            jd->counter_traps = true;
            snprintf(jd->trap_counter, sizeof jd->trap_counter, "%s", t->id + 8);
            jd->trap_ns = t->ns_per_call;
        }
        struct finding *c = finding_add(d, "counter-read-traps", SEV_WARNING,
                                        "Reading the counter (%s) costs %s: it traps",
                                        t->id + 8, NS_TEXT(t->ns_per_call));
        finding_evidence(c, "%s: %s per read", t->id, NS_TEXT(t->ns_per_call));
        finding_evidence(c, "an empty function call: %s (the read costs %.0fx that; a read "
                         "the core executes costs a few times)", NS_TEXT(empty->ns_per_call),
                         t->ns_per_call / (empty->ns_per_call > 0.3 ? empty->ns_per_call : 0.3));
        finding_evidence(c, "clock_gettime(CLOCK_MONOTONIC_COARSE), a vDSO call without a counter "
                         "read: %s (the read costs %.0fx that)", NS_TEXT(coarse->ns_per_call),
                         coarse->ns_per_call > 0 ? t->ns_per_call / coarse->ns_per_call : 0);
        if (cyc)
            finding_evidence(c, "rdcycle: %s per read (the core itself is fast)", NS_TEXT(cyc->ns_per_call));
        finding_evidence(c, "judged on each one's fastest sample (an interruption only makes a "
                         "sample larger): the read %s, the empty call %s, COARSE %s",
                         NS_TEXT(cost(t)), NS_TEXT(cost(empty)), NS_TEXT(cost(coarse)));
        finding_meaning(c, "Each read traps and is emulated (on riscv the time CSR by M-mode firmware, "
                        "OpenSBI, or the hypervisor; on arm64 a CNTVCT trap), and the vDSO's "
                        "clock_gettime pays that on every call. A read the core executes costs "
                        "about what a function call costs.");
        finding_fix(c, "firmware/hardware: a core or SoC that implements the time CSR in hardware, "
                    "or firmware that lets S/U-mode read it (mcounteren.TM); in a VM, a hypervisor "
                    "that does not trap it");
        coarse_fix(c, &d->machine, p);
        finding_action_firmware(c, "a core or SoC that implements the time CSR in hardware, or "
                                "firmware that lets S/U-mode read it (mcounteren.TM); in a VM, a "
                                "hypervisor that does not trap it", "none");
    }
}
