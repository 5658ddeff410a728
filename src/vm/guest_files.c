/* SPDX-License-Identifier: MIT */
/* Files and environment the host adds to the guest.  Shared libraries of the host's own
 * arch are found with the host's `ldd`, which asks the real loader (so RUNPATH, hwcaps
 * subdirectories and the loader's own default directories are all honoured); its output is
 * parsed strictly.  ldd runs the file's loader, so another arch's files are resolved from
 * the files themselves instead (PT_INTERP, DT_NEEDED: common/elf_deps.c) in the directory
 * where Debian's cross libc package keeps that arch's loader and libraries. */
#include "vm/guest_files.h"
#include "common/environment.h"
#include "arch/arch.h"
#include "common/elf_deps.h"
#include "common/elf_probe.h"
#include "common/message.h"
#include "common/subprocess.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LDD_MAX_OUTPUT 65536
#define LDD_MAX_PATHS 256

bool guest_path_check(const char *path, char *why, size_t whylen)
{
    static const char *const reserved[] = {"/init", "/dev", "/proc", "/sys", "/tmp",
                                           "/clockscope-vm"};
    size_t len = strlen(path);
    if (path[0] != '/') {
        snprintf(why, whylen, "guest path '%s' is not absolute", path);
        return false;
    }
    if (len < 2 || len > GUEST_PATH_MAX) {
        snprintf(why, whylen, "guest path '%.80s' must be 2 to %d bytes", path, GUEST_PATH_MAX);
        return false;
    }
    for (const char *c = path; *c; c++) {
        if (*c != '/')
            continue;
        size_t n = strcspn(c + 1, "/");
        if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.')) {
            snprintf(why, whylen, "guest path '%s' has an empty, '.' or '..' component", path);
            return false;
        }
    }
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        size_t r = strlen(reserved[i]);
        if (strncmp(path, reserved[i], r) == 0 && (path[r] == 0 || path[r] == '/') &&
            !(strcmp(reserved[i], "/tmp") == 0 && path[r] == '/')) {
            snprintf(why, whylen, "guest path '%s' is where the guest's init keeps %s", path,
                     reserved[i]);
            return false;
        }
    }
    return true;
}

bool guest_env_check(const char *a, char *why, size_t whylen)
{
    const char *eq = strchr(a, '=');
    bool ok = eq && eq > a && (isalpha((unsigned char)a[0]) || a[0] == '_');
    for (const char *c = a; ok && c < eq; c++)
        ok = isalnum((unsigned char)*c) || *c == '_';
    if (!ok)
        snprintf(why, whylen, "--env '%.80s' is not NAME=VALUE with NAME a letter or '_' then "
                 "letters, digits or '_'", a);
    return ok;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* "PATH (0xHEX)" -> PATH, in place; NULL if the address part is malformed. */
static char *strip_address(char *s)
{
    char *open = strrchr(s, '(');
    if (!open || open == s || open[-1] != ' ' || strncmp(open, "(0x", 3) != 0)
        return NULL;
    char *c = open + 3;
    if (!isxdigit((unsigned char)*c))
        return NULL;
    while (isxdigit((unsigned char)*c))
        c++;
    if (strcmp(c, ")") != 0)
        return NULL;
    open[-1] = 0;
    return trim(s);
}

static bool is_vdso_name(const char *s)
{
    return strncmp(s, "linux-vdso.so.", 14) == 0 || strncmp(s, "linux-gate.so.", 14) == 0;
}

int ldd_parse(char *text, const char **paths, int max, char *why, size_t whylen)
{
    int n = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *s = trim(line);
        if (!*s)
            continue;
        if (strcmp(s, "statically linked") == 0)
            continue;
        char *arrow = strstr(s, " => ");
        char *path;
        if (arrow) {
            *arrow = 0;
            char *name = trim(s), *right = trim(arrow + 4);
            if (strcmp(right, "not found") == 0) {
                snprintf(why, whylen, "ldd: shared library '%.100s' not found", name);
                return -1;
            }
            if (!*name || strchr(name, ' ')) {
                snprintf(why, whylen, "unexpected ldd output line: '%.120s'", s);
                return -1;
            }
            if (right[0] == '(' && is_vdso_name(name)) /* old form: "linux-vdso.so.1 =>  (0x..)" */
                continue;
            path = strip_address(right);
        } else {
            path = strip_address(s);
            if (path && is_vdso_name(path))
                continue;
        }
        if (!path || path[0] != '/') {
            snprintf(why, whylen, "unexpected ldd output line: '%.120s'", s);
            return -1;
        }
        bool seen = false;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(paths[i], path) == 0;
        if (seen)
            continue;
        if (n == max) {
            snprintf(why, whylen, "ldd lists more than %d files", max);
            return -1;
        }
        paths[n++] = path;
    }
    return n;
}

void guest_files_free(struct guest_files *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->v[i].host);
        free(g->v[i].guest);
    }
    free(g->v);
    memset(g, 0, sizeof *g);
}

