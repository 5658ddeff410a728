/* SPDX-License-Identifier: MIT */
/* perf record, then perf script, as children (perf_run.h). */
#include "profile/perf_run.h"
#include "common/clock_ns.h"
#include "common/message.h"

#include "common/subprocess.h"
#include "profile/perf_text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCRIPT_CAP (1024u << 20)     /* perf script text of a long -a run: tens of MB */

bool perf_find(char *out, size_t len, char *why, size_t whylen)
{
    if (subprocess_find_program("perf", out, len) == 0)
        return true;
    char os[4096] = "";
    FILE *f = fopen("/etc/os-release", "re");
    if (!f)
        f = fopen("/usr/lib/os-release", "re");
    if (f) {
        size_t n = fread(os, 1, sizeof os - 1, f);
        os[n] = 0;
        fclose(f);
    }
    perf_missing_message(os, why, whylen);
    return false;
}

/* How long perf may take past its recording (--seconds) in the clock loop (a TCG guest
 * takes over 10 s to start and end perf around a 2 s recording), then how long
 * a stopped perf gets to end before SIGKILL.  Bounds on a hang, not on a healthy perf. */
#define PERF_EXIT_MARGIN_S 60
#define PERF_STOP_GRACE_S 5

/* Waits for pid until deadline (mono_s; 0: none), looking every 20 ms (a blocking waitpid
 * could miss a stop signal that lands just before it); true with *status when it ended.
 * A stop signal (subprocess_forward_signals) sets a deadline of PERF_STOP_GRACE_S. */
static bool wait_until(pid_t pid, int *status, double deadline)
{
    for (;;) {
        double grace_end = clock_ns_monotonic_s() + PERF_STOP_GRACE_S;
        if (subprocess_stop_signal() && (deadline == 0 || deadline > grace_end))
            deadline = grace_end;
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return true; /* not ours to wait for: nothing left to end */
        if (deadline && clock_ns_monotonic_s() >= deadline)
            return false;
        struct timespec ts = {0, 20 * 1000000};
        nanosleep(&ts, NULL);
    }
}

/* perf did not end: SIGTERM, PERF_STOP_GRACE_S, then SIGKILL; and every process perf left
 * behind (its workload reparented to us: we are a child subreaper while perf runs) is
 * killed and reaped. */
static void end_perf(pid_t pid, int *status)
{
    kill(pid, SIGTERM);
    if (!wait_until(pid, status, clock_ns_monotonic_s() + PERF_STOP_GRACE_S)) {
        kill(pid, SIGKILL);
        subprocess_reap(pid, status);
    }
}

/* Kills and reaps every child left (perf's orphans, reparented to this subreaper; their
 * own children come to us in turn as they die), for at most 2 s. */
static void end_orphans(void)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (int round = 0; round < 100; round++) {
        bool any = false;
        FILE *f = fopen(path, "re");
        int p;
        while (f && fscanf(f, "%d", &p) == 1) {
            kill(p, SIGKILL);
            any = true;
        }
        if (f)
            fclose(f);
        int st;
        while (waitpid(-1, &st, WNOHANG) > 0)
            any = true;
        if (!any)
            return;
        struct timespec ts = {0, 20 * 1000000};
        nanosleep(&ts, NULL);
    }
}

/* The built-in workload: CLOCK_MONOTONIC through libc, 1000 calls at a time, until perf
 * (pid) exits.  perf samples this very process (-p): the loop covers its whole window.
 * A perf that has not ended PERF_EXIT_MARGIN_S after its recording should have (seconds)
 * is ended (end_perf): the loop never spins without a deadline.  false: it was ended. */
static bool clock_loop_until_exit(pid_t pid, double seconds, int *status)
{
    volatile long sink = 0;
    double deadline = clock_ns_monotonic_s() + seconds + PERF_EXIT_MARGIN_S;
    while (!subprocess_stop_signal() && clock_ns_monotonic_s() < deadline) {
        struct timespec ts;
        for (int i = 0; i < 1000; i++) {
            clock_gettime(CLOCK_MONOTONIC, &ts);
            sink += ts.tv_nsec;
        }
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return true;
    }
    if (subprocess_stop_signal() && wait_until(pid, status, 0))
        return true;
    end_perf(pid, status);
    return false;
}

/* perf record's own progress lines ("[ perf record: Woken up 1 times to write data ]",
 * "[ perf record: Captured and wrote ... ]") say nothing about the program profiled. */
#define PERF_CHATTER "[ perf record: "

static bool is_chatter(const char *line, size_t n)
{
    return n >= sizeof PERF_CHATTER - 1 && memcmp(line, PERF_CHATTER, sizeof PERF_CHATTER - 1) == 0;
}

/* The relay (a child of its own): copies what perf and the profiled command write to their
 * shared stderr onto ours, line by line, without perf's chatter.  A partial line that cannot
 * be chatter is passed on at once (a prompt without a newline is not held back). */
