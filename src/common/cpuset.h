/* SPDX-License-Identifier: MIT */
/* The CPUs this process may run on, and pinning to one of them. */
#ifndef CLOCKSCOPE_CPUSET_H
#define CLOCKSCOPE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>

#define CPUSET_MAX 1024

struct cpu_list {
    int count;
    int cpu[CPUSET_MAX];
};

/* Fills the list with the CPUs in this thread's affinity mask, ascending. */
bool cpuset_allowed(struct cpu_list *out);
bool cpuset_contains(const struct cpu_list *allowed, int cpu);
/* Pins the calling thread to one CPU.  Returns false with errno set on failure. */
bool cpuset_pin(int cpu);
/* Parses "0,2-5,7" into a list; each CPU must be in `allowed`.  On error fills err. */
bool cpuset_parse_list(const char *s, const struct cpu_list *allowed, struct cpu_list *out,
                    char *why, size_t whylen);
/* Number of CPUs the kernel has configured (for "does not exist" vs "not allowed"). */
int cpuset_configured_cpus(void);

#endif
