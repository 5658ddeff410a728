/* SPDX-License-Identifier: MIT */
/* clockscope vdso: the vDSO's time entry points, from this process or from an image file. */
#include "commands.h"
#include "common/cli.h"
#include "common/json.h"
#include "vdso/vdso.h"
#include "vdso/vdso_names.h"

#include "arch/arch.h"
#include "common/message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_IMAGE (16u << 20)

static const char help[] =
    "usage: clockscope vdso [--file IMAGE] [--dump OUT] [--json]\n"
    "\n"
    "Lists the symbols the vDSO exports, with versions and offsets, and which of its\n"
    "arch's time entry points are present (x86_64, aarch64 and riscv64 images, whatever\n"
    "arch this binary is).  Without --file it reads this process's own vDSO (found\n"
    "through getauxval(AT_SYSINFO_EHDR)).\n"
    "\n"
    "  --file IMAGE   parse a vDSO image saved from a machine (e.g. with --dump)\n"
    "  --dump OUT     write this process's vDSO image to OUT (\"-\": stdout)\n"
    "  --json         machine-readable output\n";

static const struct exit_use vdso_exits[] = {
    {EXIT_OK, "parsed (or dumped)"},
    {EXIT_FAILED, "this process has no vDSO, or OUT could not be written"},
    {EXIT_USAGE, "also an IMAGE that cannot be read, an OUT that is a link, directory, FIFO\n"
                 "or device"},
    {EXIT_BAD_INPUT, "IMAGE is not a vDSO image (not ELF, does not parse, or a program or\n"
                     "library that is not the kernel's vDSO); the reason is said"},
    {EXIT_USES_END, NULL},
};

static void *read_file(const char *path, size_t *size)
{
    /* O_NONBLOCK: a FIFO given as IMAGE is refused below, never waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        usage_error("vdso", "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        usage_error("vdso", "'%s' is not a regular file", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        usage_error("vdso", "cannot open '%s': %s", path, strerror(errno));
    }
    unsigned char *buf = malloc(MAX_IMAGE);
    if (!buf) {
        fclose(f);
        fprintf(stderr, "clockscope vdso: out of memory\n");
        exit(EXIT_FAILED);
    }
    size_t n = fread(buf, 1, MAX_IMAGE, f);
    bool more = fgetc(f) != EOF;
    bool failed = ferror(f);
    fclose(f);
    if (failed)
        usage_error("vdso", "cannot read '%s'", path);
    if (more) {
        fprintf(stderr, "clockscope vdso: %s is not a vDSO image: it is larger than %u MiB\n",
                path, MAX_IMAGE >> 20);
        exit(EXIT_BAD_INPUT);
    }
    *size = n;
    return buf;
}

/* OUT for --dump: a regular file or a new one, never a link (not followed), a FIFO (never
 * waited on) or a device; those are bad usage. */
static FILE *open_dump(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        usage_error("vdso", "--dump '%s' is %s: give a regular file (or - for stdout)", path,
                    S_ISLNK(st.st_mode)   ? "a symbolic link"
                    : S_ISDIR(st.st_mode) ? "a directory"
                    : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file");
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return NULL;
    /* Checked again on what was opened: the name may have changed since lstat. */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ftruncate(fd, 0) != 0) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f)
        close(fd);
    return f;
}

