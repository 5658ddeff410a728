/* SPDX-License-Identifier: MIT */
#include "vdso/vdso_elf.h"

#include "common/arch_table.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

/* True when [off, off + len) lies inside the image, without overflowing. */
static bool in_bounds(const struct vdso_image *img, uint64_t off, uint64_t len)
{
    return off <= img->size && len <= img->size - off;
}

/* Reads a struct at an offset after a bounds check (images need not be aligned). */
static bool read_at(const struct vdso_image *img, uint64_t off, void *dst, size_t len)
{
    if (!in_bounds(img, off, len))
        return false;
    memcpy(dst, img->base + off, len);
    return true;
}

/* Converts a virtual address from the dynamic section into an image offset. */
static bool vaddr_to_off(const struct vdso_image *img, uint64_t vaddr, size_t *off)
{
    if (vaddr < img->load_vaddr || img->load_offset > img->size)
        return false;
    uint64_t delta = vaddr - img->load_vaddr;
    if (delta > img->size - img->load_offset)
        return false;
    *off = (size_t)(img->load_offset + delta);
    return true;
}

/* A NUL-terminated string at strtab[idx], or NULL if it runs off the table. */
static const char *str_at(const struct vdso_image *img, uint64_t idx)
{
    if (idx >= img->dynstr_size)
        return NULL;
    const char *s = (const char *)img->base + img->dynstr_off + idx;
    if (!memchr(s, 0, img->dynstr_size - idx))
        return NULL;
    return s;
}

#define FAIL(...)                                                                   \
    do {                                                                            \
        snprintf(why, whylen, __VA_ARGS__);                                         \
        return false;                                                               \
    } while (0)

/* Symbol count from DT_HASH: nchain equals the number of symbols. */
static bool count_from_hash(const struct vdso_image *img, size_t hash_off, size_t *n)
{
    uint32_t hdr[2];
    if (!read_at(img, hash_off, hdr, sizeof hdr))
        return false;
    *n = hdr[1];
    return true;
}

/* Symbol count from DT_GNU_HASH: one past the highest index any chain reaches. */
static bool count_from_gnu_hash(const struct vdso_image *img, size_t off, size_t *n)
{
    uint32_t hdr[4]; /* nbuckets, symoffset, bloom_size, bloom_shift */
    if (!read_at(img, off, hdr, sizeof hdr))
        return false;
    uint64_t buckets = off + 16 + (uint64_t)hdr[2] * 8;
    if (hdr[0] > VDSO_MAX_SYMBOLS || !in_bounds(img, buckets, (uint64_t)hdr[0] * 4))
        return false;
    uint64_t chains = buckets + (uint64_t)hdr[0] * 4;
    uint32_t max = 0;
    for (uint32_t b = 0; b < hdr[0]; b++) {
        uint32_t v;
        memcpy(&v, img->base + buckets + b * 4, 4);
        if (v > max)
            max = v;
    }
    if (max < hdr[1]) {
        *n = hdr[1];
        return true;
    }
    /* Walk the last chain to its end (low bit set marks the end). */
    for (uint32_t i = max; i < VDSO_MAX_SYMBOLS; i++) {
        uint32_t h;
        if (!read_at(img, chains + (uint64_t)(i - hdr[1]) * 4, &h, 4))
            return false;
        if (h & 1) {
            *n = (size_t)i + 1;
            return true;
        }
    }
    return false;
}

/* The ELF identification and header: a 64-bit little-endian shared object whose program
 * headers lie inside the image. */