/* Records one file; the same guest path twice is an error unless both name the same host
 * file and neither was requested explicitly twice (libraries shared by two --add files). */
static bool add_one(struct guest_files *g, const char *host, const char *guest, bool requested,
                    char *why, size_t whylen)
{
    struct stat st;
    if (stat(host, &st) != 0) {
        snprintf(why, whylen, "--add: cannot read '%s': %s", host, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "--add: '%s' is not a regular file", host);
        return false;
    }
    if (!guest_path_check(guest, why, whylen))
        return false;
    for (size_t i = 0; i < g->n; i++) {
        struct guest_file *o = &g->v[i];
        struct stat ost;
        if (strcmp(o->guest, guest) == 0) {
            bool same = stat(o->host, &ost) == 0 && ost.st_dev == st.st_dev &&
                        ost.st_ino == st.st_ino;
            if (same && !(requested && o->requested)) {
                o->requested |= requested;
                return true;
            }
            snprintf(why, whylen, "--add: guest path '%s' given twice ('%s' and '%s')", guest,
                     o->host, host);
            return false;
        }
        size_t a = strlen(o->guest), b = strlen(guest);
        const char *shorter = a < b ? o->guest : guest, *longer = a < b ? guest : o->guest;
        size_t sl = a < b ? a : b;
        if (strncmp(shorter, longer, sl) == 0 && longer[sl] == '/') {
            snprintf(why, whylen, "--add: guest path '%s' would be both a file and a directory",
                     shorter);
            return false;
        }
    }
    if (g->n == GUEST_FILES_MAX || g->bytes + (uint64_t)st.st_size > GUEST_FILES_MAX_BYTES) {
        snprintf(why, whylen, "--add: more than %d files or %llu MiB in all (at '%s')",
                 GUEST_FILES_MAX, GUEST_FILES_MAX_BYTES >> 20, host);
        return false;
    }
    struct guest_file *v = realloc(g->v, (g->n + 1) * sizeof *v);
    if (!v) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    g->v = v;
    struct guest_file *f = &g->v[g->n];
    f->host = strdup(host);
    f->guest = strdup(guest);
    if (!f->host || !f->guest) {
        free(f->host);
        free(f->guest);
        snprintf(why, whylen, "out of memory");
        return false;
    }
    f->mode = (st.st_mode & 0111) ? 0755 : 0644;
    f->size = (uint64_t)st.st_size;
    f->requested = requested;
    g->n++;
    g->bytes += f->size;
    return true;
}

/* Runs `ldd -- path`, its stdout into a temporary file, and adds what it lists. */
static bool add_libraries(struct guest_files *g, const char *path, char *why, size_t whylen)
{
    FILE *out = tmpfile();
    if (!out) {
        snprintf(why, whylen, "cannot create a temporary file: %s", strerror(errno));
        return false;
    }
    char err[MSG_PARAGRAPH];
    char *argv[] = {"ldd", "--", (char *)path, NULL};
    int status = subprocess_run_tool(argv, NULL, fileno(out), err, sizeof err);
    static char text[LDD_MAX_OUTPUT + 1];
    rewind(out);
    size_t n = fread(text, 1, sizeof text, out);
    fclose(out);
    if (status != 0) {
        snprintf(why, whylen, "--add: `ldd %s` failed (%s): %s", path,
                 status < 0 ? "could not run it: is libc-bin installed?" : "exit status not 0",
                 err[0] ? err : "no message");
        return false;
    }
    if (n > LDD_MAX_OUTPUT) {
        snprintf(why, whylen, "--add: `ldd %s` printed more than %d bytes", path, LDD_MAX_OUTPUT);
        return false;
    }
    text[n] = 0;
    if (memchr(text, 0, n)) {
        snprintf(why, whylen, "--add: `ldd %s` printed a NUL byte", path);
        return false;
    }
    const char *libs[LDD_MAX_PATHS];
    char pwhy[MSG_LINE];
    int count = ldd_parse(text, libs, LDD_MAX_PATHS, pwhy, sizeof pwhy);
    if (count < 0) {
        snprintf(why, whylen, "--add '%s': %s", path, pwhy);
        return false;
    }
    for (int i = 0; i < count; i++)
        if (!add_one(g, libs[i], libs[i], false, why, whylen))
            return false;
    return true;
}

/* Another arch's dynamic ELF file: its loader at the path it names (PT_INTERP) and the
 * libraries it needs, transitively, each from /usr/TRIPLET/lib (or
 * $CLOCKSCOPE_CROSS_LIBDIR) to the guest's /lib/TRIPLET, a directory the cross-built
 * loader searches by default. */
