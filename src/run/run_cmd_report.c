/* SPDX-License-Identifier: MIT */
/* The messages of `clockscope run -- COMMAND` (run/run_cmd_report.h). */
#include "run/run_cmd_report.h"
#include "run/run_served.h"

#include <stdio.h>
#include <string.h>

void run_say_no_shim(const char *shim, const char *tried)
{
    fprintf(stderr, "clockscope run: cannot find %s (looked at %s); build it with 'make' or set "
            "CLOCKSCOPE_SHIM\n", shim, tried);
}

void run_say_unresolved(const char *cmd, bool not_found)
{
    fprintf(stderr, "clockscope run: %s: %s\n", cmd,
            not_found ? "command not found" : "permission denied (not executable)");
}

void run_say_not_regular(const char *target)
{
    fprintf(stderr, "clockscope run: %s: permission denied (not a regular file)\n", target);
}

void run_say_secure_traced(const char *target, const char *kind, const char *secure)
{
    fprintf(stderr, "clockscope run: warning: %s is %s and %s: tracing its exec would drop "
            "its privileges, so run does not patch its vDSO; it runs unchanged\n", target,
            kind, secure);
}

void run_say_secure_preload(const char *target, const char *secure)
{
    fprintf(stderr, "clockscope run: warning: %s is %s: the loader ignores LD_PRELOAD for "
            "it (secure execution), so the shim cannot reach it; it runs unchanged\n",
            target, secure);
}

void run_say_script(const char *target, bool follow)
{
    fprintf(stderr, "clockscope run: %s is a script: %s\n", target,
            follow ? "the shim also serves the program it execs (--no-follow: only the "
                     "script's interpreter)"
                   : "the shim serves only its interpreter (--no-follow)");
}

void run_say_out_of_memory(void)
{
    fprintf(stderr, "clockscope run: out of memory\n");
}

void run_say_unserved(const char *target, const char *kind, const char *why, bool is_static)
{
    /* A dynamic Go program has the shim loaded, but its runtime reads the vDSO itself: only
     * what it calls through libc (cgo) reaches the shim. */
    const char *rest = is_static          ? ""
                       : kind == RUN_KIND_GO ? " (its runtime reads the vDSO directly; the shim "
                                              "serves only calls made through libc, as cgo's)"
                                           : " (the shim still serves its calls through libc)";
    fprintf(stderr, "clockscope run: %s is %s: its vDSO is not patched: %s; it runs "
            "unserved%s\n", target, kind, why, rest);
}

void run_say_cannot_execute(const char *target, int err)
{
    fprintf(stderr, "clockscope run: cannot execute %s: %s\n", target, strerror(err));
}
