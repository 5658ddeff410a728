/* SPDX-License-Identifier: MIT */
/* The live proof's findings: syscall counts and timings, and the CPU-time clocks. */
#include "doctor/rules.h"

#include "common/units.h"
#include "doctor/findings.h"

#include <string.h>

void rule_proof(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd;
    if (!p || !p->ran)
        return;
    const struct proof_timing *mono = proof_timing_find(p, "libc.clock_gettime.monotonic");
    const struct proof_timing *real = proof_timing_find(p, "libc.clock_gettime.realtime");
    const struct proof_timing *sys = proof_timing_find(p, "syscall.clock_gettime.monotonic");
    const struct proof_timing *coarse = proof_timing_find(p, "libc.clock_gettime.monotonic_coarse");
    struct finding *f;
    if (p->counted) {
        bool fast = p->syscalls[PC_MONOTONIC] == 0 && p->syscalls[PC_REALTIME] == 0;
        f = finding_add(d, fast ? "proof-no-syscalls" : "proof-syscalls", fast ? SEV_INFO : SEV_WARNING,
                        fast ? "Proof: %ld clock_gettime calls made no syscall"
                             : "Proof: clock_gettime makes a syscall on every call", p->calls);
        for (int c = 0; c < PC_COUNT; c++)
            finding_evidence(f, "%ld calls of %s made %ld syscalls (counted by a seccomp "
                             "SECCOMP_RET_TRAP filter)", p->calls, proof_call_name(c), p->syscalls[c]);
    } else {
        f = finding_add(d, "proof-not-counted", SEV_NOTICE,
                        "The syscall count could not be taken here");
        finding_evidence(f, "%s", p->count_why);
        finding_meaning(f, "The verdict rests on timing and on the facts.");
    }
    if (mono)
        finding_evidence(f, "libc clock_gettime(CLOCK_MONOTONIC): %s per call%s",
                         NS_TEXT(mono->ns_per_call), mono->noisy ? " (noisy)" : "");
    if (real)
        finding_evidence(f, "libc clock_gettime(CLOCK_REALTIME): %s per call", NS_TEXT(real->ns_per_call));
    if (sys)
        finding_evidence(f, "raw clock_gettime syscall: %s per call", NS_TEXT(sys->ns_per_call));
    if (coarse)
        finding_evidence(f, "clock_gettime(CLOCK_MONOTONIC_COARSE): %s per call, resolution %.3f ms",
                         NS_TEXT(coarse->ns_per_call), p->res_ns_monotonic_coarse / 1e6);
    for (int i = 0; i < p->ntimings; i++)
        if (!strncmp(p->timing[i].id, "counter.", 8)) {
            if (p->timing[i].ok)
                finding_evidence(f, "raw counter read %s: %s", p->timing[i].id + 8,
                                 NS_TEXT(p->timing[i].ns_per_call));
            else
                finding_evidence(f, "raw counter read %s: not permitted (%s)", p->timing[i].id + 8,
                                 p->timing[i].why);
        }
    if (mono && sys && sys->ns_per_call > 0 && p->counted && p->syscalls[PC_MONOTONIC] == 0)
        finding_gain(f, "the vDSO path costs %s, the syscall it avoids %s: %.1fx cheaper",
                     NS_TEXT(mono->ns_per_call), NS_TEXT(sys->ns_per_call),
                     sys->ns_per_call / (mono->ns_per_call > 0.1 ? mono->ns_per_call : 0.1));
    else if (mono && sys && coarse)
        finding_gain(f, "measured here: clock_gettime %s, raw syscall %s, COARSE %s; "
                     "a healthy vDSO path costs tens of ns", NS_TEXT(mono->ns_per_call),
                     NS_TEXT(sys->ns_per_call), NS_TEXT(coarse->ns_per_call));
    if (!p->vdso_present) {
        struct finding *v = finding_add(d, "no-vdso", SEV_WARNING,
                                        "This process has no vDSO clock_gettime");
        finding_evidence(v, "%s", p->vdso_why);
        finding_meaning(v, "Without a vDSO every time read is a syscall (vdso=0, a kernel "
                        "without a vDSO for this ABI). Under qemu-user there is never a vDSO: "
                        "run the doctor on the real machine or in a full-system VM.");
    }
}

void rule_cpu_time_and_coarse(struct diagnosis *d, struct judgement *jd, const struct proof *p)
{
    (void)jd;
    struct finding *f = finding_add(d, "cputime-clocks-syscall", SEV_INFO,
                                    "CPU-time clocks always enter the kernel");
    finding_meaning(f, "CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID and clock IDs from "
                    "clock_getcpuclockid() have no vDSO path on any clocksource "
                    "(lib/vdso/gettimeofday.c serves only the hres and coarse clocks); code that "
                    "times itself with them pays a syscall per read.");
    if (p && p->ran) {
        const struct proof_timing *sys = proof_timing_find(p, "syscall.clock_gettime.monotonic");
        if (sys)
            finding_evidence(f, "a clock_gettime syscall costs %s here", NS_TEXT(sys->ns_per_call));
    }
}
