/* SPDX-License-Identifier: MIT */
/* Refusals of run -p and --undo (run/run_fit.h). */
#include "run/run_fit.h"

#include "common/elf_probe.h"
#include "common/message.h"
#include "run/run_trace.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/kcmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void comm_of(long pid, char *out, size_t len)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    snprintf(out, len, "?");
    FILE *c = fopen(path, "re");
    if (c) {
        if (fgets(out, (int)len, c))
            out[strcspn(out, "\n")] = 0;
        fclose(c);
    }
}

/* The tracer named: another clockscope (attaching or undoing: the refresher does not
 * trace), or any other. */
static void say_tracer(long tracer, char *why, size_t whylen)
{
    char comm[64];
    comm_of(tracer, comm, sizeof comm);
    if (!strcmp(comm, "clockscope"))
        snprintf(why, whylen, "another clockscope run (pid %ld) is attaching to it or undoing it: "
                 "one at a time; try again when it has ended", tracer);
    else
        snprintf(why, whylen, "it is being traced by pid %ld (%s): a process has one tracer; "
                 "detach that one (gdb: detach; strace: end it), then run -p", tracer, comm);
}

/* A numeric field of /proc/PID[/task/TID]/status ("TracerPid:", "Seccomp:"); -1 if absent. */
static long status_field(const char *path, const char *name)
{
    char line[256];
    long v = -1;
    size_t n = strlen(name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, n)) {
            v = atol(line + n);
            break;
        }
    fclose(f);
    return v;
}

bool run_fit_to_serve(pid_t pid, bool attach, char *why, size_t whylen)
{
    char path[MSG_PROC_PATH], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(why, whylen, "no process %d", (int)pid);
        return false;
    }
    long tracer = 0, tgid = -1;
    unsigned long ruid = 0, euid = 0;
    bool have_uid = false;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Tgid:", 5))
            tgid = atol(line + 5);
        else if (!strncmp(line, "TracerPid:", 10))
            tracer = atol(line + 10);
        else if (sscanf(line, "Uid: %lu %lu", &ruid, &euid) == 2)
            have_uid = true;
    }
    fclose(f);
    if (tgid != pid) {
        snprintf(why, whylen, "%d is a thread of process %ld: give the process's pid", (int)pid, tgid);
        return false;
    }
    uid_t me = geteuid();
    if (me != 0 && have_uid && (ruid != me || euid != me)) {
        snprintf(why, whylen, "it belongs to another user (uid %lu): run -p serves only your own "
                 "processes (root, with ptrace allowed, may serve any)", euid);
        return false;
    }
    if (tracer) {
        say_tracer(tracer, why, whylen);
        return false;
    }
    if (!attach)
        return true;
    pid_t at = run_trace_live_thread(pid);
    snprintf(path, sizeof path, "/proc/%d/exe", (int)(at ? at : pid));
    struct elf_facts ef;
    char ewhy[MSG_LINE];
    if (elf_probe(path, &ef, ewhy, sizeof ewhy) == ELF_PROBE_OK && ef.has_interp && !ef.go_buildinfo) {
        snprintf(why, whylen, "it is a dynamically linked program (not Go): its clock reads go "
                 "through libc, which run's shim serves; start it as `clockscope run -- "
                 "COMMAND` instead (run -p patches the vDSO of static and Go programs only)");
        return false;
    }
    return true;
}

bool run_fit_tracer_came(pid_t pid, pid_t tid, char *why, size_t whylen)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    long tracer = status_field(path, "TracerPid:");
    if (tracer <= 0 || tracer == getpid())
        return false;
    say_tracer(tracer, why, whylen);
    return true;
}

