/* SPDX-License-Identifier: MIT */
/* `clockscope run`'s plan for patching a vDSO (run/run_vpatch.h) and the arch's jump
 * (arch/inject.h), on every arch: the plan on this arch's vDSO image (the live one, or
 * under qemu-user, which gives a process none, the image saved from a real kernel in
 * tests/data/vdso/) and on doctored copies (an entry point too short for the jump, a
 * signal trampoline lying over the bytes to write, another function starting inside
 * them); the jump written at every alignment and run. */
#include "check.h"
#include "arch/arch.h"
#include "arch/inject.h"
#include "run/run_reader_abi.h"
#include "run/run_vpatch.h"
#include "vdso/vdso.h"
#include "vdso/vdso_elf.h"

#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct copy {
    uint8_t *buf;
    struct vdso_image img;
    bool saved; /* read from tests/data/vdso/ */
};

/* The image this arch's kernel saved in tests/data/vdso/ARCH-*.so, found from the working
 * directory (the repository's root) or from the test binary (build/ or build/ARCH/). */
static bool saved_copy(struct copy *c)
{
    static const char *const dirs[] = {"tests/data/vdso", "@/../tests/data/vdso",
                                       "@/../../tests/data/vdso"};
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[700];
        if (dirs[d][0] == '@')
            snprintf(dir, sizeof dir, "%s%s", exe, dirs[d] + 1);
        else
            snprintf(dir, sizeof dir, "%s", dirs[d]);
        DIR *dh = opendir(dir);
        struct dirent *de;
        while (dh && (de = readdir(dh))) {
            size_t al = strlen(arch_name());
            if (strncmp(de->d_name, arch_name(), al) || de->d_name[al] != '-')
                continue;
            char path[1000];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            FILE *f = fopen(path, "rb");
            if (!f)
                continue;
            c->buf = malloc(1 << 20);
            size_t size = fread(c->buf, 1, 1 << 20, f);
            fclose(f);
            closedir(dh);
            char why[160];
            c->saved = true;
            return vdso_parse(c->buf, size, &c->img, why, sizeof why);
        }
        if (dh)
            closedir(dh);
    }
    return false;
}

/* A private copy of this arch's image, parsed: the live one where the process has one. */
static bool arch_copy(struct copy *c)
{
    const struct vdso_live *v = vdso_live();
    memset(c, 0, sizeof *c);
    if (!v->present || !v->parsed)
        return saved_copy(c);
    c->buf = malloc(v->size);
    memcpy(c->buf, v->base, v->size);
    char why[160];
    return vdso_parse(c->buf, v->size, &c->img, why, sizeof why);
}

static Elf64_Sym *sym_named(struct copy *c, const char *name)
{
    Elf64_Sym *t = (Elf64_Sym *)(c->buf + c->img.dynsym_off);
    for (size_t i = 0; i < c->img.nsyms; i++)
        if (t[i].st_name < c->img.dynstr_size &&
            !strcmp((const char *)c->buf + c->img.dynstr_off + t[i].st_name, name))
            return &t[i];
    return NULL;
}

static enum run_vpatch_result plan(struct copy *c, char *why, size_t whylen)
{
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n;
    return run_vpatch_plan(&c->img, sites, &n, why, whylen);
}

/* This arch's clock_gettime entry name and its prefix ("__vdso_", "__kernel_"). */
static const char *cg_name(void) { return arch_inject_vdso_entries()->name[0]; }
static void prefixed(char *out, size_t len, const char *suffix)
{
    const char *cg = cg_name();
    snprintf(out, len, "%.*s%s", (int)(strlen(cg) - strlen("clock_gettime")), cg, suffix);
}

/* The jump's length at this offset. */
static size_t jump_len_at(uint64_t off)
{
    uint8_t j[64];
    return arch_inject_abs_jump(j, sizeof j, off, 0x1122334455667788ull);
}

TEST(run_vpatch_plans_the_vdso_of_its_arch)
{
    struct copy c;
    CHECK(arch_copy(&c));
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n = 0;
    char why[200] = "";
    CHECK(run_vpatch_plan(&c.img, sites, &n, why, sizeof why) == RUN_VPATCH_OK);
    const struct arch_vdso_entries *e = arch_inject_vdso_entries();
    size_t expected = 0;
    for (unsigned i = 0; i < RUN_ENTRIES; i++)
        expected += e->name[i] != NULL; /* x86_64: time() too; aarch64, riscv64: none */
    CHECK(n == expected && !strcmp(sites[0].name, cg_name()));
    CHECK(c.img.machine == e->elf_machine);
    for (size_t i = 0; i < n; i++) {
        CHECK(!strstr(sites[i].name, "sigreturn") && !strstr(sites[i].name, "getrandom"));
        CHECK(sites[i].jump_len == jump_len_at(sites[i].offset) && sites[i].size >= sites[i].jump_len);
    }
    free(c.buf);
}

