/* SPDX-License-Identifier: MIT */
/* The vDSO ELF parser on the live image, and on truncated and corrupted copies of it
 * (in-process mutation fuzzing; tests/fuzz/ has the coverage-guided harness). */
#include "check.h"
#include "vdso/vdso.h"
#include "vdso/vdso_elf.h"

#include "arch/arch.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* Reads every symbol and every name byte: a bad offset shows under ASan. */
static size_t walk(const struct vdso_image *img)
{
    size_t sum = 0;
    for (size_t i = 0; i < img->nsyms + 2; i++) {
        struct vdso_symbol s;
        if (vdso_symbol_at(img, i, &s)) {
            sum += strlen(s.name) + (s.version ? strlen(s.version) : 0);
            sum += s.offset < img->size;
        }
    }
    struct vdso_symbol s;
    sum += vdso_lookup(img, "__vdso_clock_gettime", "LINUX_2.6", &s);
    return sum;
}

TEST(vdso_live_has_clock_gettime_where_the_kernel_gave_a_vdso)
{
    const struct vdso_live *v = vdso_live();
    if (!v->present) {
        /* qemu-user and vdso=0: the parser must say so, not invent one. */
        CHECK(strstr(v->why, "AT_SYSINFO_EHDR"));
        CHECK(!v->clock_gettime);
        return;
    }
    CHECK(v->parsed);
    CHECK(v->clock_gettime != NULL);
    struct timespec a, b;
    CHECK(v->clock_gettime(CLOCK_MONOTONIC, &a) == 0);
    CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
    CHECK(b.tv_sec >= a.tv_sec && b.tv_sec - a.tv_sec < 2);
}

TEST(vdso_parse_rejects_small_and_foreign_inputs)
{
    char err[160];
    struct vdso_image img;
    static const unsigned char not_elf[64] = "MZ not an elf";
    CHECK(!vdso_parse(NULL, 0, &img, err, sizeof err));
    CHECK(!vdso_parse(not_elf, sizeof not_elf, &img, err, sizeof err) && strstr(err, "magic"));
    unsigned char elf32[64] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
    CHECK(!vdso_parse(elf32, sizeof elf32, &img, err, sizeof err) && strstr(err, "64-bit"));
    unsigned char be[64] = {0x7f, 'E', 'L', 'F', 2, 2, 1};
    CHECK(!vdso_parse(be, sizeof be, &img, err, sizeof err) && strstr(err, "little-endian"));
}

TEST(vdso_parse_survives_every_truncation_and_random_corruption)
{
    const struct vdso_live *v = vdso_live();
    if (!v->present || !v->parsed)
        SKIP("this process has no vDSO to truncate (qemu-user gives none)");
    size_t size = v->size;
    unsigned char *copy = malloc(size);
    CHECK(copy);
    char err[160];
    struct vdso_image img;
    for (size_t cut = 0; cut <= size; cut += (cut < 4096 ? 1 : 61)) {
        unsigned char *exact = malloc(cut ? cut : 1);
        memcpy(exact, v->base, cut);
        if (vdso_parse(exact, cut, &img, err, sizeof err))
            walk(&img);
        free(exact);
    }
    unsigned seed = 12345;
    for (int round = 0; round < 20000; round++) {
        memcpy(copy, v->base, size);
        int flips = 1 + (int)(rand_r(&seed) % 8);
        for (int k = 0; k < flips; k++) {
            /* Mostly the headers and tables at the front, where the parser looks. */
            size_t at = (size_t)rand_r(&seed) % (round % 2 ? 1024 : size);
            copy[at] = (unsigned char)rand_r(&seed);
        }
        if (vdso_parse(copy, size, &img, err, sizeof err))
            walk(&img);
    }
    memcpy(copy, v->base, size);
    CHECK(vdso_parse(copy, size, &img, err, sizeof err));
    free(copy);
}

/* The DT_GNU_HASH path on its own: the live image with its DT_HASH entry renamed (to
 * DT_DEBUG, which the parser ignores) must give the same symbols, the same lookups. */
TEST(vdso_parse_counts_the_same_symbols_from_gnu_hash_alone)
{
    const struct vdso_live *v = vdso_live();
    if (!v->present || !v->parsed)
        SKIP("this process has no vDSO (qemu-user gives none)");
    size_t size = v->size;
    unsigned char *copy = malloc(size);
    CHECK(copy);
    memcpy(copy, v->base, size);
    char err[160];
    struct vdso_image whole, gnu_only;
    CHECK(vdso_parse(copy, size, &whole, err, sizeof err));
    Elf64_Ehdr eh;
    memcpy(&eh, copy, sizeof eh);
    bool had_hash = false, had_gnu = false;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, copy + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_DYNAMIC)
            continue;
        for (size_t k = 0; k < ph.p_filesz / sizeof(Elf64_Dyn); k++) {
            Elf64_Dyn d;
            unsigned char *at = copy + ph.p_offset + k * sizeof d;
            memcpy(&d, at, sizeof d);
            had_gnu |= d.d_tag == DT_GNU_HASH;
            if (d.d_tag == DT_HASH) {
                d.d_tag = DT_DEBUG;
                memcpy(at, &d, sizeof d);
                had_hash = true;
            }
        }
    }
    if (!had_gnu || !had_hash) {
        free(copy);
        SKIP("this vDSO lacks DT_HASH or DT_GNU_HASH (both: x86_64, riscv64 kernels)");
    }
    CHECK(vdso_parse(copy, size, &gnu_only, err, sizeof err));
    CHECK(gnu_only.nsyms == whole.nsyms && gnu_only.nsyms > 1);
    for (size_t i = 0; i < whole.nsyms; i++) {
        struct vdso_symbol a, b;
        bool ha = vdso_symbol_at(&whole, i, &a), hb = vdso_symbol_at(&gnu_only, i, &b);
        CHECK(ha == hb);
        if (ha)
            CHECK(!strcmp(a.name, b.name) && a.offset == b.offset);
    }
    free(copy);
}
