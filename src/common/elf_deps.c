/* SPDX-License-Identifier: MIT */
/* The file is read whole (shared libraries are a few MB) and every offset, size and string
 * is checked against what was read, so a truncated or hostile file gives an error, never a
 * wild read.  DT_STRTAB holds an address, not a file offset: the PT_LOAD segment that
 * contains it gives the offset. */
#include "common/elf_deps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PT_LOAD_TYPE 1
#define PT_DYNAMIC_TYPE 2
#define PT_INTERP_TYPE 3
#define DT_NULL_TAG 0
#define DT_NEEDED_TAG 1
#define DT_STRTAB_TAG 5
#define DT_STRSZ_TAG 10
#define MAX_FILE (64u << 20)
#define MAX_PHNUM 4096

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static unsigned char *slurp(const char *path, size_t *size, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 64 ||
        (uint64_t)st.st_size > MAX_FILE) {
        snprintf(why, whylen, "cannot read '%s' as an ELF file: %s", path,
                 fd < 0 ? strerror(errno) : "not a regular file of 64 bytes to 64 MiB");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    unsigned char *buf = malloc((size_t)st.st_size);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        snprintf(why, whylen, "cannot read '%s'", path);
        free(buf);
        return NULL;
    }
    *size = got;
    return buf;
}

/* A NUL-terminated string of at most ELF_DEPS_NAME_MAX bytes at buf[off], within [0, end). */
static const char *string_at(const unsigned char *buf, uint64_t off, uint64_t end)
{
    if (off >= end)
        return NULL;
    const unsigned char *nul = memchr(buf + off, 0, (size_t)(end - off));
    if (!nul || (size_t)(nul - (buf + off)) > ELF_DEPS_NAME_MAX)
        return NULL;
    return (const char *)buf + off;
}

/* The file read whole, with where its program headers and its dynamic section lie. */
struct elf_image {
    const char *path;
    const unsigned char *buf;
    size_t size;
    uint64_t phoff, phentsize, phnum;
    uint64_t dyn_off, dyn_size;
};

static const unsigned char *program_header(const struct elf_image *im, uint64_t i)
{
    return im->buf + im->phoff + i * im->phentsize;
}

/* Checks the ELF header and that the program headers lie inside the file. */
static bool check_header(struct elf_image *im, char *why, size_t whylen)
{
    const unsigned char *h = im->buf;
    im->phoff = le(h + 32, 8), im->phentsize = le(h + 54, 2), im->phnum = le(h + 56, 2);
    if (memcmp(h, "\x7f" "ELF", 4) != 0 || h[4] != 2 || h[5] != 1) {
        snprintf(why, whylen, "'%s' is not a 64-bit little-endian ELF file", im->path);
        return false;
    }
    if (im->phnum > MAX_PHNUM || im->phentsize < 56 || im->phoff > im->size ||
        im->phnum * im->phentsize > im->size - im->phoff) {
        snprintf(why, whylen, "'%s': malformed ELF program headers", im->path);
        return false;
    }
    return true;
}

/* PT_INTERP into d->interp, and where PT_DYNAMIC lies (the last one wins). */
static bool read_program_headers(struct elf_image *im, struct elf_deps *d, char *why, size_t whylen)
{
    for (uint64_t i = 0; i < im->phnum; i++) {
        const unsigned char *ph = program_header(im, i);
        uint64_t type = le(ph, 4), off = le(ph + 8, 8), filesz = le(ph + 32, 8);
        if ((type == PT_INTERP_TYPE || type == PT_DYNAMIC_TYPE) &&
            (off > im->size || filesz > im->size - off)) {
            snprintf(why, whylen, "'%s': a program header points outside the file", im->path);
            return false;
        }
        if (type == PT_INTERP_TYPE) {
            const char *s = string_at(im->buf, off, off + filesz);
            if (!s || s[0] != '/') {
                snprintf(why, whylen, "'%s': malformed PT_INTERP", im->path);
                return false;
            }
            memcpy(d->interp, s, strlen(s) + 1);
        } else if (type == PT_DYNAMIC_TYPE) {
            im->dyn_off = off;
            im->dyn_size = filesz;
        }
    }
    return true;
}

/* The dynamic string table's place in the file (*str_off, *strsz; *have false for a file
 * without DT_STRTAB): its address mapped through the PT_LOAD segment holding it. */
static bool find_strtab(const struct elf_image *im, uint64_t *str_off, uint64_t *strsz,
                        bool *have, char *why, size_t whylen)
{
    uint64_t strtab = 0;
    for (uint64_t e = im->dyn_off; im->dyn_size && e + 16 <= im->dyn_off + im->dyn_size; e += 16) {
        uint64_t tag = le(im->buf + e, 8), val = le(im->buf + e + 8, 8);
        if (tag == DT_NULL_TAG)
            break;
        if (tag == DT_STRTAB_TAG) {
            strtab = val;
            *have = true;
        } else if (tag == DT_STRSZ_TAG) {
            *strsz = val;
        }
    }
    bool mapped = false;
    for (uint64_t i = 0; *have && i < im->phnum && !mapped; i++) {
        const unsigned char *ph = program_header(im, i);
        uint64_t type = le(ph, 4), off = le(ph + 8, 8), vaddr = le(ph + 16, 8);
        uint64_t filesz = le(ph + 32, 8);
        if (type == PT_LOAD_TYPE && strtab >= vaddr && strtab - vaddr < filesz) {
            *str_off = off + (strtab - vaddr);
            mapped = true;
        }
    }
    if (*have && (!mapped || *str_off > im->size || *strsz > im->size - *str_off)) {
        snprintf(why, whylen, "'%s': its dynamic string table lies outside the file", im->path);
        return false;
    }
    return true;
}

/* Every DT_NEEDED name into d->needed, each a plain file name. */
static bool read_needed(const struct elf_image *im, struct elf_deps *d, char *why, size_t whylen)
{
    uint64_t str_off = 0, strsz = 0;
    bool have_strtab = false;
    if (!find_strtab(im, &str_off, &strsz, &have_strtab, why, whylen))
        return false;
    for (uint64_t e = im->dyn_off; im->dyn_size && e + 16 <= im->dyn_off + im->dyn_size; e += 16) {
        uint64_t tag = le(im->buf + e, 8), val = le(im->buf + e + 8, 8);
        if (tag == DT_NULL_TAG)
            break;
        if (tag != DT_NEEDED_TAG)
            continue;
        const char *name = have_strtab && val < strsz
                               ? string_at(im->buf, str_off + val, str_off + strsz)
                               : NULL;
        if (!name || !*name || strchr(name, '/')) {
            snprintf(why, whylen, "'%s': a malformed DT_NEEDED entry", im->path);
            return false;
        }
        if (d->n_needed == ELF_DEPS_MAX_NEEDED) {
            snprintf(why, whylen, "'%s' needs more than %d libraries", im->path, ELF_DEPS_MAX_NEEDED);
            return false;
        }
        memcpy(d->needed[d->n_needed++], name, strlen(name) + 1);
    }
    return true;
}

bool elf_deps_read(const char *path, struct elf_deps *d, char *why, size_t whylen)
{
    memset(d, 0, sizeof *d);
    struct elf_image im = {.path = path};
    unsigned char *buf = slurp(path, &im.size, why, whylen);
    if (!buf)
        return false;
    im.buf = buf;
    bool ok = check_header(&im, why, whylen) && read_program_headers(&im, d, why, whylen) &&
              read_needed(&im, d, why, whylen);
    free(buf);
    return ok;
}