/* The images saved from real kernels, with their entry points where they are: aarch64's
 * 8-byte aligned (the literal after a nop: 24 bytes), riscv64's at 2 mod 8 and 6 mod 8
 * (compressed code: 22 and 26 bytes). */
TEST(run_vpatch_plans_the_saved_kernel_image_of_its_arch)
{
    struct copy c;
    memset(&c, 0, sizeof c);
    CHECK(saved_copy(&c));
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n = 0;
    char why[200] = "";
    CHECK(run_vpatch_plan(&c.img, sites, &n, why, sizeof why) == RUN_VPATCH_OK);
#if defined(__x86_64__)
    CHECK(n == 3 && !strcmp(sites[2].name, "__vdso_time"));
    for (size_t i = 0; i < n; i++)
        CHECK(sites[i].jump_len == 13);
#elif defined(__aarch64__)
    CHECK(n == 2 && !strcmp(sites[1].name, "__kernel_gettimeofday"));
    CHECK(sites[0].offset == 0x2d0 && sites[0].jump_len == 24);
    CHECK(sites[1].offset == 0x570 && sites[1].jump_len == 24);
#elif defined(__riscv)
    CHECK(n == 2 && !strcmp(sites[1].name, "__vdso_gettimeofday"));
    CHECK(sites[0].offset == 0x5ba && sites[0].jump_len == 22);
    CHECK(sites[1].offset == 0x82e && sites[1].jump_len == 26);
#endif
    free(c.buf);
}

TEST(run_vpatch_refuses_an_entry_shorter_than_the_jump)
{
    struct copy c;
    CHECK(arch_copy(&c));
    Elf64_Sym *cg = sym_named(&c, cg_name());
    CHECK(cg != NULL);
    Elf64_Sym *alias = sym_named(&c, "clock_gettime");
    size_t jl = jump_len_at(cg->st_value);
    char why[200] = "", words[80];
    cg->st_size = jl; /* exactly the jump: it fits */
    if (alias)
        alias->st_size = jl;
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_OK);
    cg->st_size = jl - 1; /* one byte short */
    if (alias)
        alias->st_size = jl - 1;
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_TOO_SMALL);
    snprintf(words, sizeof words, "shorter than the %zu-byte jump", jl);
    CHECK(strstr(why, words));
    free(c.buf);
}

/* Renames a symbol in the string table in place (same length) and moves it. */
static Elf64_Sym *rename_sym(struct copy *c, const char *from, const char *to, uint64_t value,
                             uint64_t size)
{
    Elf64_Sym *s = sym_named(c, from);
    if (!s || strlen(from) != strlen(to))
        return NULL;
    memcpy(c->buf + c->img.dynstr_off + s->st_name, to, strlen(to));
    s->st_value = value;
    s->st_size = size;
    return s;
}

TEST(run_vpatch_refuses_a_trampoline_over_the_jump)
{
    struct copy c;
    CHECK(arch_copy(&c));
    Elf64_Sym *cg = sym_named(&c, cg_name());
    CHECK(cg != NULL);
    /* A signal trampoline that starts 4 bytes before clock_gettime and covers its first
     * bytes: however it is laid out, its bytes are never written.  clock_getres and
     * rt_sigreturn have names of the same length on every arch. */
    char getres[64], tramp[64], words[100];
    prefixed(getres, sizeof getres, "clock_getres");
    prefixed(tramp, sizeof tramp, "rt_sigreturn");
    CHECK(rename_sym(&c, getres, tramp, cg->st_value - 4, 16));
    char why[200] = "";
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_TOO_SMALL);
    snprintf(words, sizeof words, "%s starts inside", tramp);
    CHECK(strstr(why, words));
    free(c.buf);
}

TEST(run_vpatch_refuses_a_function_starting_inside_the_jump)
{
    struct copy c;
    CHECK(arch_copy(&c));
    Elf64_Sym *cg = sym_named(&c, cg_name());
    CHECK(cg != NULL);
    char getres[64], words[100];
    prefixed(getres, sizeof getres, "clock_getres");
    Elf64_Sym *s = sym_named(&c, getres);
    CHECK(s != NULL);
    size_t jl = jump_len_at(cg->st_value);
    char why[200] = "";
    s->st_value = cg->st_value + jl; /* right after the jump: fine */
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_OK);
    s->st_value = cg->st_value + jl - 1; /* on its last byte */
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_TOO_SMALL);
    snprintf(words, sizeof words, "%s starts inside", getres);
    CHECK(strstr(why, words));
    free(c.buf);
}

