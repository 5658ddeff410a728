/* SPDX-License-Identifier: MIT */
/* Which runtime a profiled program is and whether perf can name its functions
 * (runtime_hint.h). */
#include "common/message.h"
#include "profile/runtime_hint.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* python, python3, python3.12, pypy3; node, nodejs; java. */
static enum profiled_runtime runtime_of(const char *program)
{
    const char *b = base_name(program);
    if (strncmp(b, "python", 6) == 0)
        return RUNTIME_PYTHON;
    if (strcmp(b, "node") == 0 || strcmp(b, "nodejs") == 0)
        return RUNTIME_NODE;
    if (strcmp(b, "java") == 0)
        return RUNTIME_JAVA;
    return RUNTIME_NATIVE;
}

static const char *env_get(char *const envp[], const char *key)
{
    size_t k = strlen(key);
    for (int i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], key, k) == 0 && envp[i][k] == '=')
            return envp[i] + k + 1;
    return NULL;
}

/* Whether the runtime's flags (before the script or class: the rest are the program's own)
 * or the environment variable that carries extra options turn its perf map on. */
static bool perf_switch(enum profiled_runtime r, char *const argv[], char *const envp[])
{
    for (int i = 1; argv[i] && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (r == RUNTIME_PYTHON) {
            /* -X perf (3.12), -X perf_jit (3.13: unwinding through DWARF information) */
            if (strcmp(a, "-X") == 0 && argv[i + 1] && strncmp(argv[i + 1], "perf", 4) == 0)
                return true;
            if (strncmp(a, "-Xperf", 6) == 0)
                return true;
            if (strcmp(a, "-X") == 0 || strcmp(a, "-W") == 0)
                i++;                         /* the option's value */
            else if (strcmp(a, "-c") == 0 || strcmp(a, "-m") == 0)
                break;                       /* the code or module; the rest is theirs */
        } else if (r == RUNTIME_NODE) {
            if (strncmp(a, "--perf-basic-prof", 17) == 0 || strcmp(a, "--perf-prof") == 0)
                return true;
        } else if (r == RUNTIME_JAVA) {
            if (strcmp(a, "-XX:+DumpPerfMapAtExit") == 0 || strncmp(a, "-agentpath:", 11) == 0)
                return true;
            if (strcmp(a, "-cp") == 0 || strcmp(a, "-classpath") == 0 || strcmp(a, "-jar") == 0)
                i++;
        }
        if (!argv[i])
            break;
    }
    const char *v;
    switch (r) {
    case RUNTIME_PYTHON:
        v = env_get(envp, "PYTHONPERFSUPPORT");
        return v && strcmp(v, "1") == 0;
    case RUNTIME_NODE:
        v = env_get(envp, "NODE_OPTIONS");
        return v && strstr(v, "--perf-basic-prof");
    case RUNTIME_JAVA:
        v = env_get(envp, "JAVA_TOOL_OPTIONS");
        return v && (strstr(v, "DumpPerfMapAtExit") || strstr(v, "-agentpath:"));
    default:
        return false;
    }
}

static void fill(struct runtime_hint *h, enum profiled_runtime r, bool on)
{
    static const char *const names[] = {"", "Python", "Node", "Java"};
    h->runtime = r;
    h->perf_support = on;
    snprintf(h->name, sizeof h->name, "%s", names[r]);
}

void runtime_hint_for(char *const argv[], const char *resolved, char *const envp[],
                      struct runtime_hint *h)
{
    fill(h, RUNTIME_NATIVE, false);
    if (!argv || !argv[0])
        return;
    enum profiled_runtime r = runtime_of(argv[0]);
    if (r == RUNTIME_NATIVE && resolved) {
        /* A script: its #! line names the interpreter ("#!/usr/bin/env python3" too). */
        char line[256] = "";
        int fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0) {
            ssize_t n = read(fd, line, sizeof line - 1);
            close(fd);
            line[n > 0 ? n : 0] = 0;
        }
        if (strncmp(line, "#!", 2) == 0) {
            line[strcspn(line, "\n")] = 0;
            char *word = strtok(line + 2, " \t");
            if (word && strcmp(base_name(word), "env") == 0)
                word = strtok(NULL, " \t");
            if (word)
                r = runtime_of(word);
            /* A script's flags sit on its #! line, not in our argv: only the environment
             * can be read here. */
            char *none[] = {argv[0], NULL};
            fill(h, r, perf_switch(r, none, envp));
            return;
        }
    }
    fill(h, r, perf_switch(r, argv, envp));
}

/* A NUL-separated /proc file into a NULL-terminated vector (static storage: one at a time). */
static char **proc_vector(int pid, const char *what, char *buf, size_t len, char **vec, int max)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%d/%s", pid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    int k = 0;
    for (char *p = buf; p < buf + n && k < max - 1; p += strlen(p) + 1)
        vec[k++] = p;
    vec[k] = NULL;
    return vec;
}

void runtime_hint_for_pid(int pid, struct runtime_hint *h)
{
    static char args[8192], env[32768];
    static char *argv[256], *envp[1024];
    char path[MSG_PROC_PATH], exe[PATH_MAX] = "";
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    fill(h, RUNTIME_NATIVE, false);
    char **av = proc_vector(pid, "cmdline", args, sizeof args, argv, 256);
    char **ev = proc_vector(pid, "environ", env, sizeof env, envp, 1024);
    enum profiled_runtime r = runtime_of(exe[0] ? exe : av ? av[0] : "");
    if (r == RUNTIME_NATIVE)
        return;
    char *none[] = {exe, NULL};
    fill(h, r, perf_switch(r, av ? av : none, ev));
}

void runtime_hint_advice(const struct runtime_hint *h, bool dwarf, char *out, size_t len)
{
    const char *walk = dwarf ? "" : "  --call-graph dwarf also walks the interpreter's or the "
                                    "JVM's own C frames where they have no frame pointers.";
    out[0] = 0;
    if (h->perf_support) {
        snprintf(out, len, "%s runs with its perf support on: its functions are named from "
                 "/tmp/perf-PID.map, which it writes and perf reads.%s", h->name, walk);
        return;
    }
    switch (h->runtime) {
    case RUNTIME_PYTHON:
        snprintf(out, len, "This is Python: perf sees only the interpreter, so its callers of the "
                 "clock show as [unknown] or the interpreter's loop.  With Python 3.12 or later "
                 "run it as `python3 -X perf ...` (or with PYTHONPERFSUPPORT=1): it writes "
                 "/tmp/perf-PID.map and its functions appear as py::NAME.%s", walk);
        break;
    case RUNTIME_NODE:
        snprintf(out, len, "This is Node: perf sees JIT-compiled code without names ([unknown] "
                 "callers).  Run it as `node --perf-basic-prof ...` (or NODE_OPTIONS="
                 "--perf-basic-prof): it writes /tmp/perf-PID.map, which perf reads.%s", walk);
        break;
    case RUNTIME_JAVA:
        snprintf(out, len, "This is Java: perf sees JIT-compiled code without names ([unknown] "
                 "callers).  Run it with -XX:+PreserveFramePointer (chains through compiled "
                 "code) and a perf map: -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit "
                 "(JDK 17 or later) or perf-map-agent, which write /tmp/perf-PID.map.%s", walk);
        break;
    default:
        break;
    }
}
