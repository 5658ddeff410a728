/* SPDX-License-Identifier: MIT */
/* Running other programs without a shell: one PATH lookup and one fork/exec/drain/wait
 * core, used by facts (journalctl, systemd-detect-virt: stdout captured, a deadline) and
 * by vm (apt-get, dpkg-deb, tar, gzip: a working directory, stdout to a file, the tail of
 * stderr kept for error reports). */
#ifndef CLOCKSCOPE_SUBPROCESS_H
#define CLOCKSCOPE_SUBPROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The PATH lookup execvp does: CMD itself when it contains '/', else the first regular
 * file of that name in a $PATH directory (without $PATH, the usual system directories)
 * that is executable; its path goes to out.  Returns 0, ENOENT (none), or EACCES (only
 * files that are not executable). */
int subprocess_find_program(const char *cmd, char *out, size_t len);
/* Whether subprocess_find_program() finds an executable PROGRAM. */
bool subprocess_on_path(const char *program);

/* Writes all n bytes, retrying after EINTR and short writes; false on an error. */
bool subprocess_write_fully(int fd, const void *data, size_t n);

/* Appends n bytes to the NUL-terminated text in buf (capacity cap), keeping the last
 * cap-1 bytes: the tail of a stream, for error reports. */
void subprocess_tail_append(char *buf, size_t cap, const char *p, size_t n);

/* Runs argv with stdin and stderr from/to /dev/null and its stdout captured: *out is
 * malloc'ed (NUL-terminated), at most cap bytes; caller frees.  A program that outlives
 * timeout_ms is killed.  Returns false when it could not run, failed, or timed out (why
 * says which); a failing program's output is kept (systemd-detect-virt exits 1 printing
 * "none"). */
bool subprocess_capture(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                 char *why, size_t whylen);

/* Runs argv in cwd (NULL: ours) with stdin from /dev/null.  stdout goes to stdout_fd when
 * >= 0; otherwise it is captured, with stderr, into out (NUL-terminated, the last outlen-1
 * bytes kept).  With stdout_fd >= 0, stderr alone is captured.  Returns the exit status,
 * or -1 when the program could not be run or died by a signal. */
int subprocess_run_tool(char *const argv[], const char *cwd, int stdout_fd, char *out, size_t outlen);

/* How a program run by run_capture_all ended. */
struct run_outcome {
    int exit_status;   /* its exit code; -1 when it could not be run or died by a signal */
    int signal;        /* the signal that ended it (SIGKILL after a timeout), else 0 */
    bool timed_out;    /* it outlived timeout_ms and was killed */
    bool truncated;    /* it wrote more than cap bytes to stdout: only the first cap kept */
};

/* Runs argv with stdin from /dev/null, its stdout and stderr on separate pipes drained
 * together (neither can block the other): the first cap bytes of stdout in *out
 * (malloc'ed, NUL-terminated; caller frees), the last errlen-1 bytes of stderr in err.
 * A program that outlives timeout_ms (with its pipes open or not) is killed, with its
 * process group.  A stop signal is forwarded to that group (subprocess_forward_signals);
 * in a command that does not forward them itself, the signal is raised again once the
 * child is reaped, so that the command never ends before its child.  Returns false only
 * when it could not be started (why says so); how it ended is in *oc. */
bool run_capture_all(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                     char *err, size_t errlen, struct run_outcome *oc, char *why, size_t whylen);

/* ---- children die with us ----
 * Every child this binary forks calls subprocess_die_with_parent(parent) first, parent
 * being getppid() as the parent saw it before fork (its getpid()): the kernel then kills the
 * child with SIGKILL when the parent dies, whatever killed it (SIGKILL included).  A parent
 * that died between fork and prctl is no longer getppid(): the child exits at once (127)
 * rather than live on without a death signal.  The death signal follows the forking
 * THREAD: fork from a thread that outlives the child. */
void subprocess_die_with_parent(pid_t parent);
/* Waits for the child pid to end (blocking; a signal's EINTR retried), its status in
 * *status; pid, or -1 with errno (ECHILD: not a child, or reaped already). */
pid_t subprocess_reap(pid_t pid, int *status);

/* A command with children of its own (collect, runtimes) calls this once: SIGINT, SIGTERM
 * and SIGHUP are then remembered rather than fatal, and forwarded to the child being run
 * (run_capture_all's, or one named by subprocess_track_child), which can remove its own
 * temporary files; a child that has not ended SUBPROCESS_STOP_GRACE_MS later is killed,
 * and so is what it leaves in its process group.
 * The command checks subprocess_stop_signal() after each child, cleans up and ends with
 * subprocess_end_by_signal() (status 128 + the signal, as the shell reports). */
#define SUBPROCESS_STOP_GRACE_MS 5000
void subprocess_forward_signals(void);
/* The signal that asked us to stop, or 0. */
int subprocess_stop_signal(void);
/* The child a signal is forwarded to (0: none), for children not forked here. */
void subprocess_track_child(pid_t pid);
/* Ends the process by signal sig, with its default action. */
_Noreturn void subprocess_end_by_signal(int sig);

/* Runs `left | right` (each argv in cwd), capturing both stderrs into err.  Returns 0
 * when both exit 0, else -1. */
int subprocess_pipe(char *const left[], char *const right[], const char *cwd, char *why, size_t whylen);

#endif
