/* SPDX-License-Identifier: MIT */
/* Patching a stopped tracee's vDSO (run/run_vpatch.h).  Order, so that a failure at any
 * step leaves the program as it was: read and plan (nothing written), map the pages (a
 * failure unmaps them), write the reader, then the jumps (each one write to a stopped
 * process: no thread can run half of one). */
#include "run/run_vpatch.h"

#include "arch/inject.h"
#include "common/message.h"
#include "run/run_heal.h"
#include "run/run_reader_abi.h"
#include "run/run_trace.h"
#include "run_reader_blob.h"

#include <elf.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_VDSO_SIZE (1u << 20)
#define RUN_MFD_NOEXEC_SEAL 0x0008u /* linux/memfd.h, Linux 6.3 */

#if RUN_READER_BLOB_AVAILABLE
/* An entry the reader does not provide (time() where the vDSO has none): never planned,
 * since the arch names no such entry point. */
#define RUN_READER_NO_ENTRY UINT64_MAX
static const uint64_t entry_offset[RUN_ENTRIES] = {
    RUN_READER_CLOCK_GETTIME_OFFSET, RUN_READER_GETTIMEOFDAY_OFFSET, RUN_READER_TIME_OFFSET};
_Static_assert(sizeof run_reader_blob <= RUN_READER_CODE_SIZE, "the reader fits its code pages");
#endif

/* Whether [a, a+n) and [b, b+m) intersect. */
static bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
    return a < b + m && b < a + n;
}

enum run_vpatch_result run_vpatch_plan(const struct vdso_image *img, struct run_vpatch_site *sites,
                                       size_t *nsites, char *why, size_t whylen)
{
    *nsites = 0;
    if (!arch_inject_supported(why, whylen))
        return RUN_VPATCH_UNSUPPORTED;
    const struct arch_vdso_entries *e = arch_inject_vdso_entries();
    for (unsigned i = 0; i < RUN_ENTRIES; i++) {
        if (!e->name[i])
            continue;
        struct vdso_symbol s;
        if (!vdso_lookup(img, e->name[i], e->version, &s) && !vdso_lookup(img, e->name[i], NULL, &s)) {
            if (i == RUN_ENTRY_CLOCK_GETTIME) {
                snprintf(why, whylen, "unknown vDSO layout: it has no %s", e->name[i]);
                return RUN_VPATCH_UNKNOWN_LAYOUT;
            }
            continue; /* e.g. no time(): nothing to serve there */
        }
        if (arch_inject_symbol_forbidden(s.name)) {
            snprintf(why, whylen, "refusing to write %s", s.name);
            return RUN_VPATCH_UNKNOWN_LAYOUT;
        }
        /* The image starts on a page boundary: the offset has the address's alignment. */
        uint8_t jump[32];
        size_t jlen = arch_inject_abs_jump(jump, sizeof jump, s.offset, 0);
        if (jlen == 0) {
            snprintf(why, whylen, "unknown vDSO layout: %s at offset 0x%llx is not aligned as "
                     "an instruction", s.name, (unsigned long long)s.offset);
            return RUN_VPATCH_UNKNOWN_LAYOUT;
        }
        /* The symbol's size, not the distance to the next one: the jump must lie inside
         * this function alone. */
        if (s.size < jlen || s.offset + jlen > img->size) {
            snprintf(why, whylen, "the vDSO's %s is %llu bytes, shorter than the %zu-byte jump",
                     s.name, (unsigned long long)s.size, jlen);
            return RUN_VPATCH_TOO_SMALL;
        }
        /* No other function may start inside the bytes overwritten, and above all no
         * signal trampoline or getrandom (aliases at the same address are the same code). */
        for (size_t k = 0;; k++) {
            struct vdso_symbol o;
            if (k >= img->nsyms)
                break;
            if (!vdso_symbol_at(img, k, &o) || o.offset == s.offset)
                continue;
            bool forbidden = arch_inject_symbol_forbidden(o.name);
            if (overlaps(s.offset, jlen, o.offset, forbidden && o.size ? o.size : 1)) {
                snprintf(why, whylen, "%s starts inside the %zu bytes of %s the jump would overwrite",
                         o.name, jlen, s.name);
                return RUN_VPATCH_TOO_SMALL;
            }
        }
        sites[*nsites] = (struct run_vpatch_site){.name = e->name[i], .offset = s.offset,
                                                  .size = s.size, .entry = i, .jump_len = jlen};
        ++*nsites;
    }
    return RUN_VPATCH_OK;
}

