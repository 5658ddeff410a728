/* SPDX-License-Identifier: MIT */
/* The live machine's facts.  Files are read through the same reader as a facts root (root
 * "/"); what is not a file in the live system (kernel log, uname, virtualization, CPUID,
 * the vDSO) is produced here in the facts-root format, so that `facts --save` writes it
 * and the rules read it the same way. */
#include "facts/facts.h"
#include "common/subprocess.h"

#include "arch/arch.h"
#include "common/message.h"
#include "common/trap_guard.h"
#include "vdso/vdso.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

/* A growable text buffer for live facts. */
struct text {
    char *s;
    size_t len, cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *s2 = realloc(t->s, cap);
        if (!s2)
            return;
        t->s = s2;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = 0;
}

static void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(struct text *t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0)
        text_add(t, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* /dev/kmsg, read without blocking: one record per read(); EAGAIN is the end of the
 * buffer, EPIPE a record overwritten while we read (skip it).  Records become
 * "[seconds] message" lines. */
static bool kmsg_read(struct text *t, char *why, size_t whylen)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "/dev/kmsg: %s", strerror(errno));
        return false;
    }
    char rec[8192 + 1];
    int records = 0;
    while (t->len < FACTS_LOG_CAP) {
        ssize_t n = read(fd, rec, sizeof rec - 1);
        if (n < 0 && (errno == EINTR || errno == EPIPE))
            continue;
        if (n < 0 && errno != EAGAIN) {
            snprintf(why, whylen, "/dev/kmsg: %s", strerror(errno));
            close(fd);
            return records > 0;
        }
        if (n <= 0)
            break;
        rec[n] = 0;
        char *semi = strchr(rec, ';');
        unsigned pri;
        unsigned long long seq, usec;
        if (!semi || sscanf(rec, "%u,%llu,%llu", &pri, &seq, &usec) != 3)
            continue;
        char *msg = semi + 1;
        msg[strcspn(msg, "\n")] = 0;
        text_printf(t, "[%5llu.%06llu] %s\n", usec / 1000000, usec % 1000000, msg);
        records++;
    }
    close(fd);
    if (records == 0) {
        snprintf(why, whylen, "/dev/kmsg: no records");
        return false;
    }
    return true;
}

static bool klogctl_read(struct text *t, char *why, size_t whylen)
{
    int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
    if (size <= 0) {
        snprintf(why, whylen, "syslog(2): %s", size < 0 ? strerror(errno) : "empty");
        return false;
    }
    if ((unsigned)size > FACTS_LOG_CAP)
        size = FACTS_LOG_CAP;
    char *buf = malloc((size_t)size);
    int n = buf ? klogctl(SYSLOG_ACTION_READ_ALL, buf, size) : -1;
    if (n <= 0) {
        snprintf(why, whylen, "syslog(2): %s", n < 0 ? strerror(errno) : "empty");
        free(buf);
        return false;
    }
    text_add(t, buf, (size_t)n);
    free(buf);
    return true;
}

char *facts_read_kernel_log(int journal_timeout_ms, size_t *len, const char **source, char *why,
                            size_t whylen)
{
    struct text t = {0};
    char why1[MSG_LINE] = "", why2[MSG_LINE] = "", why3[MSG_LINE] = "";
    *source = NULL;
    if (kmsg_read(&t, why1, sizeof why1))
        *source = "/dev/kmsg";
    else if ((t.len = 0, klogctl_read(&t, why2, sizeof why2)))
        *source = "syslog(2) (dmesg)";
    else if (journal_timeout_ms <= 0) {
        snprintf(why3, sizeof why3, "journalctl not tried");
    } else if (subprocess_on_path("journalctl")) {
        char *out;
        size_t n;
        char *argv[] = {"journalctl", "-k", "-b", "-q", "--no-pager", "-o", "short-monotonic", NULL};
        if (subprocess_capture(argv, journal_timeout_ms, FACTS_LOG_CAP, &out, &n, why3, sizeof why3) &&
            n > 0) {
            t.len = 0;
            text_add(&t, out, n);
            *source = "journalctl -k -b";
        } else if (!why3[0]) {
            snprintf(why3, sizeof why3, "journalctl -k: no output");
        }
        free(out);
    } else {
        snprintf(why3, sizeof why3, "no journalctl");
    }
    if (!*source) {
        snprintf(why, whylen, "%s; %s; %s", why1, why2, why3);
        free(t.s);
        *len = 0;
        return NULL;
    }
    *len = t.len;
    return t.s ? t.s : strdup("");
}

static void read_kernel_log(struct facts *fs, int journal_timeout_ms)
{
    size_t len;
    const char *source;
    char why[MSG_REASON];
    char *log = facts_read_kernel_log(journal_timeout_ms, &len, &source, why, sizeof why);
    if (source) {
        fact_set_text(&fs->f[F_DMESG], source, log ? log : "", len);
        if (len >= FACTS_LOG_CAP)
            facts_note(fs, "kernel log capped at %u MiB", FACTS_LOG_CAP >> 20);
    } else {
        fact_set_unreadable(&fs->f[F_DMESG], "kernel log", why);
        facts_note(fs, "kernel log not readable (%s)", why);
    }
    free(log);
}

