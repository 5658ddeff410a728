/* SPDX-License-Identifier: MIT */
/* Builds the initramfs on the fly: it costs a copy of a ~1 MB binary, less than caching it
 * would cost in staleness checks.  /dev/console is in the archive because the kernel opens
 * it for init's stdin/stdout/stderr before init can mount devtmpfs. */
#include "vm/initramfs.h"
#include "vm/cpio.h"
#include "vm/guest_files.h"
#include "vm/guest_init.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BINARY (64u << 20)

static void *slurp(const char *path, uint64_t max, size_t *size, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(why, whylen, "cannot open '%s': %s", path, strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > max || (max == MAX_BINARY && !st.st_size)) {
        snprintf(why, whylen, "'%s' has an implausible size (%lld bytes)", path,
                 (long long)st.st_size);
        fclose(f);
        return NULL;
    }
    void *buf = malloc((size_t)st.st_size + 1);
    if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        snprintf(why, whylen, "cannot read '%s'", path);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)st.st_size;
    return buf;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every directory above the added files, parents first (sorted: "/a" < "/a/b"), each
 * once, except those the archive has anyway. */
static bool write_parent_dirs(struct cpio_writer *w, const struct guest_files *files)
{
    size_t cap = 0, n = 0;
    for (size_t i = 0; i < files->n; i++)
        for (const char *c = files->v[i].guest + 1; *c; c++)
            cap += *c == '/';
    char **dirs = calloc(cap + 1, sizeof *dirs);
    if (!dirs)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < files->n; i++) {
        const char *g = files->v[i].guest;
        for (const char *c = g + 1; ok && *c; c++)
            if (*c == '/')
                ok = (dirs[n++] = strndup(g + 1, (size_t)(c - g - 1))) != NULL;
    }
    if (ok)
        qsort(dirs, n, sizeof *dirs, compare_strings);
    for (size_t i = 0; ok && i < n; i++)
        if ((i == 0 || strcmp(dirs[i], dirs[i - 1]) != 0) && strcmp(dirs[i], "tmp") != 0)
            cpio_dir(w, dirs[i], 0755);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    return ok;
}

static bool write_added_files(struct cpio_writer *w, const struct guest_files *files, char *why,
                              size_t whylen)
{
    if (!write_parent_dirs(w, files)) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < files->n; i++) {
        size_t size;
        void *data = slurp(files->v[i].host, GUEST_FILES_MAX_BYTES, &size, why, whylen);
        if (!data)
            return false;
        cpio_file(w, files->v[i].guest + 1, files->v[i].mode, data, size);
        free(data);
    }
    return true;
}

bool initramfs_build(const char *binary, int argc, char **argv, const struct guest_files *files,
                     const char *env, size_t env_size, char *path, size_t path_len, char *why,
                     size_t whylen)
{
    return initramfs_build_with_sysfs(binary, argc, argv, files, env, env_size, NULL, 0, path,
                                      path_len, why, whylen);
}

bool initramfs_build_with_sysfs(const char *binary, int argc, char **argv,
                                const struct guest_files *files, const char *env,
                                size_t env_size, const char *sysfs, size_t sysfs_size,
                                char *path, size_t path_len, char *why, size_t whylen)
{
    size_t bin_size, args_size = 0;
    void *bin = slurp(binary, MAX_BINARY, &bin_size, why, whylen);
    if (!bin)
        return false;
    for (int i = 0; i < argc; i++)
        args_size += strlen(argv[i]) + 1;
    char *args = malloc(args_size + 1);
    size_t o = 0;
    for (int i = 0; args && i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        memcpy(args + o, argv[i], n);
        o += n;
    }
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, path_len, "%s/clockscope-vm-initramfs.XXXXXX", dir);
    int fd = args ? mkstemp(path) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        snprintf(why, whylen, "cannot create a file in %s: %s", dir, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        free(bin);
        free(args);
        return false;
    }
    struct cpio_writer w;
    cpio_begin(&w, f);
    cpio_dir(&w, "dev", 0755);
    cpio_char_device(&w, "dev/console", 0600, 5, 1);
    cpio_dir(&w, "proc", 0555);
    cpio_dir(&w, "sys", 0555);
    cpio_dir(&w, "tmp", 01777);
    cpio_dir(&w, "clockscope-vm", 0755);
    cpio_file(&w, GUEST_ARGV_PATH + 1, 0644, args, args_size);
    cpio_file(&w, GUEST_ENV_PATH + 1, 0644, env, env_size);
    if (sysfs_size)
        cpio_file(&w, GUEST_SYSFS_PATH + 1, 0644, sysfs, sysfs_size);
    cpio_file(&w, GUEST_INIT_PATH + 1, 0755, bin, bin_size);
    bool added = write_added_files(&w, files, why, whylen);
    bool ok = cpio_finish(&w) && added;
    ok = fclose(f) == 0 && ok;
    free(bin);
    free(args);
    if (!ok) {
        if (added)
            snprintf(why, whylen, "cannot write the initramfs %s", path);
        unlink(path);
    }
    return ok;
}