uint64_t run_vpatch_region_hint(uint64_t vdso_base)
{
    /* 1 MiB below the vDSO: past its vvar pages (a few pages right below it on x86_64),
     * well within a direct jump's reach.  Only a hint: where it is taken the kernel places
     * the region as it would without one, and the absolute jump is used if that is too far. */
    return vdso_base > RUN_VPATCH_HINT_GAP ? vdso_base - RUN_VPATCH_HINT_GAP : 0;
}

size_t run_vpatch_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target)
{
    size_t n = arch_inject_near_jump(out, len, at, target);
    return n ? n : arch_inject_abs_jump(out, len, at, target);
}

static __attribute__((unused)) bool is_err(long r) { return r < 0 && r > -4096; }

enum run_vpatch_result run_vpatch_read(pid_t pid, struct run_vpatch_target *t, char *how, size_t hl)
{
    char why[MSG_LINE];
    memset(t, 0, sizeof *t);
    if (!arch_inject_supported(how, hl))
        return RUN_VPATCH_UNSUPPORTED;
    uint64_t base = 0, start = 0, end = 0;
    int ae = run_trace_auxv(pid, AT_SYSINFO_EHDR, &base);
    if (ae && ae != ENOENT) {
        snprintf(how, hl, "cannot read /proc/%d/auxv: %s", (int)pid,
                 ae == ESRCH ? "the process has ended" : strerror(ae));
        return RUN_VPATCH_TRACE_FAILED;
    }
    if (ae || base == 0) {
        snprintf(how, hl, "the kernel mapped no vDSO into it (vdso=0?): its clock reads are "
                 "syscalls, which nothing in user space can make cheaper");
        return RUN_VPATCH_NO_VDSO;
    }
    if (!run_trace_vdso_range(pid, &start, &end) || start != base || end - start > MAX_VDSO_SIZE) {
        snprintf(how, hl, "unknown vDSO layout: AT_SYSINFO_EHDR 0x%llx is not the start of "
                 "a [vdso] mapping in /proc/%d/maps", (unsigned long long)base, (int)pid);
        return RUN_VPATCH_UNKNOWN_LAYOUT;
    }
    t->base = base;
    t->size = (size_t)(end - start);
    t->image = malloc(t->size);
    if (!t->image) {
        snprintf(how, hl, "out of memory");
        return RUN_VPATCH_TRACE_FAILED;
    }
    enum run_vpatch_result res = RUN_VPATCH_OK;
    int e = run_trace_read(pid, base, t->image, t->size);
    struct vdso_image img;
    if (e) {
        snprintf(how, hl, "cannot read its vDSO through /proc/%d/mem: %s", (int)pid, strerror(e));
        res = RUN_VPATCH_TRACE_FAILED;
    } else if (!vdso_parse(t->image, t->size, &img, why, sizeof why)) {
        snprintf(how, hl, "unknown vDSO layout: %s", why);
        res = RUN_VPATCH_UNKNOWN_LAYOUT;
    } else if (img.machine != arch_inject_vdso_entries()->elf_machine) {
        snprintf(how, hl, "unknown vDSO layout: machine %u", (unsigned)img.machine);
        res = RUN_VPATCH_UNKNOWN_LAYOUT;
    } else {
        res = run_vpatch_plan(&img, t->sites, &t->nsites, how, hl);
    }
    if (res != RUN_VPATCH_OK) {
        free(t->image);
        t->image = NULL;
    }
    return res;
}

/* Whether the entry point at off already holds run's jump (a program served before), and
 * where it goes: either of the arch's jumps, to somewhere outside the vDSO (a pristine vDSO
 * never jumps out of itself: it has no relocations).  Where the arch cannot decode its
 * jumps, the absolute jump's first bytes tell (target then unknown). */
static __attribute__((unused)) bool holds_jump(const struct run_vpatch_target *t, uint64_t off,
                                               uint64_t *target)
{
    uint64_t to = 0;
    if (off < t->size &&
        arch_inject_jump_target(t->image + off, t->size - off, t->base + off, &to)) {
        if (to >= t->base && to < t->base + t->size)
            return false;
        if (target)
            *target = to;
        return true;
    }
    uint8_t jump[32];
    size_t jl = arch_inject_abs_jump(jump, sizeof jump, off, 0);
    if (target)
        *target = 0;
    return off + jl <= t->size && jl >= 2 && memcmp(t->image + off, jump, 2) == 0;
}

