/* The hardware counter: as the CPU states it (frequency, invariance, user-space reads,
 * the vDSO), and whether reading it traps (riscv's time CSR emulated by firmware, an arm64
 * CNTVCT trap). */
#include "doctor/rules.h"

#include "doctor/findings.h"

#include <string.h>

void rule_counter_facts(struct diagnosis *d)
{
    const struct counter_facts *k = &d->ctx.counter;
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

/* The counter itself: a read that costs microseconds is a trap to firmware or the
 * hypervisor (riscv time CSR emulated by OpenSBI; an arm64 CNTVCT trap). */
void rule_counter_traps(struct diagnosis *d, const struct proof *p)
{
    if (!p || !p->ran)
        return;
    for (int i = 0; i < p->ntimings; i++) {
        const struct proof_timing *t = &p->timing[i];
        if (!t->ok || strncmp(t->id, "counter.", 8) != 0 || !strcmp(t->id, "counter.rdcycle"))
            continue;
        if (t->ns_per_call < 500)
            continue;
        struct finding *c = finding_add(d, "counter-read-traps", SEV_WARNING,
                                        "Reading the counter (%s) costs %.0f ns: it traps",
                                        t->id + 8, t->ns_per_call);
        finding_evidence(c, "%s: %.1f ns per read", t->id, t->ns_per_call);
        const struct proof_timing *cyc = proof_timing_find(p, "counter.rdcycle");
        if (cyc)
            finding_evidence(c, "rdcycle: %.1f ns per read (the core itself is fast)", cyc->ns_per_call);
        finding_meaning(c, "A hardware counter read takes a few ns to tens of ns. Microseconds "
                        "mean the instruction traps and is emulated: on riscv, the time CSR read "
                        "by M-mode firmware (OpenSBI) or the hypervisor; on arm64 a CNTVCT trap. "
                        "The vDSO's clock_gettime pays it on every call.");
        finding_fix(c, "firmware/hardware: a core or SoC that implements the time CSR in hardware, "
                    "or firmware that lets S/U-mode read it (mcounteren.TM); in a VM, a hypervisor "
                    "that does not trap it");
        coarse_fix(c, p);
    }
}
