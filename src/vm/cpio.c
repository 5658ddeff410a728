/* SPDX-License-Identifier: MIT */
/* newc cpio: a 110-byte ASCII header ("070701" and 13 eight-digit hex fields), the NUL-
 * terminated name, padding to 4 bytes, the data, padding to 4 bytes.  The archive ends
 * with an entry named "TRAILER!!!".  (Documented in the kernel's
 * Documentation/driver-api/early-userspace/buffer-format.rst.) */
#include "vm/cpio.h"

#include <string.h>
#include <sys/stat.h>

static void put(struct cpio_writer *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->out) != n)
        w->failed = true;
}

static void pad4(struct cpio_writer *w, size_t written)
{
    static const char zeros[3];
    put(w, zeros, (4 - written % 4) % 4);
}

static void entry(struct cpio_writer *w, const char *name, unsigned mode, unsigned rmajor,
                  unsigned rminor, const void *data, size_t size)
{
    size_t namesize = strlen(name) + 1;
    if (namesize > 4096 || size > UINT32_MAX) {
        w->failed = true;
        return;
    }
    char hdr[111];
    snprintf(hdr, sizeof hdr, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
             w->next_ino++, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)size, 0u, 0u,
             rmajor, rminor, (unsigned)namesize, 0u);
    put(w, hdr, 110);
    put(w, name, namesize);
    pad4(w, 110 + namesize);
    put(w, data, size);
    pad4(w, size);
}

void cpio_begin(struct cpio_writer *w, FILE *out)
{
    w->out = out;
    w->next_ino = 1;
    w->failed = false;
}

void cpio_dir(struct cpio_writer *w, const char *name, unsigned mode)
{
    entry(w, name, S_IFDIR | (mode & 07777), 0, 0, NULL, 0);
}

void cpio_char_device(struct cpio_writer *w, const char *name, unsigned mode, unsigned major,
                      unsigned minor)
{
    entry(w, name, S_IFCHR | (mode & 07777), major, minor, NULL, 0);
}

void cpio_file(struct cpio_writer *w, const char *name, unsigned mode, const void *data,
               size_t size)
{
    entry(w, name, S_IFREG | (mode & 07777), 0, 0, data, size);
}

bool cpio_finish(struct cpio_writer *w)
{
    entry(w, "TRAILER!!!", 0, 0, 0, NULL, 0);
    if (fflush(w->out) != 0)
        w->failed = true;
    return !w->failed;
}
