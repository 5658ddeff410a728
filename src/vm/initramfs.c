/* Builds the initramfs on the fly: it costs a copy of a ~1 MB binary, less than caching it
 * would cost in staleness checks.  /dev/console is in the archive because the kernel opens
 * it for init's stdin/stdout/stderr before init can mount devtmpfs. */
#include "vm/initramfs.h"
#include "vm/cpio.h"
#include "vm/guest_init.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BINARY (64u << 20)

static void *slurp(const char *path, size_t *size, char *why, size_t wl)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(why, wl, "cannot open '%s': %s", path, strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    if (st.st_size <= 0 || (unsigned long long)st.st_size > MAX_BINARY) {
        snprintf(why, wl, "'%s' has an implausible size for clockscope (%lld bytes)", path,
                 (long long)st.st_size);
        fclose(f);
        return NULL;
    }
    void *buf = malloc((size_t)st.st_size);
    if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        snprintf(why, wl, "cannot read '%s'", path);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)st.st_size;
    return buf;
}

bool initramfs_build(const char *binary, int argc, char **argv, char *path, size_t path_len,
                     char *why, size_t why_len)
{
    size_t bin_size, args_size = 0;
    void *bin = slurp(binary, &bin_size, why, why_len);
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
        snprintf(why, why_len, "cannot create a file in %s: %s", dir, strerror(errno));
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
    cpio_file(&w, GUEST_INIT_PATH + 1, 0755, bin, bin_size);
    bool ok = cpio_finish(&w);
    ok = fclose(f) == 0 && ok;
    free(bin);
    free(args);
    if (!ok) {
        snprintf(why, why_len, "cannot write the initramfs %s", path);
        unlink(path);
    }
    return ok;
}