TEST(run_vpatch_refuses_a_vdso_without_clock_gettime)
{
    struct copy c;
    CHECK(arch_copy(&c));
    char renamed[64], words[100];
    snprintf(renamed, sizeof renamed, "%s", cg_name());
    renamed[strlen(renamed) - 1] = 'X';
    CHECK(rename_sym(&c, cg_name(), renamed, sym_named(&c, cg_name())->st_value, 100));
    Elf64_Sym *alias = sym_named(&c, "clock_gettime");
    if (alias)
        memcpy(c.buf + c.img.dynstr_off + alias->st_name, "clock_gettimX", 13);
    char why[200] = "";
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_UNKNOWN_LAYOUT);
    snprintf(words, sizeof words, "no %s", cg_name());
    CHECK(strstr(why, words));
    free(c.buf);
}

/* Before any image is looked at, the arch's own answer: served, the plan goes on and finds
 * no clock_gettime in an empty image.  Runs on every arch, with or without a vDSO. */
TEST(run_vpatch_answers_for_its_arch_first)
{
    struct vdso_image img;
    memset(&img, 0, sizeof img);
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n = 1;
    char why[200] = "", arch_why[200] = "", words[100];
    CHECK(arch_inject_supported(arch_why, sizeof arch_why));
    enum run_vpatch_result r = run_vpatch_plan(&img, sites, &n, why, sizeof why);
    CHECK(n == 0);
    snprintf(words, sizeof words, "no %s", cg_name());
    CHECK(r == RUN_VPATCH_UNKNOWN_LAYOUT && strstr(why, words));
}

static long jump_target(long a, long b) { return a * 3 + b; }

#ifndef PROT_BTI
#define PROT_BTI 0x10 /* arm64: the page is guarded (a call must land on bti c) */
#endif

/* The jump, written at every offset of a page of code (the arch's instruction alignment
 * apart) and called: it reaches its target with the arguments intact.  On aarch64 the page
 * is mapped guarded (PROT_BTI) as the kernel maps the vDSO: a call into it must land on a
 * landing pad (where the CPU, or qemu's, has BTI).  The literal of aarch64 and riscv64 lies
 * at an 8-byte boundary (a misaligned load may be emulated by the kernel: slow). */
TEST(run_inject_jump_runs_at_every_alignment)
{
    long page = sysconf(_SC_PAGESIZE);
    int prot = PROT_READ | PROT_WRITE | PROT_EXEC;
#if defined(__aarch64__)
    prot |= PROT_BTI;
#endif
    uint8_t *code = mmap(NULL, (size_t)page, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(code != MAP_FAILED);
    uint64_t target = (uint64_t)(uintptr_t)jump_target;
    int ran = 0;
    for (unsigned k = 64; k < 80; k++) {
        uint8_t *at = code + k;
        uint8_t j[64];
        size_t jl = arch_inject_abs_jump(j, sizeof j, (uint64_t)(uintptr_t)at, target);
#if defined(__aarch64__)
        if (k % 4) {
            CHECK(jl == 0);
            continue;
        }
        uint32_t w0;
        memcpy(&w0, j, 4);
        CHECK(w0 == 0xd503245fu); /* bti c */
#elif defined(__riscv)
        if (k % 2) {
            CHECK(jl == 0);
            continue;
        }
#endif
        CHECK(jl > 0 && jl <= 32 && arch_inject_abs_jump(j, jl - 1, (uint64_t)(uintptr_t)at, target) == 0);
#if !defined(__x86_64__)
        uint64_t lit;
        memcpy(&lit, j + jl - 8, 8);
        CHECK(lit == target && ((uintptr_t)at + jl - 8) % 8 == 0);
#endif
        memset(code, 0, (size_t)page);
        memcpy(at, j, jl);
        __builtin___clear_cache((char *)code, (char *)code + page);
        long (*fn)(long, long);
        void *p = at;
        memcpy(&fn, &p, sizeof fn);
        CHECK(fn(7, k) == 21 + (long)k);
        ran++;
    }
    CHECK(ran >= 4);
    munmap(code, (size_t)page);
}

/* The syscall instruction run writes: x86_64 syscall (single-stepped), aarch64 svc #0 and
 * riscv64 ecall each followed by a breakpoint (the tracee continued up to it: riscv has
 * no single step). */
TEST(run_inject_syscall_instruction_of_its_arch)
{
    uint8_t insn[8];
    size_t n = arch_inject_syscall_insn(insn);
#if defined(__x86_64__)
    CHECK(n == 2 && insn[0] == 0x0f && insn[1] == 0x05);
#elif defined(__aarch64__)
    uint32_t w[2];
    memcpy(w, insn, 8);
    CHECK(n == 8 && w[0] == 0xd4000001u && w[1] == 0xd4200000u);
#elif defined(__riscv)
    uint32_t w[2];
    memcpy(w, insn, 8);
    CHECK(n == 8 && w[0] == 0x00000073u && w[1] == 0x00100073u);
#endif
}
