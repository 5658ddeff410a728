/* SPDX-License-Identifier: MIT */
/* The one hypervisor table (facts/hypervisor.c): each CPUID signature and DMI name to its
 * hypervisor, near misses refused. */
#include "check.h"
#include "facts/hypervisor.h"

#include <string.h>

TEST(hypervisor_cpuid_signatures_name_each_hypervisor)
{
    static const struct { const char *sig, *name; } cases[] = {
        {"KVMKVMKVM", "kvm"},  /* "KVMKVMKVM\0\0\0" as arch_cpu_hypervisor() prints it */
        {"Linux KVM Hv", "kvm"}, {"Microsoft Hv", "microsoft"}, {"VMwareVMware", "vmware"},
        {"XenVMMXenVMM", "xen"}, {"TCGTCGTCGTCG", "qemu"}, {"ACRNACRNACRN", "acrn"},
        {"VBoxVBoxVBox", "oracle"},
        /* Spaces that belong to the signature, and the same signature saved trimmed. */
        {"bhyve bhyve ", "bhyve"}, {"bhyve bhyve", "bhyve"},
        {" QNXQVMBSQG ", "qnx"}, {"QNXQVMBSQG", "qnx"},
        {" prl hyperv ", "parallels"}, {" lrpepyh vr ", "parallels"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = hypervisor_from_cpuid_signature(cases[i].sig);
        CHECK(got && !strcmp(got, cases[i].name));
    }
}

TEST(hypervisor_cpuid_rejects_near_misses)
{
    static const char *const bad[] = {
        "", " ", "            ", "KVM", "KVMKVM", "KVMKVMKVMKVM", "kvmkvmkvm", "XKVMKVMKVM",
        "bhyve", "bhyve bhyve bhyve", "QNX", "Microsoft", "Microsoft Hv!", "??????",
        "GenuineIntel", "AuthenticAMD",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(hypervisor_from_cpuid_signature(bad[i]) == NULL);
}

TEST(hypervisor_dmi_names)
{
    CHECK(!strcmp(hypervisor_from_dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)"), "qemu"));
    CHECK(!strcmp(hypervisor_from_dmi("Microsoft Corporation", "Virtual Machine"), "microsoft"));
    CHECK(!strcmp(hypervisor_from_dmi("innotek GmbH", ""), "oracle"));
    CHECK(!strcmp(hypervisor_from_dmi("", "Google Compute Engine"), "google"));
    CHECK(hypervisor_from_dmi("Dell Inc.", "PowerEdge R740") == NULL);
    CHECK(hypervisor_from_dmi("", "") == NULL);
}
