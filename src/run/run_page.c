/* SPDX-License-Identifier: MIT */
/* The data page's header (run/run_page.h).  The time namespace part: a served process
 * compares its own namespace with the refresher's at its first read (reader.c), by the
 * inode of /proc/self/ns/time, and adds the difference of the two namespaces' offsets. */
#include "run/run_page.h"

#include "run/run_timens.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char NS_PATH[] = "/proc/self/ns/time";
static const char CHILDREN_PATH[] = "/proc/self/ns/time_for_children";
static const char OFFSETS_PATH[] = "/proc/self/timens_offsets";
_Static_assert(sizeof CHILDREN_PATH <= RUN_PATH_SIZE, "the paths fit the header");

void run_page_timens(struct run_page_header *page, const char *ns_path, const char *children_path,
                     const char *offsets_path)
{
    snprintf(page->ns_path, sizeof page->ns_path, "%s", ns_path);
    snprintf(page->children_path, sizeof page->children_path, "%s", children_path);
    snprintf(page->offsets_path, sizeof page->offsets_path, "%s", offsets_path);
    page->timens = RUN_TIMENS_UNKNOWN;
    page->timens_inode = 0;
    page->timens_monotonic_ns = page->timens_boottime_ns = 0;
    struct stat own, children;
    if (stat(ns_path, &own) != 0) {
        /* No such link in a mounted /proc: a kernel without time namespaces. */
        struct stat proc;
        if (errno == ENOENT && stat("/proc/self/ns", &proc) == 0)
            page->timens = RUN_TIMENS_NONE;
        return;
    }
    /* The refresher never unshares: its children's namespace is its own, whose offsets
     * timens_offsets then gives. */
    if (stat(children_path, &children) != 0 || children.st_ino != own.st_ino)
        return;
    char text[256];
    int fd = open(offsets_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    int64_t mono, boot;
    if (n <= 0 || n >= (ssize_t)sizeof text || !run_timens_parse(text, (long)n, &mono, &boot))
        return;
    page->timens_inode = (uint64_t)own.st_ino;
    page->timens_monotonic_ns = mono;
    page->timens_boottime_ns = boot;
    page->timens = RUN_TIMENS_KNOWN;
}

void run_page_init(struct run_page_header *page, bool count)
{
    page->magic = RUN_PAGE_MAGIC;
    page->version = RUN_PAGE_VERSION;
    page->flags = count ? RUN_FLAG_COUNT : 0;
    page->serve_mask = 0;
    run_page_timens(page, NS_PATH, CHILDREN_PATH, OFFSETS_PATH);
}