bool run_vpatch_region_of(const struct run_vpatch_target *t, uint64_t *region)
{
#if RUN_READER_BLOB_AVAILABLE
    for (size_t i = 0; i < t->nsites; i++) {
        uint64_t target = 0;
        if (t->sites[i].entry != RUN_ENTRY_CLOCK_GETTIME ||
            !holds_jump(t, t->sites[i].offset, &target) || !target)
            continue;
        *region = target - entry_offset[RUN_ENTRY_CLOCK_GETTIME];
        return true;
    }
#else
    (void)t, (void)region;
#endif
    return false;
}

bool run_vpatch_scratch(const uint8_t *image, size_t size, uint64_t *off, size_t *room)
{
    /* The end of everything the ELF headers describe: the program and section header
     * tables, every segment's file bytes, every section's (but SHT_NOBITS). */
    if (size < sizeof(Elf64_Ehdr) || memcmp(image, ELFMAG, SELFMAG) || image[EI_CLASS] != ELFCLASS64)
        return false;
    Elf64_Ehdr eh;
    memcpy(&eh, image, sizeof eh);
    uint64_t end = sizeof eh;
#define GROW(o, n)                                                                            \
    do {                                                                                      \
        uint64_t o_ = (o), n_ = (n);                                                          \
        if (o_ > size || n_ > size - o_)                                                      \
            return false;                                                                     \
        if (o_ + n_ > end)                                                                    \
            end = o_ + n_;                                                                    \
    } while (0)
    GROW(eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize);
    GROW(eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize);
    for (unsigned i = 0; i < eh.e_phnum && eh.e_phentsize >= sizeof(Elf64_Phdr); i++) {
        Elf64_Phdr ph;
        memcpy(&ph, image + eh.e_phoff + (uint64_t)i * eh.e_phentsize, sizeof ph);
        GROW(ph.p_offset, ph.p_filesz);
    }
    for (unsigned i = 0; i < eh.e_shnum && eh.e_shentsize >= sizeof(Elf64_Shdr); i++) {
        Elf64_Shdr sh;
        memcpy(&sh, image + eh.e_shoff + (uint64_t)i * eh.e_shentsize, sizeof sh);
        if (sh.sh_type != SHT_NOBITS)
            GROW(sh.sh_offset, sh.sh_size);
    }
#undef GROW
    end = (end + 63) & ~(uint64_t)63; /* a gap after the content */
    if (end >= size)
        return false;
    /* Scratch only if nothing is there: the kernel pads the image with zeros. */
    for (uint64_t i = end; i < size; i++)
        if (image[i])
            return false;
    *off = end, *room = (size_t)(size - end);
    return true;
}

#if RUN_READER_BLOB_AVAILABLE
/* One injection: the tracee, and where its syscalls run (through the self-healing stub for
 * run -p, or from the syscall instruction written at insn_at at the exec stop). */
struct inj {
    pid_t pid;
    struct run_heal *heal;
    uint64_t insn_at;
    struct run_trace_signals *taken;
};

/* Runs one syscall in the tracee. */
static int step(const struct inj *j, long nr, const long args[6], long *ret, char *why, size_t whylen)
{
    if (j->heal)
        return run_heal_syscall(j->heal, nr, args, ret, why, whylen);
    return run_trace_syscall(j->pid, j->insn_at, nr, args, ret, j->taken, why, whylen);
}

/* A running process has no descriptor of the memfd: it makes one, named by text written
 * into its new (still writable) code page at region; no execute permission (MFD_NOEXEC_SEAL,
 * where vm.memfd_noexec asks for it), or none to give where the kernel predates the flag
 * (EINVAL).  share adopts it.  0 with *memfd, or an errno value (*memfd -1 unless the
 * adoption failed: then it is the tracee's, to close). */
static int make_memfd(const struct inj *j, long region, const struct run_vpatch_share *share,
                      long *memfd, char *why, size_t whylen)
{
    int e;
    static const char name[] = "clockscope-run-page";
    if ((e = run_trace_write(j->pid, (uint64_t)region, name, sizeof name)))
        snprintf(why, whylen, "cannot write the memfd's name: %s", strerror(e));
    for (unsigned flags = MFD_CLOEXEC | RUN_MFD_NOEXEC_SEAL;; flags = MFD_CLOEXEC) {
        long am[6] = {region, flags, 0, 0, 0, 0};
        if (e || (e = step(j, SYS_memfd_create, am, memfd, why, whylen)) || *memfd != -EINVAL ||
            flags == MFD_CLOEXEC)
            break;
    }
    if (!e && is_err(*memfd)) {
        snprintf(why, whylen, "memfd_create in it failed: %s", strerror((int)-*memfd));
        e = EIO;
    }
    if (e)
        *memfd = -1;
    else if (!share->adopt(j->pid, *memfd, share->ctx, why, whylen))
        e = EIO;
    return e;
}

