/* SPDX-License-Identifier: MIT */
#include "facts/facts.h"

#include "common/clocksource_sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const paths[F_COUNT] = {
    [F_CURRENT_CS] = CLOCKSOURCE_SYSFS_REL "/" CLOCKSOURCE_CURRENT,
    [F_AVAILABLE_CS] = CLOCKSOURCE_SYSFS_REL "/" CLOCKSOURCE_AVAILABLE,
    [F_CPUINFO] = "proc/cpuinfo",
    [F_CMDLINE] = "proc/cmdline",
    [F_VERSION] = "proc/version",
    [F_HYPERVISOR] = "sys/hypervisor/type",
    [F_DMESG] = "dmesg",
    [F_UNAME] = "uname",
    [F_VIRT] = "virt",
    [F_DMI_VENDOR] = "sys/class/dmi/id/sys_vendor",
    [F_DMI_PRODUCT] = "sys/class/dmi/id/product_name",
    [F_PERF_USER] = "proc/sys/kernel/perf_user_access",
    [F_CPU] = "clockscope/cpu",
    [F_VDSO] = "clockscope/vdso",
    [F_DT_HYPERVISOR] = "proc/device-tree/hypervisor/compatible",
    [F_DT_COMPATIBLE] = "proc/device-tree/compatible",
};

/* Where an unpacked sosreport (or a copied /var/log) keeps what the corpus layout keeps
 * elsewhere, tried in order when the main path is missing.  kern.log holds many boots:
 * the scanner keeps the last. */
static const char *const alt_paths[F_COUNT][4] = {
    [F_DMESG] = {"sos_commands/kernel/dmesg", "var/log/dmesg", "var/log/kern.log", NULL},
    [F_UNAME] = {"sos_commands/kernel/uname_-a", NULL},
    [F_VIRT] = {"sos_commands/systemd/systemd-detect-virt", NULL},
};

const char *fact_path(enum fact_id id) { return paths[id]; }
const char *const *fact_alt_paths(enum fact_id id) { return alt_paths[id]; }

void facts_note(struct facts *fs, const char *fmt, ...)
{
    if (fs->nnotes >= (int)(sizeof fs->notes / sizeof fs->notes[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fs->notes[fs->nnotes++], sizeof fs->notes[0], fmt, ap);
    va_end(ap);
}

void facts_free(struct facts *fs)
{
    for (int i = 0; i < F_COUNT; i++)
        fact_free(&fs->f[i]);
}

bool facts_load_root(const char *root, struct facts *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(root, &st) != 0) {
        snprintf(why, whylen, "facts root '%s': %s", root, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "facts root '%s' is not a directory", root);
        return false;
    }
    /* Readable and searchable, or nothing in it can be read: that is bad usage (exit 2),
     * not a machine whose every fact happens to be unknown. */
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || faccessat(fd, ".", R_OK | X_OK, AT_EACCESS) != 0) {
        snprintf(why, whylen, "facts root '%s' is not a readable directory: %s", root,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    close(fd);
    struct fact_reader r;
    if (strlen(root) >= sizeof r.root) {
        snprintf(why, whylen, "facts root path too long");
        return false;
    }
    snprintf(r.root, sizeof r.root, "%s", root);
    snprintf(out->origin, sizeof out->origin, "%s", root);
    for (int i = 0; i < F_COUNT; i++) {
        bool log = i == F_DMESG;
        fact_read(&r, paths[i], log ? FACTS_LOG_CAP : FACTS_FILE_CAP, log, &out->f[i]);
        for (int a = 0; out->f[i].status == FACT_MISSING && alt_paths[i][a]; a++)
            fact_read(&r, alt_paths[i][a], log ? FACTS_LOG_CAP : FACTS_FILE_CAP, log, &out->f[i]);
    }
    const struct fact *d = &out->f[F_DMESG];
    if (d->status == FACT_OK && d->truncated)
        facts_note(out, "kernel log is %zu bytes: read its first and last %u MiB only",
                   d->full_size, FACTS_LOG_CAP >> 21);
    return true;
}

const char *facts_cpu_value(const struct facts *fs, const char *key, char *buf, size_t len)
{
    buf[0] = 0;
    const struct fact *f = &fs->f[F_CPU];
    if (f->status != FACT_OK)
        return buf;
    size_t kl = strlen(key);
    for (const char *p = f->text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t vl = n - kl - 1;
            if (vl >= len)
                vl = len - 1;
            memcpy(buf, p + kl + 1, vl);
            buf[vl] = 0;
            break;
        }
        p = nl ? nl + 1 : NULL;
    }
    return buf;
}