static void read_uname(struct facts *fs)
{
    struct utsname u;
    if (uname(&u) != 0) {
        fact_set_unreadable(&fs->f[F_UNAME], "uname(2)", strerror(errno));
        return;
    }
    char line[1400];
    int n = snprintf(line, sizeof line, "%s %s %s %s %s\n", u.sysname, u.nodename, u.release,
                     u.version, u.machine);
    fact_set_text(&fs->f[F_UNAME], "uname(2)", line, n > 0 ? strlen(line) : 0);
}

static void read_virt(struct facts *fs, int timeout_ms)
{
    if (!subprocess_on_path("systemd-detect-virt"))
        return; /* not known; CPUID, sys/hypervisor and DMI are read separately */
    char *out;
    size_t len;
    char why[MSG_LINE];
    /* --vm: a container's name (docker, lxc) says nothing about the clock hardware. */
    char *argv[] = {"systemd-detect-virt", "--vm", NULL};
    subprocess_capture(argv, timeout_ms, 4096, &out, &len, why, sizeof why);
    if (out && len > 0)
        fact_set_text(&fs->f[F_VIRT], "systemd-detect-virt", out, len);
    free(out);
}

static void read_cpu(struct facts *fs)
{
    struct text t = {0};
    text_printf(&t, "arch=%s\n", arch_name());
    char vendor[64];
    if (arch_cpu_hypervisor(vendor, sizeof vendor)) {
        for (char *p = vendor; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                *p = '?';
        text_printf(&t, "hypervisor_vendor=%s\n", vendor);
    }
    int stable = arch_kvm_clock_stable_bit();
    if (stable >= 0)
        text_printf(&t, "kvm_clock_stable_bit=%d\n", stable);
    int inv = arch_counter_invariant();
    if (inv >= 0)
        text_printf(&t, "counter_invariant=%d\n", inv);
    char src[96];
    uint64_t hz = arch_counter_stated_hz(src, sizeof src);
    if (hz)
        text_printf(&t, "counter_hz=%llu\ncounter_hz_source=%s\n", (unsigned long long)hz, src);
    const struct counter_method *c;
    size_t n = arch_counters(&c);
    for (size_t i = 0; i < n; i++) {
        char why[MSG_LINE] = "";
        bool ok = c[i].permitted(why, sizeof why);
        text_printf(&t, "counter.%s=%s\n", c[i].name, ok ? "permitted" : why);
    }
    fact_set_text(&fs->f[F_CPU], "CPU (CPUID, system registers, counter probes)", t.s ? t.s : "",
                  t.len);
    free(t.s);
}

static void read_vdso(struct facts *fs)
{
    const struct vdso_live *v = vdso_live();
    struct text t = {0};
    if (!v->present || !v->parsed) {
        text_printf(&t, "absent: %s\n", v->why);
    } else {
        for (size_t i = 0; i < v->image.nsyms; i++) {
            struct vdso_symbol s;
            if (vdso_symbol_at(&v->image, i, &s) && s.name[0])
                text_printf(&t, "%s%s%s\n", s.name, s.version ? "@" : "",
                            s.version ? s.version : "");
        }
    }
    fact_set_text(&fs->f[F_VDSO], "this process's vDSO", t.s ? t.s : "", t.len);
    free(t.s);
}

/* The facts that are plain files under "/". */
static void read_files(struct facts *fs, const enum fact_id *ids, size_t n)
{
    struct fact_reader r = {"/"};
    for (size_t i = 0; i < n; i++)
        fact_read(&r, fact_path(ids[i]), FACTS_FILE_CAP, false, &fs->f[ids[i]]);
}

static void live_init(struct facts *fs)
{
    memset(fs, 0, sizeof *fs);
    fs->live = true;
    snprintf(fs->origin, sizeof fs->origin, "live");
}

void facts_load_live(struct facts *fs)
{
    live_init(fs);
    static const enum fact_id files[] = {F_CURRENT_CS, F_AVAILABLE_CS, F_CPUINFO, F_CMDLINE,
                                         F_VERSION, F_HYPERVISOR, F_DMI_VENDOR, F_DMI_PRODUCT,
                                         F_PERF_USER, F_DT_HYPERVISOR, F_DT_COMPATIBLE};
    read_files(fs, files, sizeof files / sizeof files[0]);
    read_uname(fs);
    read_cpu(fs);
    read_vdso(fs);
    read_virt(fs, 500);
    read_kernel_log(fs, 1000);
}

void facts_load_live_quick(struct facts *fs)
{
    live_init(fs);
    static const enum fact_id files[] = {F_CURRENT_CS, F_AVAILABLE_CS, F_CPUINFO, F_VERSION,
                                         F_HYPERVISOR, F_DMI_VENDOR, F_DMI_PRODUCT,
                                         F_DT_HYPERVISOR, F_DT_COMPATIBLE,
                                         F_CMDLINE};   /* emulation: clockscope vm's word */
    read_files(fs, files, sizeof files / sizeof files[0]);
    read_uname(fs);
    read_cpu(fs);
}