static bool check_header(struct vdso_image *img, Elf64_Ehdr *eh, char *why, size_t whylen)
{
    size_t size = img->size;
    if (!img->base || size < EI_NIDENT)
        FAIL("image too small (%zu bytes) to be an ELF file", size);
    const unsigned char *id = img->base;
    if (memcmp(id, ELFMAG, SELFMAG) != 0)
        FAIL("not an ELF image (bad magic)");
    if (id[EI_CLASS] != ELFCLASS64)
        FAIL("not a 64-bit ELF image (class %u): 32-bit vDSOs are not supported", id[EI_CLASS]);
    if (id[EI_DATA] != ELFDATA2LSB)
        FAIL("not a little-endian ELF image (data encoding %u)", id[EI_DATA]);
    if (!read_at(img, 0, eh, sizeof *eh))
        FAIL("truncated ELF header (%zu of %zu bytes)", size, sizeof *eh);
    img->machine = eh->e_machine;
    if (eh->e_type != ET_DYN)
        FAIL("not a shared object (e_type %u)", eh->e_type);
    if (eh->e_phentsize != sizeof(Elf64_Phdr))
        FAIL("unexpected program header size %u", eh->e_phentsize);
    if (eh->e_phnum == 0 || !in_bounds(img, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
        FAIL("program headers lie outside the image (offset %llu, %u entries)",
             (unsigned long long)eh->e_phoff, eh->e_phnum);
    return true;
}

/* The first PT_LOAD (where addresses map to the image) and PT_DYNAMIC, into *dyn_ph. */
static bool find_segments(struct vdso_image *img, const Elf64_Ehdr *eh, Elf64_Phdr *dyn_ph,
                          char *why, size_t whylen)
{
    bool have_load = false, have_dynamic = false;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        read_at(img, eh->e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph);
        if (ph.p_type == PT_LOAD && !have_load) {
            img->load_vaddr = ph.p_vaddr;
            img->load_offset = ph.p_offset;
            have_load = true;
        } else if (ph.p_type == PT_DYNAMIC) {
            *dyn_ph = ph;
            have_dynamic = true;
        } else if (ph.p_type == PT_INTERP) {
            img->interp_off = ph.p_offset;
            img->interp_len = ph.p_filesz;
        }
    }
    if (!have_load)
        FAIL("no PT_LOAD segment");
    if (!have_dynamic)
        FAIL("no PT_DYNAMIC segment");
    if (!in_bounds(img, dyn_ph->p_offset, dyn_ph->p_filesz))
        FAIL("dynamic section lies outside the image");
    return true;
}

/* The addresses the dynamic section gives (0: absent). */
struct dyn_tables {
    uint64_t symtab, strtab, strsz, hash, gnu_hash, versym, verdef, syment;
};

static void read_dynamic(struct vdso_image *img, const Elf64_Phdr *dyn_ph,
                         struct dyn_tables *t)
{
    *t = (struct dyn_tables){.syment = sizeof(Elf64_Sym)};
    size_t ndyn = dyn_ph->p_filesz / sizeof(Elf64_Dyn);
    for (size_t i = 0; i < ndyn; i++) {
        Elf64_Dyn d;
        read_at(img, dyn_ph->p_offset + i * sizeof d, &d, sizeof d);
        if (d.d_tag == DT_NULL)
            break;
        switch (d.d_tag) {
        case DT_SYMTAB: t->symtab = d.d_un.d_ptr; break;
        case DT_STRTAB: t->strtab = d.d_un.d_ptr; break;
        case DT_STRSZ: t->strsz = d.d_un.d_val; break;
        case DT_SYMENT: t->syment = d.d_un.d_val; break;
        case DT_HASH: t->hash = d.d_un.d_ptr; break;
        case DT_GNU_HASH: t->gnu_hash = d.d_un.d_ptr; break;
        case DT_VERSYM: t->versym = d.d_un.d_ptr; break;
        case DT_VERDEF: t->verdef = d.d_un.d_ptr; break;
        case DT_SONAME: img->soname = d.d_un.d_val; img->has_soname = true; break;
        case DT_NEEDED: img->needed = img->nneeded++ ? img->needed : d.d_un.d_val; break;
        default: break;
        }
    }
}

/* The symbol and string tables' places in the image. */
static bool locate_tables(struct vdso_image *img, const struct dyn_tables *t, char *why,
                          size_t whylen)
{
    if (!t->symtab || !t->strtab || !t->strsz)
        FAIL("dynamic section lacks DT_SYMTAB, DT_STRTAB or DT_STRSZ");
    if (t->syment != sizeof(Elf64_Sym))
        FAIL("unexpected symbol entry size %llu", (unsigned long long)t->syment);
    if (!vaddr_to_off(img, t->symtab, &img->dynsym_off) ||
        !vaddr_to_off(img, t->strtab, &img->dynstr_off))
        FAIL("symbol or string table address lies outside the image");
    if (!in_bounds(img, img->dynstr_off, t->strsz))
        FAIL("string table (%llu bytes) runs past the image", (unsigned long long)t->strsz);
    img->dynstr_size = t->strsz;
    return true;
}

/* How many symbols there are (the ELF has no count: a hash table gives it), and the
 * version tables when they are there. */
static bool count_symbols(struct vdso_image *img, const struct dyn_tables *t, char *why,
                          size_t whylen)
{
    size_t off, n = 0;
    bool counted = false;
    if (t->hash && vaddr_to_off(img, t->hash, &off))
        counted = count_from_hash(img, off, &n);
    if (!counted && t->gnu_hash && vaddr_to_off(img, t->gnu_hash, &off))
        counted = count_from_gnu_hash(img, off, &n);
    if (!counted)
        FAIL("cannot count symbols: no usable DT_HASH or DT_GNU_HASH");
    if (n > VDSO_MAX_SYMBOLS)
        FAIL("implausible symbol count %zu", n);
    if (!in_bounds(img, img->dynsym_off, (uint64_t)n * sizeof(Elf64_Sym)))
        FAIL("symbol table (%zu entries) runs past the image", n);
    img->nsyms = n;

    if (t->versym && vaddr_to_off(img, t->versym, &img->versym_off) &&
        in_bounds(img, img->versym_off, (uint64_t)n * 2))
        img->has_versym = true;
    if (t->verdef && vaddr_to_off(img, t->verdef, &img->verdef_off))
        img->has_verdef = true;
    return true;
}

bool vdso_parse(const void *buf, size_t size, struct vdso_image *img, char *why, size_t whylen)
{
    memset(img, 0, sizeof *img);
    img->base = buf;
    img->size = size;
    Elf64_Ehdr eh;
    Elf64_Phdr dyn_ph = {0};
    struct dyn_tables t;
    if (!check_header(img, &eh, why, whylen) || !find_segments(img, &eh, &dyn_ph, why, whylen))
        return false;
    read_dynamic(img, &dyn_ph, &t);
    return locate_tables(img, &t, why, whylen) && count_symbols(img, &t, why, whylen);
}

/* The name of the first version definition (the base one excepted) that has index ndx
 * (0: any index) and whose name starts with prefix (NULL: any), walking the Verdef chain. */
static const char *version_find(const struct vdso_image *img, uint16_t ndx, const char *prefix)
{
    if (!img->has_verdef)
        return NULL;
    uint64_t off = img->verdef_off;
    for (int guard = 0; guard < 256; guard++) {
        Elf64_Verdef vd;
        if (!read_at(img, off, &vd, sizeof vd))
            return NULL;
        if (!(vd.vd_flags & VER_FLG_BASE) && (ndx == 0 || (vd.vd_ndx & 0x7fff) == ndx)) {
            Elf64_Verdaux aux;
            const char *name = read_at(img, off + vd.vd_aux, &aux, sizeof aux)
                                   ? str_at(img, aux.vda_name) : NULL;
            if (ndx || (name && strncmp(name, prefix, strlen(prefix)) == 0))
                return name;
        }
        if (vd.vd_next == 0)
            return NULL;
        off += vd.vd_next;
    }
    return NULL;
}

static const char *version_name(const struct vdso_image *img, uint16_t ndx)
{
    return version_find(img, ndx, NULL);
}

bool vdso_is_kernel_image(const struct vdso_image *img, char *why, size_t whylen)
{
    if (img->interp_len > 0) {
        char path[128] = "unreadable";
        if (in_bounds(img, img->interp_off, img->interp_len)) {
            size_t n = img->interp_len < sizeof path ? (size_t)img->interp_len : sizeof path - 1;
            memcpy(path, img->base + img->interp_off, n);
            path[n] = '\0';
            for (char *c = path; *c; c++)
                *c = *c < ' ' || *c > '~' ? '?' : *c;
        }
        FAIL("it asks for an interpreter (%s): a program, not the kernel's", path);
    }
    if (img->nneeded) {
        const char *lib = str_at(img, img->needed);
        FAIL("it needs other libraries (%s%s): a vDSO needs none", lib ? lib : "?",
             img->nneeded > 1 ? ", ..." : "");
    }
    const char *soname = img->has_soname ? str_at(img, img->soname) : NULL;
    if (soname && (strncmp(soname, "linux-vdso", 10) == 0 || strncmp(soname, "linux-gate", 10) == 0))
        return true;
    if (version_find(img, 0, "LINUX_"))
        return true;
    FAIL("its soname is %s, not linux-vdso.so.1, and it defines no LINUX_ version",
         soname ? soname : "missing");
}

bool vdso_symbol_at(const struct vdso_image *img, size_t i, struct vdso_symbol *out)
{
    if (i >= img->nsyms)
        return false;
    Elf64_Sym sym;
    if (!read_at(img, img->dynsym_off + i * sizeof sym, &sym, sizeof sym))
        return false;
    unsigned type = ELF64_ST_TYPE(sym.st_info), bind = ELF64_ST_BIND(sym.st_info);
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS || (bind != STB_GLOBAL && bind != STB_WEAK) ||
        (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE))
        return false;
    const char *name = str_at(img, sym.st_name);
    if (!name || !*name)
        return false;
    size_t off;
    if (!vaddr_to_off(img, sym.st_value, &off) || off >= img->size)
        return false;
    out->name = name;
    out->offset = off;
    out->size = sym.st_size;
    out->is_function = type == STT_FUNC;
    out->version = NULL;
    if (img->has_versym) {
        uint16_t v;
        if (read_at(img, img->versym_off + i * 2, &v, 2) && (v & 0x7fff) > 1)
            out->version = version_name(img, v & 0x7fff);
    }
    return true;
}

bool vdso_lookup(const struct vdso_image *img, const char *name, const char *version,
                 struct vdso_symbol *out)
{
    for (size_t i = 0; i < img->nsyms; i++) {
        struct vdso_symbol s;
        if (!vdso_symbol_at(img, i, &s) || !s.is_function || strcmp(s.name, name) != 0)
            continue;
        if (version && s.version && strcmp(s.version, version) != 0)
            continue;
        *out = s;
        return true;
    }
    return false;
}

const char *vdso_machine_name(uint16_t machine, char *buf, size_t len)
{
    const struct arch_desc *a = arch_table_by_elf(machine);
    if (a)
        return a->name;
    snprintf(buf, len, "machine %u", machine);
    return buf;
}
