/* SPDX-License-Identifier: MIT */
#include "common/cpuset.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cpuset_allowed(struct cpu_list *out)
{
    cpu_set_t set;
    out->count = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return false;
    for (int c = 0; c < CPU_SETSIZE && c < CPUSET_MAX; c++)
        if (CPU_ISSET(c, &set))
            out->cpu[out->count++] = c;
    return out->count > 0;
}

bool cpuset_contains(const struct cpu_list *allowed, int cpu)
{
    for (int i = 0; i < allowed->count; i++)
        if (allowed->cpu[i] == cpu)
            return true;
    return false;
}

bool cpuset_pin(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        errno = EINVAL;
        return false;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

int cpuset_configured_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return n > 0 ? (int)n : 1;
}

static bool parse_cpu_number(const char *s, size_t len, int *out)
{
    if (len == 0 || len > 6)
        return false;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static bool check_cpu(int cpu, const struct cpu_list *allowed, char *why, size_t whylen)
{
    if (cpuset_contains(allowed, cpu))
        return true;
    if (cpu >= cpuset_configured_cpus())
        snprintf(why, whylen, "CPU %d does not exist (this machine has CPUs 0-%d)", cpu,
                 cpuset_configured_cpus() - 1);
    else
        snprintf(why, whylen, "CPU %d is not in this process's affinity mask", cpu);
    return false;
}

bool cpuset_parse_list(const char *s, const struct cpu_list *allowed, struct cpu_list *out,
                    char *why, size_t whylen)
{
    out->count = 0;
    if (!s || !*s) {
        snprintf(why, whylen, "empty CPU list");
        return false;
    }
    const char *p = s;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *dash = memchr(p, '-', len);
        int lo, hi;
        bool ok = dash ? parse_cpu_number(p, (size_t)(dash - p), &lo) &&
                             parse_cpu_number(dash + 1, len - (size_t)(dash - p) - 1, &hi)
                       : parse_cpu_number(p, len, &lo);
        if (!dash)
            hi = lo;
        if (!ok || hi < lo) {
            snprintf(why, whylen, "bad CPU list '%s' (expected e.g. 0,2-3)", s);
            return false;
        }
        for (int c = lo; c <= hi; c++) {
            if (!check_cpu(c, allowed, why, whylen))
                return false;
            bool dup = false;
            for (int i = 0; i < out->count; i++)
                dup |= out->cpu[i] == c;
            if (!dup && out->count < CPUSET_MAX)
                out->cpu[out->count++] = c;
        }
        if (!comma)
            break;
        p = comma + 1;
        if (!*p) {
            snprintf(why, whylen, "bad CPU list '%s' (trailing comma)", s);
            return false;
        }
    }
    return true;
}
