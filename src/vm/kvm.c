/* SPDX-License-Identifier: MIT */
/* The verdict file is keyed by the host's boot id: a reboot (a fixed host kernel, KVM
 * module options) gets a fresh try.  It lives beside the kernels in the cache. */
#include "vm/kvm.h"
#include "vm/kernel_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool verdict_path(const char *arch, char *path, size_t len)
{
    char cache[3800];
    if (!kernel_cache_dir(cache, sizeof cache))
        return false;
    snprintf(path, len, "%s/kernels/kvm-broken-%s", cache, arch);
    return true;
}

static bool boot_id(char *out, size_t len)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    return ok && *out;
}

bool kvm_usable(const char *arch, char *why, size_t whylen)
{
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "/dev/kvm: %s", strerror(errno));
        return false;
    }
    int v = ioctl(fd, KVM_GET_API_VERSION, 0);
    close(fd);
    if (v != KVM_API_VERSION) {
        snprintf(why, whylen, "/dev/kvm answers API version %d, not %d", v, KVM_API_VERSION);
        return false;
    }
    char path[4096], id[64], recorded[512] = "";
    if (verdict_path(arch, path, sizeof path) && boot_id(id, sizeof id)) {
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(recorded, sizeof recorded, f))
                recorded[0] = '\0';
            fclose(f);
        }
        size_t n = strlen(id);
        if (strncmp(recorded, id, n) == 0 && recorded[n] == ' ') {
            recorded[strcspn(recorded, "\n")] = '\0';
            snprintf(why, whylen, "KVM failed earlier since this host booted: %.200s; remove %.200s "
                               "to try it again", recorded + n + 1, path);
            return false;
        }
    }
    return true;
}

void kvm_mark_broken(const char *arch, const char *what)
{
    char path[4096], id[64];
    if (!verdict_path(arch, path, sizeof path) || !boot_id(id, sizeof id))
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%s %s\n", id, what);
    fclose(f);
}
