/* SPDX-License-Identifier: MIT */
#include "facts/hypervisor.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

/* CPUID leaf 0x40000000 signatures, as the hypervisors set them (the Linux kernel's
 * arch/x86/include/asm/ and arch/x86/kernel/cpu/ hypervisor detectors, systemd's virt.c,
 * the hypervisors' own documentation).  Spaces inside are part of the signature. */
static const struct {
    const char *signature, *name;
} cpuid_signatures[] = {
    {"KVMKVMKVM", "kvm"},          /* "KVMKVMKVM\0\0\0" */
    {"Linux KVM Hv", "kvm"},       /* KVM with Hyper-V enlightenments */
    {"Microsoft Hv", "microsoft"},
    {"VMwareVMware", "vmware"},
    {"XenVMMXenVMM", "xen"},
    {"TCGTCGTCGTCG", "qemu"},      /* QEMU without acceleration */
    {"bhyve bhyve ", "bhyve"},
    {"ACRNACRNACRN", "acrn"},
    {" QNXQVMBSQG ", "qnx"},
    {"VBoxVBoxVBox", "oracle"},
    {" prl hyperv ", "parallels"},
    {" lrpepyh vr ", "parallels"}, /* Parallels' byte-swapped variant */
};

/* [*start, *start + *len) of s without leading and trailing spaces (s ends at its NUL). */
static void trimmed(const char *s, const char **start, size_t *len)
{
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == ' ')
        n--;
    *start = s;
    *len = n;
}

const char *hypervisor_from_cpuid_signature(const char *signature)
{
    const char *s;
    size_t n;
    trimmed(signature, &s, &n);
    if (n == 0)
        return NULL;
    for (size_t i = 0; i < sizeof cpuid_signatures / sizeof cpuid_signatures[0]; i++) {
        const char *t;
        size_t tn;
        trimmed(cpuid_signatures[i].signature, &t, &tn);
        if (tn == n && memcmp(s, t, n) == 0)
            return cpuid_signatures[i].name;
    }
    return NULL;
}

/* sys/class/dmi/id/sys_vendor and product_name of the common hypervisors' virtual
 * firmware (systemd's virt.c reads the same). */
static const struct {
    const char *needle, *name;
} dmi_names[] = {
    {"QEMU", "qemu"}, {"KVM", "kvm"}, {"VMware", "vmware"}, {"Xen", "xen"},
    {"VirtualBox", "oracle"}, {"innotek", "oracle"}, {"BHYVE", "bhyve"},
    {"Amazon EC2", "amazon"}, {"Google Compute Engine", "google"},
    {"Virtual Machine", "microsoft"}, {"Parallels", "parallels"},
};

const char *hypervisor_from_dmi(const char *vendor, const char *product)
{
    for (size_t i = 0; i < sizeof dmi_names / sizeof dmi_names[0]; i++)
        if (strcasestr(vendor, dmi_names[i].needle) || strcasestr(product, dmi_names[i].needle))
            return dmi_names[i].name;
    return NULL;
}
