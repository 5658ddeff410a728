/* SPDX-License-Identifier: MIT */
/* Reads only the fixed-size ELF64 header and the program header table, each checked
 * against the file's size, so a truncated or hostile file gives BAD, never a wild read. */
#include "common/elf_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PT_DYNAMIC_TYPE 2
#define PT_INTERP_TYPE 3
#define MAX_PHNUM 4096

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Whether a section of that name exists; every offset checked against the file size (a
 * stripped or malformed table just answers false). */
static bool has_section(FILE *fp, const unsigned char *h, uint64_t size, const char *want)
{
    uint64_t shoff = le(h + 40, 8), shentsize = le(h + 58, 2), shnum = le(h + 60, 2),
             shstrndx = le(h + 62, 2);
    if (shnum == 0 || shnum > MAX_PHNUM || shentsize < 64 || shstrndx >= shnum ||
        shoff > size || shnum * shentsize > size - shoff)
        return false;
    unsigned char sh[64];
    if (fseek(fp, (long)(shoff + shstrndx * shentsize), SEEK_SET) != 0 || fread(sh, 1, 64, fp) != 64)
        return false;
    uint64_t stroff = le(sh + 24, 8), strsize = le(sh + 32, 8);
    size_t wl = strlen(want);
    if (wl + 1 > 32)
        return false;
    if (stroff > size || strsize > size - stroff)
        return false;
    for (uint64_t i = 0; i < shnum; i++) {
        if (fseek(fp, (long)(shoff + i * shentsize), SEEK_SET) != 0 || fread(sh, 1, 4, fp) != 4)
            return false;
        uint64_t name = le(sh, 4);
        char buf[32];
        if (name >= strsize || wl + 1 > strsize - name)
            continue;
        if (fseek(fp, (long)(stroff + name), SEEK_SET) != 0 || fread(buf, 1, wl + 1, fp) != wl + 1)
            continue;
        if (memcmp(buf, want, wl + 1) == 0)
            return true;
    }
    return false;
}

enum elf_probe_result elf_probe(const char *path, struct elf_facts *f, char *why, size_t whylen)
{
    memset(f, 0, sizeof *f);
    why[0] = 0;
    /* O_NONBLOCK and regular files only: a FIFO named as a program is refused, never
     * waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
    struct stat st;
    if (!fp || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "cannot open '%s': %s", path,
                 fp && !S_ISREG(st.st_mode) ? "not a regular file" : strerror(errno));
        if (fp)
            fclose(fp);
        else if (fd >= 0)
            close(fd);
        return ELF_PROBE_BAD;
    }
    unsigned char h[64];
    size_t got = fread(h, 1, sizeof h, fp);
    if (got < 4 || memcmp(h, "\x7f" "ELF", 4) != 0) {
        fclose(fp);
        return ELF_PROBE_NOT_ELF;
    }
    enum elf_probe_result res = ELF_PROBE_OK;
    f->elf64_le = got == sizeof h && h[4] == 2 && h[5] == 1;
    if (!f->elf64_le) {
        /* Not a kind the guests run; the caller names it by the machine check. */
        fclose(fp);
        return ELF_PROBE_OK;
    }
    f->machine = (unsigned)le(h + 18, 2);
    uint64_t phoff = le(h + 32, 8), phentsize = le(h + 54, 2), phnum = le(h + 56, 2);
    f->phnum = (unsigned)phnum;
    uint64_t size = (uint64_t)st.st_size;
    if (phnum > MAX_PHNUM || (phnum && (phentsize < 56 || phoff > size ||
                                        phnum * phentsize > size - phoff))) {
        snprintf(why, whylen, "'%s': malformed ELF program headers", path);
        fclose(fp);
        return ELF_PROBE_BAD;
    }
    for (uint64_t i = 0; i < phnum; i++) {
        unsigned char ph[4];
        if (fseek(fp, (long)(phoff + i * phentsize), SEEK_SET) != 0 || fread(ph, 1, 4, fp) != 4) {
            snprintf(why, whylen, "'%s': cannot read its ELF program headers", path);
            res = ELF_PROBE_BAD;
            break;
        }
        uint64_t type = le(ph, 4);
        f->has_interp |= type == PT_INTERP_TYPE;
        f->has_dynamic |= type == PT_DYNAMIC_TYPE;
    }
    if (res == ELF_PROBE_OK)
        f->go_buildinfo = has_section(fp, h, size, ".go.buildinfo");
    fclose(fp);
    return res;
}
