/* SPDX-License-Identifier: MIT */
/* A device tree of QEMU's machine with one property added: the machine's own tree dumped
 * by qemu (-machine NAME,dumpdtb=FILE, with the same CPUs and memory, which shape it),
 * turned into source with the device-tree compiler, the property added to the node of a
 * given compatible string, and compiled back.  QEMU still writes /chosen (command line,
 * initrd) and the memory node into a -dtb tree at boot, so nothing else changes. */
#include "common/message.h"
#include "vm/dtb.h"

#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DTS_MAX (1u << 20)

static bool tool(char *const argv[], char *why, size_t whylen)
{
    char err[MSG_PARAGRAPH] = "";
    int st = subprocess_run_tool(argv, NULL, -1, err, sizeof err);
    if (st != 0) {
        err[strcspn(err, "\n")] = '\0';
        snprintf(why, whylen, "%s failed (status %d): %s", argv[0], st, err);
        return false;
    }
    return true;
}

static bool read_file(const char *path, char **buf, size_t *len, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    *buf = fd >= 0 ? malloc(DTS_MAX + 1) : NULL;
    if (!*buf) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    *len = 0;
    ssize_t n;
    while (*len < DTS_MAX && (n = read(fd, *buf + *len, DTS_MAX - *len)) > 0)
        *len += (size_t)n;
    close(fd);
    (*buf)[*len] = '\0';
    if (*len >= DTS_MAX) {
        snprintf(why, whylen, "%s is larger than %u bytes", path, DTS_MAX);
        free(*buf);
        return false;
    }
    return true;
}

static bool write_file(const char *path, const char *buf, size_t len, char *why, size_t whylen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    bool ok = fd >= 0 && subprocess_write_fully(fd, buf, len);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok)
        snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
    return ok;
}

static const char *const parts[] = {"qemu.dtb", "qemu.dts", "patched.dts", "patched.dtb"};

void vm_dtb_remove(const char *dir)
{
    if (!dir[0])
        return;
    char path[4200];
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, parts[i]);
        unlink(path);
    }
    rmdir(dir);
}

bool vm_dtb_patched(const struct vm_boot *b, const char *compatible, const char *property,
                    char *dir, size_t dirlen, char *dtb, size_t dtblen, char *why, size_t whylen)
{
    dir[0] = '\0';
    if (!subprocess_on_path("dtc")) {
        snprintf(why, whylen, "dtc is not installed (apt-get install device-tree-compiler): "
                 "it builds the device tree with %s", property);
        return false;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, dirlen, "%s/clockscope-vm-dtb-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        snprintf(why, whylen, "cannot make a temporary directory in %s: %s", tmp, strerror(errno));
        dir[0] = '\0';
        return false;
    }
    char raw[4200], dts[4200], patched[4200];
    snprintf(raw, sizeof raw, "%s/qemu.dtb", dir);
    snprintf(dts, sizeof dts, "%s/qemu.dts", dir);
    snprintf(patched, sizeof patched, "%s/patched.dts", dir);
    snprintf(dtb, dtblen, "%s/patched.dtb", dir);

    static struct qemu_args a;
    vm_qemu_args(b, raw, &a);
    char *out = NULL, err[MSG_PARAGRAPH] = "";
    size_t out_len;
    struct run_outcome oc;
    if (!run_capture_all(a.argv, 60000, 4096, &out, &out_len, err, sizeof err, &oc, why, whylen))
        return false;
    free(out);
    struct stat st;
    if (oc.exit_status != 0 || stat(raw, &st) != 0 || st.st_size == 0) {
        err[strcspn(err, "\n")] = '\0';
        snprintf(why, whylen, "%s did not dump the machine's device tree (status %d): %s",
                 b->arch->desc->qemu_system, oc.exit_status, err);
        return false;
    }
    char *const to_dts[] = {"dtc", "-q", "-I", "dtb", "-O", "dts", "-o", dts, raw, NULL};
    if (!tool(to_dts, why, whylen))
        return false;
    char *text, *changed;
    size_t len, changed_len;
    if (!read_file(dts, &text, &len, why, whylen))
        return false;
    bool ok = dts_add_property(text, len, compatible, property, &changed, &changed_len, why,
                               whylen);
    free(text);
    if (!ok)
        return false;
    ok = write_file(patched, changed, changed_len, why, whylen);
    free(changed);
    char *const to_dtb[] = {"dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dtb, patched, NULL};
    return ok && tool(to_dtb, why, whylen);
}
