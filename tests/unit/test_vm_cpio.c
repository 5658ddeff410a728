/* SPDX-License-Identifier: MIT */
/* The initramfs writer: newc entries parsed back by an independent reader, alignment,
 * and the trailer the kernel looks for. */
#include "check.h"
#include "vm/cpio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned hex8(const char *p)
{
    char buf[9];
    memcpy(buf, p, 8);
    buf[8] = '\0';
    return (unsigned)strtoul(buf, NULL, 16);
}

TEST(cpio_entries_parse_back)
{
    char *mem = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&mem, &size);
    struct cpio_writer w;
    cpio_begin(&w, f);
    cpio_dir(&w, "dev", 0755);
    cpio_char_device(&w, "dev/console", 0600, 5, 1);
    cpio_file(&w, "init", 0755, "abcde", 5);
    cpio_file(&w, "x/argv", 0644, "bench\0--quick\0", 14);
    CHECK(cpio_finish(&w));
    fclose(f);
    const char *names[] = {"dev", "dev/console", "init", "x/argv", "TRAILER!!!"};
    unsigned modes[] = {S_IFDIR | 0755, S_IFCHR | 0600, S_IFREG | 0755, S_IFREG | 0644, 0};
    unsigned sizes[] = {0, 0, 5, 14, 0};
    size_t off = 0;
    for (int e = 0; e < 5; e++) {
        CHECK(off % 4 == 0 && off + 110 <= size);
        const char *h = mem + off;
        CHECK(memcmp(h, "070701", 6) == 0);
        CHECK(hex8(h + 14) == modes[e]);
        CHECK(hex8(h + 54) == sizes[e]);
        if (e == 1)
            CHECK(hex8(h + 78) == 5 && hex8(h + 86) == 1); /* rdevmajor, rdevminor */
        unsigned namesize = hex8(h + 94);
        CHECK(namesize == strlen(names[e]) + 1);
        CHECK(memcmp(h + 110, names[e], namesize) == 0);
        off += (110 + namesize + 3) & ~3u;
        if (e == 2)
            CHECK(memcmp(mem + off, "abcde", 5) == 0);
        off += (sizes[e] + 3) & ~3u;
    }
    CHECK(off == size);
    free(mem);
}
