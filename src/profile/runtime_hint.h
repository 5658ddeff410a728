/* SPDX-License-Identifier: MIT */
/* Which language runtime a profiled program is (Python, Node, Java), and whether it runs
 * with the switch that lets perf name its functions: without it perf sees the interpreter
 * or the JIT's anonymous code, and every caller of the clock is "[unknown]".  Each runtime
 * that has such a switch writes /tmp/perf-PID.map, which perf script reads by itself. */
#ifndef CLOCKSCOPE_PROFILE_RUNTIME_HINT_H
#define CLOCKSCOPE_PROFILE_RUNTIME_HINT_H

#include <stdbool.h>
#include <stddef.h>

enum profiled_runtime { RUNTIME_NATIVE, RUNTIME_PYTHON, RUNTIME_NODE, RUNTIME_JAVA };

struct runtime_hint {
    enum profiled_runtime runtime;
    bool perf_support;       /* its perf switch is on (a flag, or the environment) */
    char name[32];           /* "Python", "Node", "Java" */
};

/* From a command line and the environment it runs with (NULL-terminated "K=V" strings):
 * the program's name (or, for a script, its #! interpreter) and its flags.  Pure but for
 * reading the first line of argv[0] when it is a script (resolved is its path, or NULL). */
void runtime_hint_for(char *const argv[], const char *resolved, char *const envp[],
                      struct runtime_hint *h);

/* The same for a running process: /proc/PID/exe, cmdline and environ (each unreadable one
 * leaves what it would tell unknown). */
void runtime_hint_for_pid(int pid, struct runtime_hint *h);

/* One sentence: what to run the program with so that perf names its functions, or that
 * its names come from /tmp/perf-PID.map; "" for a native program. */
void runtime_hint_advice(const struct runtime_hint *h, bool dwarf, char *out, size_t len);

#endif