static void relay_stderr(int in)
{
    char buf[8192];
    size_t have = 0;
    for (;;) {
        ssize_t r = read(in, buf + have, sizeof buf - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r > 0)
            have += (size_t)r;
        size_t start = 0;
        for (size_t i = start; i < have; i++)
            if (buf[i] == '\n') {
                if (!is_chatter(buf + start, i + 1 - start))
                    subprocess_write_fully(STDERR_FILENO, buf + start, i + 1 - start);
                start = i + 1;
            }
        size_t rest = have - start;
        size_t probe = rest < sizeof PERF_CHATTER - 1 ? rest : sizeof PERF_CHATTER - 1;
        bool may_be_chatter = memcmp(buf + start, PERF_CHATTER, probe) == 0;
        if (rest > 0 && (r <= 0 || !may_be_chatter || rest == sizeof buf)) {
            if (!(r <= 0 && is_chatter(buf + start, rest)))
                subprocess_write_fully(STDERR_FILENO, buf + start, rest);
            rest = 0;
            start = have;
        }
        memmove(buf, buf + start, rest);
        have = rest;
        if (r <= 0)
            return;
    }
}

/* Runs argv with stdout to our stdout (or stderr), stderr through the relay
 * (perf's chatter left out), and waits (or runs
 * the clock loop until it exits).  While it runs, SIGINT and SIGQUIT are ignored here:
 * Ctrl-C stops the profiled command and perf, which then writes its data, and the profile
 * is still made from it.  SIGTERM and SIGHUP (subprocess_forward_signals in cmd_profile)
 * go to perf, which stops its workload; a perf that does not end is killed, and whatever
 * it leaves behind too.  Returns perf's exit status, -1 for a signal, -2 when it could not
 * be started, -3 when perf had to be ended (err says why). */
static int run_inherit(char *const argv[], bool stdout_to_stderr, bool clock_loop,
                       double seconds, char *why, size_t whylen)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    /* perf's workload, should perf die without ending it, becomes our child (not init's). */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t parent = getpid();
    int pipefd[2] = {-1, -1};
    pid_t relay = -1;
    if (pipe2(pipefd, O_CLOEXEC) == 0) {
        relay = fork();
        if (relay == 0) {
            subprocess_die_with_parent(parent);
            close(pipefd[1]);
            relay_stderr(pipefd[0]);
            _exit(0);
        }
        if (relay < 0) {    /* no relay: perf's lines go straight to stderr, as they are */
            close(pipefd[0]);
            close(pipefd[1]);
            pipefd[0] = pipefd[1] = -1;
        }
    }
    pid_t pid = fork();
    if (pid == 0) {
        subprocess_die_with_parent(parent);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (pipefd[1] >= 0)
            dup2(pipefd[1], STDERR_FILENO);
        if (stdout_to_stderr)
            dup2(STDERR_FILENO, STDOUT_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pipefd[1] >= 0) {
        close(pipefd[0]);
        close(pipefd[1]);
    }
    int status = -1;
    bool ended = true;
    if (pid < 0) {
        snprintf(why, whylen, "cannot start %s: %s", argv[0], strerror(errno));
    } else {
        subprocess_track_child(pid); /* a stop signal goes to perf */
        if (clock_loop) {
            ended = clock_loop_until_exit(pid, seconds, &status);
        } else if (!wait_until(pid, &status, 0)) {
            end_perf(pid, &status);
            ended = false;
        }
        subprocess_track_child(0);
        if (!ended && !subprocess_stop_signal())
            snprintf(why, whylen, "perf did not end %d s after its %g s recording: killed",
                     PERF_EXIT_MARGIN_S, seconds);
        if (!ended || subprocess_stop_signal())
            end_orphans();
    }
    /* The relay ends when every writer has gone: perf and the command.  A daemon the command
     * left behind may hold the pipe for ever; its lines then go on after we are done. */
    for (int i = 0; relay > 0 && i < 200; i++) {
        pid_t r = waitpid(relay, NULL, WNOHANG);
        if (r == relay || (r < 0 && errno != EINTR))
            break;
        struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (pid < 0)
        return -2;
    if (!ended)
        return -3;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* perf script's text goes to a file in a private directory, then is read whole: its size
 * is known before any memory is taken (a 512 MiB guest cannot reserve a capture buffer of
 * the largest text perf could print). */
bool perf_run_script(const char *perf_path, const char *data, struct tally *t, char *why,
                     size_t whylen)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], path[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/clockscope-script.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(why, whylen, "cannot make a temporary directory %s: %s", dir, strerror(errno));
        return false;
    }
    snprintf(path, sizeof path, "%s/script.txt", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = false;
    char *text = NULL;
    if (fd < 0) {
        snprintf(why, whylen, "cannot create %s: %s", path, strerror(errno));
        goto out;
    }
    /* --no-inline: no addr2line per frame (minutes on a long profile). */
    char *argv[] = {(char *)perf_path, "script", "--no-inline", "-i", (char *)data, NULL};
    char tail[2048] = "";
    int status = subprocess_run_tool(argv, NULL, fd, tail, sizeof tail);
    struct stat st;
    if (status != 0) {
        snprintf(why, whylen, "perf script failed (%s %d): %s", status < 0 ? "could not run, or a signal:" :
                 "exit status", status, tail[0] ? tail : "no message");
        goto out;
    }
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size > SCRIPT_CAP) {
        snprintf(why, whylen, "perf script wrote more than %u MiB: profile for fewer seconds or at a "
                 "lower --frequency", SCRIPT_CAP >> 20);
        goto out;
    }
    size_t len = (size_t)st.st_size;
    if (len == 0) { /* an answer: nothing it did, reading the time included, was sampled */
        t->no_samples = true;
        ok = true;
        goto out;
    }
    text = malloc(len + 1);
    if (!text) {
        snprintf(why, whylen, "out of memory for perf script's %zu bytes", len);
        goto out;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, text + got, len - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            snprintf(why, whylen, "cannot read perf script's output: %s", r < 0 ? strerror(errno) : "short");
            goto out;
        }
        got += (size_t)r;
    }
    char perr[MSG_REASON];
    ok = perf_script_parse(text, len, t, perr, sizeof perr);
    if (!ok)
        snprintf(why, whylen, "perf script's output: %s", perr);
