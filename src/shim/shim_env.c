/* SPDX-License-Identifier: MIT */
/* What the shim does with LD_PRELOAD at start, and whether it serves this process.
 *
 * By default the shim removes itself from LD_PRELOAD, so that programs the command executes
 * run without it.  Two exceptions, both chosen by `clockscope run`:
 *   CLOCKSCOPE_RUN_INHERIT=1     keep it for every program executed, at any depth;
 *   CLOCKSCOPE_RUN_FOLLOW_PID=P  follow the process `run` started (P) through every exec it
 *                                makes.  Wrappers (pyenv and conda shims, distributions'
 *                                `python3` scripts, `#!/usr/bin/env bash`, `env`, `nice`)
 *                                replace themselves with the next program by exec, so the real
 *                                program ends up running in process P, however many hops come
 *                                first.  No hop can tell whether it is the last one (pyenv's
 *                                shim is `env`, then bash with AT_EXECFN naming bash itself,
 *                                then another script's bash, then python), so in P the shim
 *                                serves every program and stays in LD_PRELOAD for the next.
 *                                Every other process (`dirname`, `uname`, a subshell's
 *                                programs, the program's own children) has another pid: there
 *                                the shim removes itself and the follow mark, serves nothing,
 *                                and what that process starts runs without the shim.
 * A pid is reused only after P has exited; a descendant that never loaded the shim (a static
 * program) passes the mark on, and a later process of its with P's number would be served as
 * P is: the clocks the user asked for, nothing worse. */
#include "shim/shim.h"
#include "common/environment.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

/* Sets (value) or removes (NULL) NAME in environ's own array, in place, never through
 * setenv/unsetenv: a program may define those itself, and bash does (its versions change
 * shell variables that do not exist yet while constructors run, so LD_PRELOAD would stay in
 * what bash passes on).  Programs that read main's envp see the change too: at start it is
 * the same array as environ.  The new string is never freed: one per process. */
static void env_set_in_place(const char *name, const char *value)
{
    size_t nl = strlen(name);
    for (char **ep = environ; ep && *ep; ep++) {
        if (strncmp(*ep, name, nl) != 0 || (*ep)[nl] != '=')
            continue;
        if (value) {
            size_t len = nl + 1 + strlen(value) + 1;
            char *entry = malloc(len);
            if (!entry)
                return;
            snprintf(entry, len, "%s=%s", name, value);
            *ep = entry;
        } else {
            char **dp = ep;
            do
                dp[0] = dp[1];
            while (*dp++);
            ep--; /* look at the entry that moved here */
        }
    }
}

static void strip_preload(const char *self)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre || !self)
        return;
    size_t len = strlen(pre);
    char *out = malloc(len + 1);
    char *copy = strdup(pre);
    if (!out || !copy) {
        free(out);
        free(copy);
        return;
    }
    out[0] = 0;
    /* ld.so separates entries by spaces or colons. */
    for (char *save = NULL, *tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
        if (strcmp(tok, self) == 0)
            continue;
        if (out[0])
            strcat(out, ":");
        strcat(out, tok);
    }
    env_set_in_place("LD_PRELOAD", out[0] ? out : NULL);
    free(out);
    free(copy);
}

/* CLOCKSCOPE_RUN_FOLLOW_PID as a pid, or 0 when absent or malformed. */
static pid_t follow_pid(void)
{
    const char *v = getenv(ENV_RUN_FOLLOW_PID);
    if (!v || !*v)
        return 0;
    char *end;
    long p = strtol(v, &end, 10);
    return *end == '\0' && p > 0 && p == (pid_t)p ? (pid_t)p : 0;
}

bool shim_env_start(const char *self)
{
    const char *inherit = getenv(ENV_RUN_INHERIT);
    if (inherit && strcmp(inherit, "1") == 0)
        return true;
    pid_t follow = follow_pid();
    if (follow == 0) {
        strip_preload(self);
        return true;
    }
    if (getpid() != follow) {
        /* Started by the process run started (a wrapper's helper, the program's child), not
         * exec'd into by it: leave it alone, and everything it starts. */
        strip_preload(self);
        env_set_in_place(ENV_RUN_FOLLOW_PID, NULL);
        return false;
    }
    const char *verbose = getenv(ENV_RUN_VERBOSE);
    if (verbose && strcmp(verbose, "1") == 0) {
        /* The kernel names the file execve was given in AT_EXECFN: a script's path when
         * this is its interpreter. */
        const char *path = (const char *)getauxval(AT_EXECFN);
        fprintf(stderr, "clockscope-shim: pid %ld runs %s: served, and the shim stays for the "
                        "program it execs\n", (long)follow, path ? path : "?");
    }
    return true;
}

bool shim_env_in_wrapper_child(void)
{
    pid_t follow = follow_pid();
    return follow != 0 && getpid() != follow;
}
