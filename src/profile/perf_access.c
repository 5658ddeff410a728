/* SPDX-License-Identifier: MIT */
/* perf_event_paranoid (Documentation/admin-guide/perf-security.rst) for a user without
 * CAP_PERFMON (Linux 5.8+) or CAP_SYS_ADMIN:
 *   -1  everything;  0  also CPU-wide sampling (-a);  1  user and kernel of one's own
 *   processes;  2  user space of one's own processes only;  3 or more (Debian's and
 *   Android's patch, Debian's default)  nothing at all. */
#include "profile/perf_access.h"
#include "common/sysctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static const char how_to_allow[] =
    "a program you run needs kernel.perf_event_paranoid 2 or less (user space only), its "
    "time in the kernel 1 or less, -a 0 or less; or run as root or with CAP_PERFMON "
    "(CAP_SYS_ADMIN before Linux 5.8).  An administrator can set it with "
    "'sysctl kernel.perf_event_paranoid=1'; clockscope does not change it";

void perf_plan_for(const struct perf_access *a, enum profile_target target, struct perf_plan *p)
{
    memset(p, 0, sizeof *p);
    p->allowed = true;
    if (a->privileged)
        return;
    if (!a->paranoid_known) {
        snprintf(p->why, sizeof p->why, "kernel.perf_event_paranoid is unreadable (a kernel "
                 "without perf events?): trying anyway");
        return;
    }
    int v = a->paranoid;
    if (v >= 3) {
        p->allowed = false;
        snprintf(p->why, sizeof p->why, "kernel.perf_event_paranoid is %d: perf may not be used "
                 "by unprivileged users here; %s", v, how_to_allow);
    } else if (target == TARGET_ALL && v >= 1) {
        p->allowed = false;
        snprintf(p->why, sizeof p->why, "kernel.perf_event_paranoid is %d: -a (every CPU) needs "
                 "0 or less for a user without CAP_PERFMON; profile a program (-- CMD) or "
                 "your own process (-p PID) instead, or: %s", v, how_to_allow);
    } else if (v == 2) {
        p->user_only = true;
        snprintf(p->why, sizeof p->why, "kernel.perf_event_paranoid is 2: only user space is "
                 "sampled, so time in time syscalls and the kernel's clocksource read is not "
                 "seen (it shows as the user frame that entered the kernel, or not at all); 1 "
                 "or less, or CAP_PERFMON, shows it");
    }
}

/* Whether capability bit b is in the effective set (CapEff: hex in /proc/self/status). */
static bool has_capability(int b)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return false;
    char line[256];
    bool yes = false;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "CapEff:", 7) == 0) {
            unsigned long long caps = strtoull(line + 7, NULL, 16);
            yes = (caps >> b) & 1;
            break;
        }
    fclose(f);
    return yes;
}

void perf_access_read(struct perf_access *a)
{
    memset(a, 0, sizeof *a);
    a->paranoid_known = sysctl_read_int("/proc/sys/kernel/perf_event_paranoid", &a->paranoid);
    a->privileged = geteuid() == 0 || has_capability(CAP_PERFMON_BIT) ||
                    has_capability(CAP_SYS_ADMIN_BIT);
}

/* The value of KEY= in an os-release text, unquoted, into out. */
static void os_release_value(const char *text, const char *key, char *out, size_t len)
{
    out[0] = 0;
    size_t k = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, key, k) != 0 || l[k] != '=')
            continue;
        const char *v = l + k + 1;
        if (*v == '"' || *v == '\'')
            v++;
        size_t n = strcspn(v, "\"'\n");
        snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), v);
        return;
    }
}

void perf_missing_message(const char *os_release, char *out, size_t len)
{
    static const struct {
        const char *id, *package;
    } packages[] = {
        {"debian", "the Debian package linux-perf (apt-get install linux-perf)"},
        {"ubuntu", "the Ubuntu packages linux-tools-common and linux-tools-$(uname -r)"},
        {"fedora", "the package perf (dnf install perf)"},
        {"rhel", "the package perf (dnf install perf)"},
        {"centos", "the package perf (dnf install perf)"},
        {"openEuler", "the package perf (dnf install perf)"},
        {"suse", "the package perf (zypper install perf)"},
        {"opensuse", "the package perf (zypper install perf)"},
        {"arch", "the package perf (pacman -S perf)"},
        {"alpine", "the package perf (apk add perf)"},
    };
    char id[64], like[128];
    os_release_value(os_release ? os_release : "", "ID", id, sizeof id);
    os_release_value(os_release ? os_release : "", "ID_LIKE", like, sizeof like);
    const char *pkg = NULL;
    for (size_t i = 0; i < sizeof packages / sizeof packages[0] && !pkg; i++)
        if (strcmp(id, packages[i].id) == 0)
            pkg = packages[i].package;
    /* ID_LIKE: a derivative names its parents, closest first ("ubuntu debian"). */
    for (char *w = strtok(like, " "); w && !pkg; w = strtok(NULL, " "))
        for (size_t i = 0; i < sizeof packages / sizeof packages[0] && !pkg; i++)
            if (strcmp(w, packages[i].id) == 0)
                pkg = packages[i].package;
    if (pkg)
        snprintf(out, len, "perf is not installed: on this system (%s) it comes with %s", id, pkg);
    else
        snprintf(out, len, "perf is not installed: install your distribution's perf package (the "
                 "kernel's tools/perf; Debian: linux-perf)%s%s%s", id[0] ? " (this is " : "", id,
                 id[0] ? ")" : "");
}
