/* SPDX-License-Identifier: MIT */
/* Finding the static clockscope a guest runs as /init: in a build tree, in an installed
 * prefix, or this very binary when it is static and of the guest's arch. */
#include "vm/guest_binary.h"
#include "common/environment.h"

#include "arch/arch.h"
#include "common/elf_probe.h"
#include "common/message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATH_LEN 4096

/* A static ELF executable for the arch: the guest has no dynamic loader and no libc. */
static bool check_guest_binary(const struct vm_arch *arch, const char *path, char *why, size_t whylen)
{
    struct elf_facts f;
    enum elf_probe_result r = elf_probe(path, &f, why, whylen);
    if (r == ELF_PROBE_BAD)
        return false;
    if (r == ELF_PROBE_NOT_ELF || !f.elf64_le || f.machine != arch->desc->elf_machine) {
        snprintf(why, whylen, "'%s' is not a 64-bit little-endian %s executable", path, arch->name);
        return false;
    }
    if (f.has_interp) {
        snprintf(why, whylen, "'%s' is dynamically linked; the guest has no libc: build it "
                          "static (make STATIC=1)", path);
        return false;
    }
    return true;
}

/* What to install and build for a missing guest binary: the native gcc for this machine's
 * own arch, the Debian cross compiler for the others.  The command to paste stands on a
 * line of its own. */
static void how_to_build(const struct vm_arch *arch, char *buf, size_t len)
{
    bool native = strcmp(arch->name, arch_name()) == 0;
    snprintf(buf, len, "with %s installed, build the static binaries of all three arches "
                       "(a few minutes), in the source tree:\n    make vm-binaries\n"
                       "(%san installed clockscope needs `make install` again)",
             native ? "gcc libc6-dev" : arch->cross_packages,
             native ? "" : "`make cross` builds only aarch64 and riscv64; ");
}

bool guest_binary_find(const struct vm_arch *arch, const char *given, char *out, size_t len,
                       char *why, size_t whylen)
{
    if (given) {
        snprintf(out, len, "%s", given);
        return check_guest_binary(arch, out, why, whylen);
    }
    char candidates[3][PATH_LEN];
    int n = 0;
    const char *dir = getenv(ENV_VM_BINARY_DIR);
    char self[PATH_LEN] = "";
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0)
        self[self_len] = '\0';
    else
        self[0] = '\0';
    if (dir && *dir) {
        snprintf(candidates[n++], PATH_LEN, "%.4000s/%s/clockscope", dir, arch->name);
    } else if (self[0]) {
        char self_dir[PATH_LEN];
        snprintf(self_dir, sizeof self_dir, "%s", self);
        *strrchr(self_dir, '/') = '\0'; /* readlink of /proc/self/exe is absolute */
        snprintf(candidates[n++], PATH_LEN, "%.4000s/%s/clockscope", self_dir, arch->name);
        snprintf(candidates[n++], PATH_LEN, "%.4000s/../libexec/clockscope/%s/clockscope",
                 self_dir, arch->name);
    }
    for (int i = 0; i < n; i++) {
        if (access(candidates[i], R_OK) == 0) {
            snprintf(out, len, "%s", candidates[i]);
            return check_guest_binary(arch, out, why, whylen);
        }
    }
    /* A static clockscope of the guest's arch can be its own guest. */
    if (!(dir && *dir) && self[0] && strcmp(arch->name, arch_name()) == 0 &&
        check_guest_binary(arch, self, why, whylen)) {
        snprintf(out, len, "%s", self);
        return true;
    }
    char how[MSG_REASON];
    how_to_build(arch, how, sizeof how);
    if (n == 0) {
        snprintf(why, whylen, "cannot find this binary's directory to look for a static %s "
                          "clockscope; pass --binary PATH, or %s", arch->name, how);
        return false;
    }
    snprintf(why, whylen, "no static %s clockscope at %s%s%s (or pass --binary PATH); %s",
             arch->name, candidates[0], n > 1 ? " nor " : "", n > 1 ? candidates[1] : "", how);
    return false;
}