/* In the region: the memfd's pages mapped shared (the line read-only: the refresher's to
 * write), the process page wiped at fork and holding `first`, the reader's code written
 * and made read-only and executable.  0 or an errno value with why. */
static int map_pages(const struct inj *j, long region, long memfd,
                     const struct run_process_page *first, char *why, size_t whylen)
{
    long ret = 0;
    long a2[6] = {region + RUN_LINE_PAGE_OFFSET, RUN_MEMFD_SIZE, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_FIXED, memfd, 0};
    int e = step(j, SYS_mmap, a2, &ret, why, whylen);
    if (!e && ret != region + (long)RUN_LINE_PAGE_OFFSET) {
        snprintf(why, whylen, "mmap of the data pages failed: %s",
                 is_err(ret) ? strerror((int)-ret) : "wrong address");
        e = EIO;
    }
    if (!e) {
        long a6[6] = {region + RUN_LINE_PAGE_OFFSET, RUN_PAGE_SIZE, PROT_READ, 0, 0, 0};
        e = step(j, SYS_mprotect, a6, &ret, why, whylen);
        if (!e && ret != 0) {
            snprintf(why, whylen, "mprotect of the line page failed: %s", strerror((int)-ret));
            e = EIO;
        }
    }
    if (!e) {
        /* The process page starts as zeros in every forked child: the child's first read
         * then learns its own time namespace (reader.c).  A kernel without MADV_WIPEONFORK
         * (before 4.14) has no time namespaces either, and nothing to learn. */
        long a7[6] = {region + RUN_PROCESS_OFFSET, RUN_PAGE_SIZE, MADV_WIPEONFORK, 0, 0, 0};
        e = step(j, SYS_madvise, a7, &ret, why, whylen);
        if (!e && ret != 0 && !(ret == -EINVAL && access("/proc/self/ns/time", F_OK) != 0)) {
            snprintf(why, whylen, "madvise(MADV_WIPEONFORK) of the process page failed: %s",
                     strerror((int)-ret));
            e = EIO;
        }
    }
    if (!e && first && (e = run_trace_write(j->pid, (uint64_t)region + RUN_PROCESS_OFFSET, first,
                                            sizeof *first)))
        snprintf(why, whylen, "cannot write the process page: %s", strerror(e));
    if (!e && (e = run_trace_write(j->pid, (uint64_t)region, run_reader_blob, sizeof run_reader_blob)))
        snprintf(why, whylen, "cannot write the reader at 0x%lx: %s", region, strerror(e));
    if (!e) {
        long a5[6] = {region, RUN_READER_CODE_SIZE, PROT_READ | PROT_EXEC, 0, 0, 0};
        e = step(j, SYS_mprotect, a5, &ret, why, whylen);
        if (!e && ret != 0) {
            snprintf(why, whylen, "mprotect of the reader failed: %s", strerror((int)-ret));
            e = EIO;
        }
    }
    return e;
}

/* The reader's region mapped near the vDSO at base and filled (map_pages) from the memfd
 * (memfd, or one made in the tracee when share is given); the memfd then closed in the
 * tracee whatever happened, the region unmapped on failure.  0 with *region_out, or an
 * errno value with why. */
static int map_reader(const struct inj *j, uint64_t base, long memfd,
                      const struct run_vpatch_share *share, const struct run_process_page *first,
                      long *region_out, char *why, size_t whylen)
{
    long region = -1, ret = 0;
    const size_t region_size = RUN_REGION_SIZE;
    /* Writable first (the kernel does not force writes into an unpopulated read-only
     * anonymous mapping), read-only and executable once the reader is in. */
    long a1[6] = {(long)run_vpatch_region_hint(base), (long)region_size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0};
    int e = step(j, SYS_mmap, a1, &region, why, whylen);
    if (!e && is_err(region)) {
        snprintf(why, whylen, "mmap of the reader's pages failed: %s", strerror((int)-region));
        e = EIO, region = -1;
    }
    if (!e && share)
        e = make_memfd(j, region, share, &memfd, why, whylen);
    if (!e)
        e = map_pages(j, region, memfd, first, why, whylen);
    /* The memfd is closed in the tracee whatever happened: the mapping keeps the page. */
    long a3[6] = {memfd, 0, 0, 0, 0, 0};
    if (memfd >= 0 && step(j, SYS_close, a3, &ret, why, whylen) && !e)
        e = EIO;
    if (e && region != -1) {
        long a4[6] = {region, (long)region_size, 0, 0, 0, 0};
        char ignored[100];
        step(j, SYS_munmap, a4, &ret, ignored, sizeof ignored);
    }
    *region_out = region;
    return e;
}

