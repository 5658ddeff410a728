#include "facts/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool program_on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin:/usr/sbin:/sbin";
    char dir[4096];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n + strlen(name) + 2 < sizeof dir) {
            snprintf(dir, sizeof dir, "%.*s/%s", (int)n, p, name);
            if (access(dir, X_OK) == 0)
                return true;
        }
        p += n + (p[n] == ':');
    }
    return false;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool run_capture(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                 char *why, size_t whylen)
{
    *out = NULL;
    *len = 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(why, whylen, "fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(fds[1], 1);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    char *buf = malloc(cap + 1);
    size_t got = 0;
    bool timed_out = false;
    long long deadline = now_ms() + timeout_ms;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    while (buf) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            timed_out = r == 0;
            break;
        }
        char chunk[65536];
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        size_t keep = (size_t)n < cap - got ? (size_t)n : cap - got;
        memcpy(buf + got, chunk, keep);
        got += keep;
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    buf[got] = 0;
    if (timed_out) {
        snprintf(why, whylen, "%s did not finish within %d ms", argv[0], timeout_ms);
        free(buf);
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(why, whylen, "%s: cannot run", argv[0]);
        else
            snprintf(why, whylen, "%s failed (status %d)", argv[0],
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        /* systemd-detect-virt exits 1 while printing "none": keep what it said. */
        if (got > 0) {
            *out = buf;
            *len = got;
        } else {
            free(buf);
        }
        return false;
    }
    *out = buf;
    *len = got;
    return true;
}