static bool add_cross_libraries(struct guest_files *g, const struct vm_arch *arch,
                                const char *path, char *why, size_t whylen)
{
    char libdir[PATH_MAX];
    const char *env = getenv(ENV_CROSS_LIBDIR);
    if (env && *env)
        snprintf(libdir, sizeof libdir, "%s", env);
    else
        snprintf(libdir, sizeof libdir, "/usr/%s/lib", arch->desc->triple);
    /* Files still to read, and every file read or queued (each once). */
    enum { MAX_QUEUE = 128 };
    static char queue[MAX_QUEUE][PATH_MAX];
    int head = 0, tail = 0;
    snprintf(queue[tail++], PATH_MAX, "%s", path);
    static struct elf_deps d;
    while (head < tail) {
        const char *file = queue[head++];
        char dwhy[PATH_MAX + 200];
        if (!elf_deps_read(file, &d, dwhy, sizeof dwhy)) {
            snprintf(why, whylen, "--add: %s", dwhy);
            return false;
        }
        const char *names[ELF_DEPS_MAX_NEEDED + 1];
        int n = 0;
        if (d.interp[0])
            names[n++] = strrchr(d.interp, '/') + 1;
        for (int i = 0; i < d.n_needed; i++)
            names[n++] = d.needed[i];
        for (int i = 0; i < n; i++) {
            bool is_loader = d.interp[0] && i == 0;
            char host[PATH_MAX], guest[GUEST_PATH_MAX + 1];
            if ((size_t)snprintf(host, sizeof host, "%s/%s", libdir, names[i]) >= sizeof host)
                return snprintf(why, whylen, "--add: library path too long"), false;
            if (is_loader)
                snprintf(guest, sizeof guest, "%s", d.interp);
            else if ((size_t)snprintf(guest, sizeof guest, "/lib/%s/%s", arch->desc->triple,
                                      names[i]) >= sizeof guest)
                return snprintf(why, whylen, "--add: library name '%s' too long", names[i]), false;
            struct elf_facts f;
            char pwhy[PATH_MAX + 64];
            if (access(host, R_OK) != 0) {
                snprintf(why, whylen, "--add: %s '%s' (needed by '%s') is not in %s: install %s "
                         "(apt-get install %s), or point CLOCKSCOPE_CROSS_LIBDIR at the "
                         "directory that has it", is_loader ? "the loader" : "shared library",
                         names[i], file, libdir, arch->cross_libc_package,
                         arch->cross_libc_package);
                return false;
            }
            if (elf_probe(host, &f, pwhy, sizeof pwhy) != ELF_PROBE_OK || !f.elf64_le ||
                f.machine != arch->desc->elf_machine) {
                snprintf(why, whylen, "--add: '%s' (needed by '%s') is not an ELF file for %s",
                         host, file, arch->name);
                return false;
            }
            bool queued = false;
            for (int q = 0; q < tail && !queued; q++)
                queued = strcmp(queue[q], host) == 0;
            if (queued)
                continue;
            if (!add_one(g, host, guest, false, why, whylen))
                return false;
            if (tail == MAX_QUEUE) {
                snprintf(why, whylen, "--add '%s': more than %d libraries", path, MAX_QUEUE);
                return false;
            }
            snprintf(queue[tail++], PATH_MAX, "%s", host);
        }
    }
    return true;
}

bool guest_files_add(struct guest_files *g, const struct vm_arch *arch, const char *spec,
                     char *why, size_t whylen)
{
    char host[PATH_MAX], guest[GUEST_PATH_MAX + 2];
    const char *colon = strrchr(spec, ':');
    size_t hl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (hl == 0 || hl >= sizeof host) {
        snprintf(why, whylen, "--add '%.80s': no host path, or one too long", spec);
        return false;
    }
    memcpy(host, spec, hl);
    host[hl] = 0;
    if (colon) {
        if (strlen(colon + 1) >= sizeof guest) {
            snprintf(why, whylen, "--add '%.80s': guest path longer than %d bytes", spec,
                     GUEST_PATH_MAX);
            return false;
        }
        snprintf(guest, sizeof guest, "%s", colon + 1);
    } else {
        const char *base = strrchr(host, '/');
        base = base ? base + 1 : host;
        if (!*base || strlen(base) + 5 >= sizeof guest) {
            snprintf(why, whylen, "--add '%.80s': cannot name it in the guest; give HOST:GUEST", spec);
            return false;
        }
        snprintf(guest, sizeof guest, "/bin/%s", base);
    }
    struct elf_facts f;
    char probe_why[PATH_MAX + 64];
    enum elf_probe_result r = elf_probe(host, &f, probe_why, sizeof probe_why);
    if (r == ELF_PROBE_BAD) {
        snprintf(why, whylen, "--add: %s", probe_why);
        return false;
    }
    if (!add_one(g, host, guest, true, why, whylen))
        return false;
    if (r == ELF_PROBE_NOT_ELF)
        return true;
    if (!f.elf64_le || f.machine != arch->desc->elf_machine) {
        snprintf(why, whylen, "--add: '%s' is an ELF file for another machine than %s", host,
                 arch->name);
        return false;
    }
    if (!f.has_dynamic && !f.has_interp)
        return true; /* static: nothing else to bring */
    if (strcmp(arch->name, arch_name()) != 0)
        return add_cross_libraries(g, arch, host, why, whylen);
    return add_libraries(g, host, why, whylen);
}
