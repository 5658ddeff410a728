/* SPDX-License-Identifier: MIT */
/* Several commands in one `clockscope vm` boot (a boot under TCG takes minutes), for
 * tests/test_vm_run_static.py.  Each argument is one command: words separated by spaces,
 * leading NAME=VALUE words set in its environment.  Each runs in turn with its stdout and
 * stderr captured until both reach end of file (so that a `run` helper that prints after
 * the program has ended is waited for), then printed as
 *     === begin N
 *     --- stdout
 *     ...
 *     --- stderr
 *     ...
 *     === end N status S        (S: the exit status, or 128 + the signal)
 * The environment `clockscope run` gave this program (it is started under `run --mode
 * coarse`, which leaves a static program alone) is removed first. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CAP (256 * 1024)

static void clean_environment(void)
{
    for (char **e = environ; *e;) {
        if (!strncmp(*e, "CLOCKSCOPE_RUN", 14) || !strncmp(*e, "LD_PRELOAD=", 11)) {
            char **d = e;
            do
                d[0] = d[1];
            while (*d++);
        } else {
            e++;
        }
    }
}

static int run_one(int n, char *line)
{
    char *argv[64], *envs[16];
    int argc = 0, envc = 0;
    for (char *w = strtok(line, " "); w && argc < 63; w = strtok(NULL, " ")) {
        if (argc == 0 && strchr(w, '=') && envc < 15)
            envs[envc++] = w;
        else
            argv[argc++] = w;
    }
    argv[argc] = NULL;
    if (argc == 0)
        return 2;
    int out[2], err[2];
    if (pipe(out) || pipe(err))
        return 2;
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        dup2(out[1], 1), dup2(err[1], 2);
        close(out[0]), close(out[1]), close(err[0]), close(err[1]);
        for (int i = 0; i < envc; i++)
            putenv(envs[i]);
        execvp(argv[0], argv);
        fprintf(stderr, "guest_suite: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(out[1]), close(err[1]);
    static char buf[2][CAP];
    size_t len[2] = {0, 0};
    struct pollfd pf[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char tmp[4096];
            ssize_t r = read(pf[i].fd, tmp, sizeof tmp);
            if (r <= 0) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
                continue;
            }
            size_t keep = (size_t)r < CAP - len[i] ? (size_t)r : CAP - len[i];
            memcpy(buf[i] + len[i], tmp, keep);
            len[i] += keep;
        }
    }
    int st = 0;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR)
        ;
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    printf("=== begin %d\n--- stdout\n%.*s%s--- stderr\n%.*s%s=== end %d status %d\n", n,
           (int)len[0], buf[0], len[0] && buf[0][len[0] - 1] != '\n' ? "\n" : "",
           (int)len[1], buf[1], len[1] && buf[1][len[1] - 1] != '\n' ? "\n" : "", n, status);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    clean_environment();
    for (int i = 1; i < argc; i++)
        run_one(i, argv[i]);
    return 0;
}
