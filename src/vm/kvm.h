/* SPDX-License-Identifier: MIT */
/* Whether to run a guest under KVM: /dev/kvm must work, and must have booted guests. */
#ifndef CLOCKSCOPE_VM_KVM_H
#define CLOCKSCOPE_VM_KVM_H

#include <stdbool.h>
#include <stddef.h>

/* /dev/kvm opens and answers KVM_GET_API_VERSION with the version this qemu speaks, and
 * no guest has failed under KVM since the host booted (kvm_mark_broken).  On false, why
 * says which (MSG_REASON bytes hold it whole: it may quote a recorded reason and a path). */
bool kvm_usable(const char *arch, char *why, size_t whylen);

/* Records, in the cache and until the host reboots, that KVM started qemu but the guest
 * never reached /init (nested virtualization that cannot run a guest does this), so that
 * later runs go to TCG at once instead of waiting for the same failure. */
void kvm_mark_broken(const char *arch, const char *what);

#endif