static void print_image(const struct vdso_image *img, const char *origin, bool json)
{
    char mbuf[32];
    const char *machine = vdso_machine_name(img->machine, mbuf, sizeof mbuf);
    /* The image's own arch names its entry points, whatever arch this binary is. */
    const struct vdso_symbol_names *want = vdso_names_for(machine);
    bool known_arch = want != NULL;
    static const struct vdso_symbol_names none;
    if (!want)
        want = &none;
    const char *entries[][2] = {
        {"clock_gettime", want->clock_gettime}, {"gettimeofday", want->gettimeofday},
        {"time", want->time}, {"clock_getres", want->clock_getres}, {"getcpu", want->getcpu},
    };
    if (json) {
        struct json j;
        json_init(&j, stdout, 2);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.vdso/1");
        json_kv_string(&j, "origin", origin);
        json_kv_string(&j, "machine", machine);
        json_kv_uint(&j, "size", img->size);
        json_key(&j, "symbols");
        json_begin_array(&j);
        for (size_t i = 0; i < img->nsyms; i++) {
            struct vdso_symbol s;
            if (!vdso_symbol_at(img, i, &s))
                continue;
            json_begin_object(&j);
            json_kv_string(&j, "name", s.name);
            json_kv_string(&j, "version", s.version);
            json_kv_uint(&j, "offset", s.offset);
            json_kv_uint(&j, "size", s.size);
            json_kv_string(&j, "type", s.is_function ? "function" : "object");
            json_end_object(&j);
        }
        json_end_array(&j);
        if (known_arch) {
            json_key(&j, "time_entry_points");
            json_begin_object(&j);
            for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++) {
                struct vdso_symbol s;
                json_key(&j, entries[e][0]);
                if (entries[e][1] && vdso_lookup(img, entries[e][1], want->version, &s))
                    json_string(&j, entries[e][1]);
                else
                    json_null(&j);
            }
            json_end_object(&j);
        }
        json_end_object(&j);
        json_finish(&j);
        return;
    }
    printf("vDSO (%s): %s, %zu bytes\n", origin, machine, img->size);
    for (size_t i = 0; i < img->nsyms; i++) {
        struct vdso_symbol s;
        if (vdso_symbol_at(img, i, &s))
            printf("  %-28s %-14s offset 0x%05llx size %4llu%s\n", s.name,
                   s.version ? s.version : "(unversioned)", (unsigned long long)s.offset,
                   (unsigned long long)s.size, s.is_function ? "" : " (object)");
    }
    if (!known_arch)
        return;
    printf("time entry points of %s:\n", machine);
    for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        struct vdso_symbol s;
        const char *state = !entries[e][1] ? "none on this arch"
                            : vdso_lookup(img, entries[e][1], want->version, &s) ? entries[e][1]
                                                                                 : "MISSING";
        printf("  %-14s %s\n", entries[e][0], state);
    }
}

struct vdso_options {
    const char *file, *dump;
    bool json;
};

static const struct cli_option vdso_decl[] = {
    {.name = "file", .metavar = "IMAGE", .excludes = "dump", CLI_STRING_OF(struct vdso_options, file)},
    {.name = "dump", .metavar = "OUT", CLI_STRING_OF(struct vdso_options, dump)},
    {.name = "json", CLI_FLAG_OF(struct vdso_options, json)},
    {0},
};

const struct cli_spec vdso_cli = {.cmd = "vdso", .help = help, .options = vdso_decl,
                                  .exits = vdso_exits};

int cmd_vdso(int argc, char **argv)
{
    struct vdso_options o = {0};
    cli_parse(&vdso_cli, argc, argv, &o);
    const char *file = o.file, *dump = o.dump;
    bool json = o.json;
    if (dump && json)
        usage_error("vdso", "--dump and --json do not go together (list the dumped image with "
                    "--file OUT --json)");

    if (file) {
        size_t size;
        void *buf = read_file(file, &size);
        struct vdso_image img;
        char err[MSG_LINE];
        if (!vdso_parse(buf, size, &img, err, sizeof err) ||
            !vdso_is_kernel_image(&img, err, sizeof err)) {
            fprintf(stderr, "clockscope vdso: %s is not a vDSO image: %s\n", file, err);
            free(buf);
            return EXIT_BAD_INPUT;
        }
        print_image(&img, file, json);
        free(buf);
        return EXIT_OK;
    }
    const struct vdso_live *v = vdso_live();
    if (!v->present || !v->parsed) {
        fprintf(stderr, "clockscope vdso: %s\n", v->why);
        if (json) {
            struct json j;
            json_init(&j, stdout, 2);
            json_begin_object(&j);
            json_kv_string(&j, "schema", "clockscope.vdso/1");
            json_kv_string(&j, "origin", "live");
            json_kv_bool(&j, "present", v->present);
            json_kv_string(&j, "error", v->present ? "does not parse" : "no vDSO");
            json_end_object(&j);
            json_finish(&j);
        }
        return EXIT_FAILED;
    }
    if (dump) {
        /* "-": the image alone on stdout (e.g. out of a VM: clockscope vm ... -- vdso
         * --dump - > image.so), and the note on stderr. */
        bool to_stdout = strcmp(dump, "-") == 0;
        FILE *f = to_stdout ? stdout : open_dump(dump);
        /* stdout is flushed, not closed: the exit check (common/stdout_check) still uses it. */
        if (!f || fwrite(v->base, 1, v->size, f) != v->size ||
            (to_stdout ? fflush(f) : fclose(f)) != 0) {
            fprintf(stderr, "clockscope vdso: cannot write '%s': %s\n", dump, strerror(errno));
            if (to_stdout)
                clearerr(stdout); /* said once, here */
            return EXIT_FAILED;
        }
        fprintf(to_stdout ? stderr : stdout, "wrote %zu bytes of vDSO image to %s\n", v->size,
                to_stdout ? "stdout" : dump);
        return EXIT_OK;
    }
    print_image(&v->image, "live", json);
    return EXIT_OK;
}
