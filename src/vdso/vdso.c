/* SPDX-License-Identifier: MIT */
#include "vdso/vdso.h"

#include "vdso/vdso_names.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

/* The mapping's length from /proc/self/maps; 0 when /proc is not there. */
static size_t mapping_size(uintptr_t base)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    size_t size = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base && strstr(line, "[vdso]")) {
            size = hi - lo;
            break;
        }
    }
    fclose(f);
    return size;
}

/* Without /proc the mapping cannot be seen: take the ELF file's own extent (its section
 * headers come last, PT_LOAD covers the code), which the kernel maps in full.  The ELF
 * header lies in the first page, which is always mapped. */
static size_t extent_from_headers(const void *base)
{
    const Elf64_Ehdr *eh = base;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
        return sizeof *eh;
    uint64_t end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
    if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= 4096) {
        const Elf64_Phdr *ph = (const void *)((const char *)base + eh->e_phoff);
        for (unsigned i = 0; i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
                end = ph[i].p_offset + ph[i].p_filesz;
    }
    return end < 4096 ? 4096 : (size_t)end;
}

static void *resolve(struct vdso_live *v, const char *name, const char *version)
{
    struct vdso_symbol s;
    if (!name || !vdso_lookup(&v->image, name, version, &s))
        return NULL;
    return (void *)((uintptr_t)v->base + s.offset);
}

static struct vdso_live live;
static bool done;

const struct vdso_live *vdso_live(void)
{
    if (done)
        return &live;
    done = true;
    uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!base) {
        snprintf(live.why, sizeof live.why,
                 "the kernel passed no vDSO (AT_SYSINFO_EHDR absent: qemu-user, or vdso=0)");
        return &live;
    }
    live.present = true;
    live.base = (const void *)base;
    live.size = mapping_size(base);
    if (!live.size)
        live.size = extent_from_headers(live.base);
    char err[sizeof live.why - 40];
    if (!vdso_parse(live.base, live.size, &live.image, err, sizeof err)) {
        snprintf(live.why, sizeof live.why, "vDSO image does not parse: %s", err);
        return &live;
    }
    live.parsed = true;
    const struct vdso_symbol_names *n = vdso_names_self();
    live.clock_gettime = (vdso_clock_gettime_fn)resolve(&live, n->clock_gettime, n->version);
    live.gettimeofday = (vdso_gettimeofday_fn)resolve(&live, n->gettimeofday, n->version);
    live.time = (vdso_time_fn)resolve(&live, n->time, n->version);
    live.clock_getres = (vdso_clock_getres_fn)resolve(&live, n->clock_getres, n->version);
    live.getcpu = (vdso_getcpu_fn)resolve(&live, n->getcpu, n->version);
    return &live;
}