/* The jumps to the reader at region written over every site, in order; on a failure those
 * written are put back.  how says what was done. */
static enum run_vpatch_result write_jumps(pid_t pid, const struct run_vpatch_target *t,
                                          long region, char *why, size_t whylen)
{
    const uint64_t base = t->base;
    const uint8_t *image = t->image;
    const struct run_vpatch_site *sites = t->sites;
    int e, n = snprintf(why, whylen, "patched vDSO: reader at 0x%lx,", region);
    for (size_t i = 0; i < t->nsites; i++) {
        uint8_t jump[32];
        size_t jl = run_vpatch_jump(jump, sizeof jump, base + sites[i].offset,
                                    (uint64_t)region + entry_offset[sites[i].entry]);
        /* The direct jump is shorter than the absolute one planned for the site; the
         * absolute one has the planned length (the base lies on a page boundary). */
        if (jl == 0 || jl > sites[i].jump_len)
            e = EINVAL;
        else
            e = run_trace_write(pid, base + sites[i].offset, jump, jl);
        if (e) {
            /* Put back what was written so far: the program runs as without run. */
            for (size_t k = 0; k <= i; k++)
                run_trace_write(pid, base + sites[k].offset, image + sites[k].offset,
                                sites[k].jump_len);
            snprintf(why, whylen, "cannot write the jump over %s: %s", sites[i].name, strerror(e));
            return RUN_VPATCH_TRACE_FAILED;
        }
        if (n > 0 && (size_t)n < whylen)
            n += snprintf(why + n, whylen - (size_t)n, " %s (%s jump)", sites[i].name,
                          jl < sites[i].jump_len ? "direct" : "absolute");
    }
    return RUN_VPATCH_OK;
}
#endif

enum run_vpatch_result run_vpatch(pid_t pid, int memfd_in_target,
                                  const struct run_vpatch_share *share,
                                  const struct run_process_page *first, char *how, size_t hl,
                                  struct run_trace_signals *taken, struct run_heal *heal)
{
#if !RUN_READER_BLOB_AVAILABLE
    (void)pid, (void)memfd_in_target, (void)share, (void)first, (void)taken, (void)heal;
    if (arch_inject_supported(how, hl))
        snprintf(how, hl, "this build has no injectable reader");
    return RUN_VPATCH_UNSUPPORTED;
#else
    char why[MSG_LINE];
    struct run_vpatch_target t;
    enum run_vpatch_result res = run_vpatch_read(pid, &t, how, hl);
    if (res != RUN_VPATCH_OK)
        return res;
    for (size_t i = 0; i < t.nsites; i++) {
        if (holds_jump(&t, t.sites[i].offset, NULL)) {
            snprintf(how, hl, "its vDSO's %s already jumps elsewhere: it is served already "
                     "(clockscope run --undo %d puts the vDSO back)", t.sites[i].name, (int)pid);
            free(t.image);
            return RUN_VPATCH_ALREADY;
        }
    }
    /* The syscall instruction: over clock_gettime's entry, which the jump overwrites anyway
     * (the program's own text stays untouched). */
    const struct inj j = {.pid = pid, .heal = heal, .insn_at = t.base + t.sites[0].offset,
                          .taken = taken};
    uint8_t insn[8];
    size_t ilen = arch_inject_syscall_insn(insn);
    int e;
    if (!heal && (e = run_trace_write(pid, j.insn_at, insn, ilen))) {
        snprintf(how, hl, "cannot write into its vDSO through /proc/%d/mem: %s (a kernel in "
                 "lockdown mode, or an LSM, may forbid it)", (int)pid, strerror(e));
        free(t.image);
        return RUN_VPATCH_TRACE_FAILED;
    }
    long region = -1;
    e = map_reader(&j, t.base, memfd_in_target, share, first, &region, why, sizeof why);
    if (e) {
        if (!heal)
            run_trace_write(pid, j.insn_at, t.image + t.sites[0].offset, ilen);
        snprintf(how, hl, "could not map the reader into it: %s", why);
        free(t.image);
        return RUN_VPATCH_TRACE_FAILED;
    }
    res = write_jumps(pid, &t, region, how, hl);
    free(t.image);
    return res;
#endif
}
