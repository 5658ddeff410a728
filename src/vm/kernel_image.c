/* SPDX-License-Identifier: MIT */
/* Kernel image formats, recognised by the magic numbers each boot protocol defines:
 * Documentation/arch/x86/boot.rst (the "HdrS" setup header at 0x202),
 * Documentation/arch/arm64/booting.rst and Documentation/arch/riscv/boot-image-header.rst
 * (the magic at offset 0x38), drivers/firmware/efi/libstub/zboot-header.S (EFI zboot: "zimg"
 * at 4, then the compressed payload's offset and size, and the compression's name at
 * 0x18; QEMU 7.2 cannot boot these itself, so the payload is extracted).  Checking before booting turns a wrong or corrupt file into
 * an error at once, instead of a guest that silently runs garbage until the timeout. */
#include "common/message.h"
#include "vm/kernel_image.h"
#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    if (len >= 0x38 && memcmp(h, "MZ", 2) == 0 && memcmp(h + 4, "zimg", 4) == 0)
        return "zboot";
    if (len >= 20 && memcmp(h, "\x7f" "ELF", 4) == 0 && h[5] == 1 /* little-endian */) {
        const struct arch_desc *a = arch_table_by_elf(elf_machine_of(h));
        return a ? a->name : NULL;
    }
    if (len >= 0x206 && memcmp(h + 0x202, "HdrS", 4) == 0)
        return "x86_64";
    if (len >= 0x3c && memcmp(h + 0x38, "ARM\x64", 4) == 0)
        return "aarch64";
    if (len >= 0x3c && memcmp(h + 0x38, "RSC\x05", 4) == 0)
        return "riscv64";
    return NULL;
}