out:
    free(text);
    if (fd >= 0)
        close(fd);
    unlink(path);
    rmdir(dir);
    return ok;
}

static void remove_dir(const char *dir)
{
    static const char *const names[] = {"perf.data", "perf.data.old"};
    char path[PATH_MAX + 32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

bool perf_run_live(const struct perf_run_options *o, struct tally *t, struct perf_run_result *r,
                   char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->command_status = -1;
    char perf[PATH_MAX];
    if (!perf_find(perf, sizeof perf, err, errlen))
        return false;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/clockscope-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot make a temporary directory %s: %s", dir, strerror(errno));
        return false;
    }
    char data[PATH_MAX + 16], freq[16], pid[16], secs[32];
    snprintf(data, sizeof data, "%s/perf.data", dir);
    snprintf(r->event, sizeof r->event, "%s%s", o->event, o->user_only ? ":u" : "");
    snprintf(freq, sizeof freq, "%d", o->frequency);
    snprintf(pid, sizeof pid, "%d", o->target == TARGET_CLOCK_LOOP ? (int)getpid() : o->pid);
    snprintf(secs, sizeof secs, "%g", o->seconds);
    char sleep_path[PATH_MAX];
    if (o->target != TARGET_COMMAND && subprocess_find_program("sleep", sleep_path, sizeof sleep_path) != 0) {
        snprintf(err, errlen, "no 'sleep' program on PATH to time the recording");
        rmdir(dir);
        return false;
    }
    char *argv[64 + 256];
    int n = 0;
    argv[n++] = perf;
    argv[n++] = "record";
    argv[n++] = "-e";
    argv[n++] = r->event;
    argv[n++] = "-F";
    argv[n++] = freq;
    if (o->dwarf) {
        argv[n++] = "--call-graph";
        argv[n++] = "dwarf";
    } else {
        argv[n++] = "-g";
    }
    argv[n++] = "-o";
    argv[n++] = data;
    if (o->target == TARGET_ALL)
        argv[n++] = "-a";
    if (o->target == TARGET_PID || o->target == TARGET_CLOCK_LOOP) {
        argv[n++] = "-p";
        argv[n++] = pid;
    }
    argv[n++] = "--";
    if (o->target == TARGET_COMMAND) {
        for (int i = 0; o->command[i] && n < (int)(sizeof argv / sizeof argv[0]) - 1; i++)
            argv[n++] = o->command[i];
    } else {
        argv[n++] = sleep_path;
        argv[n++] = secs;
    }
    argv[n] = NULL;
    double t0 = clock_ns_monotonic_s();
    int status = run_inherit(argv, o->command_stdout_to_stderr, o->target == TARGET_CLOCK_LOOP,
                             o->seconds, err, errlen);
    r->elapsed_s = clock_ns_monotonic_s() - t0;
    r->command_status = status;
    struct stat st;
    bool ok = false;
    if (status == -2 || (status == -3 && !subprocess_stop_signal()))
        ; /* err says why */
    else if (subprocess_stop_signal())
        snprintf(err, errlen, "stopped by signal %d (%s): no profile", subprocess_stop_signal(),
                 strsignal(subprocess_stop_signal()));
    else if (stat(data, &st) != 0 || st.st_size == 0)
        snprintf(err, errlen, "perf record wrote no data (exit status %d): its message is above",
                 status);
    else
        ok = perf_run_script(perf, data, t, err, errlen);
    if (ok && !t->event[0]) /* no sample named it: the event perf was asked for */
        snprintf(t->event, sizeof t->event, "%s", r->event);
    remove_dir(dir);
    return ok;
}
