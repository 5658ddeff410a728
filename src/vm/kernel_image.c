/* Kernel image formats, recognised by the magic numbers each boot protocol defines:
 * Documentation/arch/x86/boot.rst (the "HdrS" setup header at 0x202),
 * Documentation/arch/arm64/booting.rst and Documentation/arch/riscv/boot-image-header.rst
 * (the magic at offset 0x38).  Checking before booting turns a wrong or corrupt file into
 * an error at once, instead of a guest that silently runs garbage until the timeout. */
#include "vm/kernel_image.h"
#include "vm/tools.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD_BYTES 0x240

static unsigned elf_machine_of(const unsigned char *h)
{
    return (unsigned)h[18] | (unsigned)h[19] << 8;
}

const char *kernel_image_kind(const unsigned char *h, size_t len)
{
    if (len >= 2 && h[0] == 0x1f && h[1] == 0x8b)
        return "gzip";
    if (len >= 20 && memcmp(h, "\x7f" "ELF", 4) == 0 && h[5] == 1 /* little-endian */) {
        switch (elf_machine_of(h)) {
        case 62: return "x86_64";
        case 183: return "aarch64";
        case 243: return "riscv64";
        default: return NULL;
        }
    }
    if (len >= 0x206 && memcmp(h + 0x202, "HdrS", 4) == 0)
        return "x86_64";
    if (len >= 0x3c && memcmp(h + 0x38, "ARM\x64", 4) == 0)
        return "aarch64";
    if (len >= 0x3c && memcmp(h + 0x38, "RSC\x05", 4) == 0)
        return "riscv64";
    return NULL;
}

static bool read_head(const char *path, unsigned char *head, size_t *got, char *why, size_t wl)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, wl, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    memset(head, 0, HEAD_BYTES);
    ssize_t n = read(fd, head, HEAD_BYTES);
    close(fd);
    if (n < 0) {
        snprintf(why, wl, "cannot read '%s': %s", path, strerror(errno));
        return false;
    }
    *got = (size_t)n;
    return true;
}

bool kernel_image_check(const struct vm_arch *arch, const char *path, char *boot_path,
                        size_t boot_len, char *tmp_path, size_t tmp_len, char *why,
                        size_t why_len)
{
    unsigned char head[HEAD_BYTES];
    size_t got;
    tmp_path[0] = '\0';
    if (!read_head(path, head, &got, why, why_len))
        return false;
    const char *kind = kernel_image_kind(head, got);
    snprintf(boot_path, boot_len, "%s", path);
    if (kind && strcmp(kind, "gzip") == 0) {
        const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(tmp_path, tmp_len, "%s/clockscope-vm-kernel.XXXXXX", dir);
        int fd = mkstemp(tmp_path);
        if (fd < 0) {
            snprintf(why, why_len, "cannot create a file in %s: %s", dir, strerror(errno));
            tmp_path[0] = '\0';
            return false;
        }
        char *argv[] = {"gzip", "-dc", "--", (char *)path, NULL};
        char err[256];
        int st = tool_run(argv, NULL, fd, err, sizeof err);
        close(fd);
        if (st != 0) {
            snprintf(why, why_len, "'%s' looks gzip-compressed but does not decompress "
                                   "(gzip -dc: %s)", path, st < 0 && !*err ? "could not run" : err);
            return false;
        }
        snprintf(boot_path, boot_len, "%s", tmp_path);
        if (!read_head(boot_path, head, &got, why, why_len))
            return false;
        kind = kernel_image_kind(head, got);
    }
    if (kind && strcmp(kind, arch->name) == 0)
        return true;
    if (kind && strcmp(kind, "gzip") != 0)
        snprintf(why, why_len, "'%s' is a %s kernel image, not %s", path, kind, arch->name);
    else if (got < HEAD_BYTES)
        snprintf(why, why_len, "'%s' is not a kernel image: only %zu bytes", path, got);
    else
        snprintf(why, why_len, "'%s' is not a %s kernel image (no %s boot header)", path,
                 arch->name, strcmp(arch->name, "x86_64") == 0 ? "bzImage 'HdrS'"
                             : strcmp(arch->name, "aarch64") == 0 ? "arm64 Image 'ARM\\x64'"
                                                                  : "riscv Image 'RSC\\x05'");
    return false;
}