/* The [vdso] line's permissions, "r-xp" when executable and readable. */
static bool vdso_rx(pid_t pid, char *why, size_t whylen)
{
    char path[MSG_PROC_PATH], line[512];
    pid_t at = run_trace_live_thread(pid);
    snprintf(path, sizeof path, "/proc/%d/maps", (int)(at ? at : pid));
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    char perms[8] = "";
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        if (strstr(line, "[vdso]") && sscanf(line, "%*[0-9a-f]-%*[0-9a-f] %7s", perms) == 1)
            found = true;
    fclose(f);
    if (!found)
        return true; /* no vDSO: run_vpatch_read says so */
    if (perms[0] != 'r' || perms[2] != 'x') {
        snprintf(why, whylen, "its vDSO is not mapped r-x (%s: the program changed it with "
                 "mprotect): a step run there would fault; not served", perms);
        return false;
    }
    return true;
}

/* Seccomp mode 1 (strict) or 2 (filter) on any thread. */
static bool no_seccomp(pid_t pid, char *why, size_t whylen)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return true; /* gone: the stop says so */
    struct dirent *e;
    long mode = 0;
    pid_t tid = 0;
    while (mode <= 0 && (e = readdir(d))) {
        tid = (pid_t)atoi(e->d_name);
        if (tid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
        mode = status_field(path, "Seccomp:");
    }
    closedir(d);
    if (mode <= 0)
        return true;
    snprintf(why, whylen, "it runs under a seccomp %s (Seccomp: %ld in /proc/%d/task/%d/status): "
             "its action on the syscalls run -p runs in it (mmap, openat, mprotect, close) "
             "could kill the program; not served (start it as `clockscope run -- COMMAND`, "
             "which serves it before any filter is installed)",
             mode == 1 ? "strict mode" : "filter", mode, (int)pid, (int)tid);
    return false;
}

/* The virtual size of a process (field 23 of /proc/PID/stat, the 21st after the command's
 * closing parenthesis); 0 if unknown or a kernel thread. */
static unsigned long long vsize_of(pid_t pid)
{
    char path[MSG_PROC_PATH], buf[1024];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    if (fgets(buf, sizeof buf, f)) {
        const char *p = strrchr(buf, ')');
        for (int i = 0; p && i < 21; i++)
            p = strchr(p + 1, ' ');
        if (p)
            v = strtoull(p + 1, NULL, 10);
    }
    fclose(f);
    return v;
}

/* Another process with the same memory (kcmp KCMP_VM, which needs ptrace read access to
 * both; a process run cannot compare is passed over: one sharing the target's memory is
 * its own child, this user's).  Without kcmp (CONFIG_KCMP off), a process whose virtual
 * size is the target's cannot be ruled out. */
static bool no_sharer(pid_t pid, char *why, size_t whylen)
{
    DIR *d = opendir("/proc");
    if (!d)
        return true;
    struct dirent *e;
    bool ok = true;
    unsigned long long vsize = 0;
    /* A live thread: a main thread that called pthread_exit has no memory any more, and
     * kcmp finds two absent memories (a kernel thread's) equal. */
    pid_t live = run_trace_live_thread(pid);
    if (!live)
        live = pid;
    bool have_kcmp = syscall(SYS_kcmp, live, live, KCMP_VM, 0, 0) == 0;
    if (!have_kcmp)
        vsize = vsize_of(live);
    while (ok && (e = readdir(d))) {
        pid_t o = (pid_t)atoi(e->d_name);
        if (o <= 0 || o == pid || o == getpid())
            continue;
        bool same = false;
        if (have_kcmp) {
            same = syscall(SYS_kcmp, live, o, KCMP_VM, 0, 0) == 0;
        } else if (vsize) {
            same = vsize_of(o) == vsize;
        }
        if (same) {
            char comm[64];
            comm_of(o, comm, sizeof comm);
            snprintf(why, whylen, "process %d (%s) %s its memory without being one of its threads "
                     "(clone with CLONE_VM, or a vfork child before its exec): it would not be "
                     "stopped while the vDSO is written; not served", (int)o, comm,
                     have_kcmp ? "shares" : "may share (no kcmp here to tell; same size)");
            ok = false;
        }
    }
    closedir(d);
    return ok;
}

bool run_fit_to_touch(pid_t pid, char *why, size_t whylen)
{
    return vdso_rx(pid, why, whylen) && no_seccomp(pid, why, whylen) && no_sharer(pid, why, whylen);
}