static bool read_head(const char *path, unsigned char *head, size_t *got, char *why, size_t whylen)
{
    /* Regular files only, opened non-blocking: a FIFO is refused, never waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, whylen, "cannot read '%s': not a regular file", path);
        return false;
    }
    memset(head, 0, HEAD_BYTES);
    ssize_t n = read(fd, head, HEAD_BYTES);
    close(fd);
    if (n < 0) {
        snprintf(why, whylen, "cannot read '%s': %s", path, strerror(errno));
        return false;
    }
    *got = (size_t)n;
    return true;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int make_temp(char *path, size_t len, char *why, size_t whylen)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, len, "%s/clockscope-vm-kernel.XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create a file in %s: %s", dir, strerror(errno));
        path[0] = '\0';
    }
    return fd;
}

/* `program -dc -- src` into the temporary file out (created here). */
static bool decompress(const char *program, const char *src, const char *what, char *out,
                       size_t out_len, char *why, size_t whylen)
{
    int fd = make_temp(out, out_len, why, whylen);
    if (fd < 0)
        return false;
    char *argv[] = {(char *)program, "-dc", "--", (char *)src, NULL};
    char err[MSG_LINE];
    int st = subprocess_run_tool(argv, NULL, fd, err, sizeof err);
    close(fd);
    if (st != 0) {
        /* The tool's message, on one line. */
        char *msg = err + strspn(err, " \n");
        for (char *c = msg; *c; c++)
            if (*c == '\n')
                *c = ' ';
        for (size_t n = strlen(msg); n > 0 && msg[n - 1] == ' '; n--)
            msg[n - 1] = '\0';
        snprintf(why, whylen, "%s does not decompress (%s -dc: %s)", what, program,
                 st < 0 && !*msg ? "could not run" : msg);
        return false;
    }
    return true;
}

/* The compressed payload of an EFI zboot image, decompressed into out. */
static bool unpack_zboot(const char *path, const unsigned char *h, char *out, size_t out_len,
                         char *why, size_t whylen)
{
    uint32_t off = le32(h + 8), size = le32(h + 12);
    char method[9] = "";
    memcpy(method, h + 0x18, 8);
    const char *program = strcmp(method, "gzip") == 0   ? "gzip"
                          : strncmp(method, "zstd", 4) == 0 ? "zstd" /* "zstd22" */
                          : strcmp(method, "xzkern") == 0 || strcmp(method, "lzma") == 0 ? "xz"
                                                                                        : NULL;
    if (!program) {
        snprintf(why, whylen, "'%s' is an EFI zboot image compressed with '%.8s', which this "
                          "command does not unpack (gzip, zstd, xz)", path, method);
        return false;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    char payload[4096];
    bool ok = false;
    int fd = -1;
    if (fseek(f, 0, SEEK_END) != 0 || ftell(f) < 0 ||
        (uint64_t)off + size > (uint64_t)ftell(f) || size == 0) {
        snprintf(why, whylen, "'%s' is an EFI zboot image whose payload (offset %u, %u bytes) is "
                          "not inside the file", path, off, size);
    } else if ((fd = make_temp(payload, sizeof payload, why, whylen)) >= 0 &&
               fseek(f, off, SEEK_SET) == 0) {
        FILE *o = fdopen(fd, "wb");
        char buf[65536];
        uint32_t left = size;
        while (o && left > 0) {
            size_t n = fread(buf, 1, left < sizeof buf ? left : sizeof buf, f);
            if (n == 0 || fwrite(buf, 1, n, o) != n)
                break;
            left -= (uint32_t)n;
        }
        ok = o && fclose(o) == 0 && left == 0;
        if (!o)
            close(fd);
        if (!ok)
            snprintf(why, whylen, "cannot copy the payload of '%s'", path);
    }
    fclose(f);
    if (ok) {
        char what[MSG_WITH_PATH];
        snprintf(what, sizeof what, "the %s payload of the EFI zboot image '%s'", method, path);
        ok = decompress(program, payload, what, out, out_len, why, whylen);
    }
    if (fd >= 0)
        unlink(payload);
    return ok;
}

bool kernel_image_check(const struct vm_arch *arch, const char *path, char *boot_path,
                        size_t boot_len, char *tmp_path, size_t tmp_len, char *why,
                        size_t whylen)
{
    unsigned char head[HEAD_BYTES];
    size_t got;
    tmp_path[0] = '\0';
    if (!read_head(path, head, &got, why, whylen))
        return false;
    const char *kind = kernel_image_kind(head, got);
    snprintf(boot_path, boot_len, "%s", path);
    if (kind && (strcmp(kind, "gzip") == 0 || strcmp(kind, "zboot") == 0)) {
        char what[MSG_WITH_PATH];
        snprintf(what, sizeof what, "'%s' looks gzip-compressed but", path);
        bool ok = strcmp(kind, "gzip") == 0
                      ? decompress("gzip", path, what, tmp_path, tmp_len, why, whylen)
                      : unpack_zboot(path, head, tmp_path, tmp_len, why, whylen);
        if (!ok)
            return false;
        snprintf(boot_path, boot_len, "%s", tmp_path);
        if (!read_head(boot_path, head, &got, why, whylen))
            return false;
        kind = kernel_image_kind(head, got);
    }
    if (kind && strcmp(kind, arch->name) == 0)
        return true;
    if (kind && strcmp(kind, "gzip") != 0 && strcmp(kind, "zboot") != 0)
        snprintf(why, whylen, "'%s' is a %s kernel image, not %s", path, kind, arch->name);
    else if (got < HEAD_BYTES)
        snprintf(why, whylen, "'%s' is not a kernel image: only %zu bytes", path, got);
    else
        snprintf(why, whylen, "'%s' is not a %s kernel image (no %s boot header)", path,
                 arch->name, strcmp(arch->name, "x86_64") == 0 ? "bzImage 'HdrS'"
                             : strcmp(arch->name, "aarch64") == 0 ? "arm64 Image 'ARM\\x64'"
                                                                  : "riscv Image 'RSC\\x05'");
    return false;
}
