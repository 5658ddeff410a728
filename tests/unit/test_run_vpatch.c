/* SPDX-License-Identifier: MIT */
/* `clockscope run`'s plan for patching a vDSO (run/run_vpatch.h), on this process's own
 * vDSO image and on doctored copies: an entry point too short for the jump, a signal
 * trampoline lying over the bytes to write, another function starting inside them. */
#include "check.h"
#include "arch/inject.h"
#include "run/run_reader_abi.h"
#include "run/run_vpatch.h"
#include "vdso/vdso.h"
#include "vdso/vdso_elf.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

struct copy {
    uint8_t *buf;
    struct vdso_image img;
};

/* A private copy of the live image, parsed; false (with a skip) where there is none or
 * the arch is not served. */
static __attribute__((unused)) bool live_copy(struct copy *c)
{
    const struct vdso_live *v = vdso_live();
    if (!v->present || !v->parsed)
        return false;
    c->buf = malloc(v->size);
    memcpy(c->buf, v->base, v->size);
    char why[160];
    return vdso_parse(c->buf, v->size, &c->img, why, sizeof why);
}

static __attribute__((unused)) Elf64_Sym *sym_named(struct copy *c, const char *name)
{
    Elf64_Sym *t = (Elf64_Sym *)(c->buf + c->img.dynsym_off);
    for (size_t i = 0; i < c->img.nsyms; i++)
        if (t[i].st_name < c->img.dynstr_size &&
            !strcmp((const char *)c->buf + c->img.dynstr_off + t[i].st_name, name))
            return &t[i];
    return NULL;
}

static __attribute__((unused)) enum run_vpatch_result plan(struct copy *c, char *why, size_t wl)
{
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n;
    return run_vpatch_plan(&c->img, sites, &n, why, wl);
}

TEST(run_vpatch_plans_the_live_vdso)
{
    struct copy c;
    char served_why[160];
    if (!arch_inject_supported(served_why, sizeof served_why))
        SKIP("this arch's vDSO is not patched yet (only x86_64)");
    if (!live_copy(&c))
        SKIP("no vDSO in this process");
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n = 0;
    char why[200] = "";
    CHECK(run_vpatch_plan(&c.img, sites, &n, why, sizeof why) == RUN_VPATCH_OK);
    CHECK(n >= 2 && !strcmp(sites[0].name, "__vdso_clock_gettime") && sites[0].size >= 13);
    for (size_t i = 0; i < n; i++)
        CHECK(!strstr(sites[i].name, "sigreturn") && !strstr(sites[i].name, "getrandom"));
    free(c.buf);
}

TEST(run_vpatch_refuses_an_entry_shorter_than_the_jump)
{
    struct copy c;
    char served_why[160];
    if (!arch_inject_supported(served_why, sizeof served_why))
        SKIP("this arch's vDSO is not patched yet (only x86_64)");
    if (!live_copy(&c))
        SKIP("no vDSO in this process");
    Elf64_Sym *cg = sym_named(&c, "__vdso_clock_gettime");
    CHECK(cg != NULL);
    Elf64_Sym *alias = sym_named(&c, "clock_gettime");
    cg->st_size = 12; /* one byte short of movabs r11 + jmp r11 */
    if (alias)
        alias->st_size = 12;
    char why[200] = "";
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_TOO_SMALL);
    CHECK(strstr(why, "shorter than the 13-byte jump"));
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
    char served_why[160];
    if (!arch_inject_supported(served_why, sizeof served_why))
        SKIP("this arch's vDSO is not patched yet (only x86_64)");
    if (!live_copy(&c))
        SKIP("no vDSO in this process");
    Elf64_Sym *cg = sym_named(&c, "__vdso_clock_gettime");
    CHECK(cg != NULL);
    /* A signal trampoline that starts 4 bytes before clock_gettime and covers its first
     * bytes: however it is laid out, its bytes are never written. */
    CHECK(rename_sym(&c, "__vdso_clock_getres", "__vdso_rt_sigreturn", cg->st_value - 4, 16));
    char why[200] = "";
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_TOO_SMALL);
    CHECK(strstr(why, "__vdso_rt_sigreturn starts inside"));
    free(c.buf);
}

TEST(run_vpatch_refuses_a_function_starting_inside_the_jump)
{
    struct copy c;
    char served_why[160];
    if (!arch_inject_supported(served_why, sizeof served_why))
        SKIP("this arch's vDSO is not patched yet (only x86_64)");
    if (!live_copy(&c))
        SKIP("no vDSO in this process");
    Elf64_Sym *cg = sym_named(&c, "__vdso_clock_gettime");
    CHECK(cg != NULL);
    Elf64_Sym *s = sym_named(&c, "__vdso_getcpu");
    CHECK(s != NULL);
    s->st_value = cg->st_value + 12;
    char why[200] = "";
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_TOO_SMALL);
    CHECK(strstr(why, "__vdso_getcpu starts inside"));
    free(c.buf);
}

TEST(run_vpatch_refuses_a_vdso_without_clock_gettime)
{
    struct copy c;
    char served_why[160];
    if (!arch_inject_supported(served_why, sizeof served_why))
        SKIP("this arch's vDSO is not patched yet (only x86_64)");
    if (!live_copy(&c))
        SKIP("no vDSO in this process");
    CHECK(rename_sym(&c, "__vdso_clock_gettime", "__vdso_clock_gettimX", sym_named(&c, "__vdso_clock_gettime")->st_value, 100));
    Elf64_Sym *alias = sym_named(&c, "clock_gettime");
    if (alias)
        memcpy(c.buf + c.img.dynstr_off + alias->st_name, "clock_gettimX", 13);
    char why[200] = "";
    CHECK(plan(&c, why, sizeof why) == RUN_VPATCH_UNKNOWN_LAYOUT);
    CHECK(strstr(why, "no __vdso_clock_gettime"));
    free(c.buf);
}
/* Before any image is looked at, the arch's own answer: served (x86_64), the plan goes on and
 * finds no clock_gettime in an empty image; not yet (aarch64, riscv64), it stops there and
 * says so.  Runs on every arch, with or without a vDSO (none under qemu-user). */
TEST(run_vpatch_answers_for_its_arch_first)
{
    struct vdso_image img;
    memset(&img, 0, sizeof img);
    struct run_vpatch_site sites[RUN_ENTRIES];
    size_t n = 1;
    char why[200] = "", arch_why[200] = "";
    bool served = arch_inject_supported(arch_why, sizeof arch_why);
    enum run_vpatch_result r = run_vpatch_plan(&img, sites, &n, why, sizeof why);
    CHECK(n == 0);
    if (served)
        CHECK(r == RUN_VPATCH_UNKNOWN_LAYOUT && strstr(why, "no __vdso_clock_gettime"));
    else
        CHECK(r == RUN_VPATCH_UNSUPPORTED && strstr(why, "not yet"));
}
