/* SPDX-License-Identifier: MIT */
/* The data page's header (run/run_page.h).  The time namespace part: a served process
 * compares its own namespace with the refresher's at its first read (reader.c), by the
 * inode of /proc/self/ns/time, and adds the difference of the two namespaces' offsets. */
#include "common/message.h"
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

static bool read_offsets(const char *path, int64_t *mono, int64_t *boot)
{
    char text[MSG_LINE];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    return n > 0 && n < (ssize_t)sizeof text && run_timens_parse(text, (long)n, mono, boot);
}

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
    int64_t mono, boot;
    if (!read_offsets(offsets_path, &mono, &boot))
        return;
    page->timens_inode = (uint64_t)own.st_ino;
    page->timens_monotonic_ns = mono;
    page->timens_boottime_ns = boot;
    page->timens = RUN_TIMENS_KNOWN;
}

bool run_page_process(pid_t pid, const struct run_page_header *page, struct run_process_page *out)
{
    memset(out, 0, sizeof *out);
    int64_t mono = 0, boot = 0;
    if (page->timens == RUN_TIMENS_KNOWN) {
        char ns[64], children[64], offsets[64];
        snprintf(ns, sizeof ns, "/proc/%d/ns/time", (int)pid);
        snprintf(children, sizeof children, "/proc/%d/ns/time_for_children", (int)pid);
        snprintf(offsets, sizeof offsets, "/proc/%d/timens_offsets", (int)pid);
        struct stat own, kids;
        if (stat(ns, &own) != 0)
            return false;
        if ((uint64_t)own.st_ino != page->timens_inode) {
            /* As the reader: its offsets are readable only while its children's namespace
             * is its own. */
            if (stat(children, &kids) != 0 || kids.st_ino != own.st_ino ||
                !read_offsets(offsets, &mono, &boot))
                return false;
            mono -= page->timens_monotonic_ns;
            boot -= page->timens_boottime_ns;
        }
    } else if (page->timens != RUN_TIMENS_NONE) {
        return false;
    }
    out->state = RUN_PROCESS_KNOWN;
    out->monotonic_delta_ns = mono;
    out->boottime_delta_ns = boot;
    out->fast_word = (uint64_t)mono ^ RUN_PROCESS_KEY;
    return true;
}

void run_page_init(struct run_page_header *page, bool count)
{
    page->magic = RUN_PAGE_MAGIC;
    page->version = RUN_PAGE_VERSION;
    page->flags = count ? RUN_FLAG_COUNT : 0;
    page->serve_mask = 0;
    run_page_timens(page, NS_PATH, CHILDREN_PATH, OFFSETS_PATH);
}
