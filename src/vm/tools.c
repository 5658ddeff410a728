/* fork + execvp with pipes.  Output is read to the end before waiting, so a chatty tool
 * can never block on a full pipe. */
#include "vm/tools.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool tool_exists(const char *program)
{
    if (strchr(program, '/'))
        return access(program, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        return false;
    while (*path) {
        size_t n = strcspn(path, ":");
        char full[4096];
        if (n > 0 && snprintf(full, sizeof full, "%.*s/%s", (int)n, path, program) < (int)sizeof full &&
            access(full, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

bool write_fully(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

void text_tail_append(char *buf, size_t cap, const char *p, size_t n)
{
    if (cap == 0)
        return;
    size_t used = strnlen(buf, cap - 1);
    if (n >= cap - 1) {
        p += n - (cap - 1);
        n = cap - 1;
    }
    if (used + n > cap - 1) {
        size_t drop = used + n - (cap - 1);
        memmove(buf, buf + drop, used - drop);
        used -= drop;
    }
    memcpy(buf + used, p, n);
    buf[used + n] = '\0';
}

static pid_t spawn(char *const argv[], const char *cwd, int in_fd, int out_fd, int err_fd)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int devnull = open("/dev/null", O_RDWR);
    dup2(in_fd >= 0 ? in_fd : devnull, 0);
    dup2(out_fd >= 0 ? out_fd : devnull, 1);
    dup2(err_fd >= 0 ? err_fd : devnull, 2);
    if (cwd && chdir(cwd) != 0) {
        dprintf(2, "cannot enter %s: %s\n", cwd, strerror(errno));
        _exit(127);
    }
    execvp(argv[0], argv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void drain(int fd, char *out, size_t outlen)
{
    if (outlen)
        out[0] = '\0';
    char buf[4096];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        text_tail_append(out, outlen, buf, (size_t)r);
    }
    close(fd);
}

static int wait_status(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tool_run(char *const argv[], const char *cwd, int stdout_fd, char *out, size_t outlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = spawn(argv, cwd, -1, stdout_fd >= 0 ? stdout_fd : p[1], p[1]);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    drain(p[0], out, outlen);
    return wait_status(pid);
}

int tool_pipe(char *const left[], char *const right[], const char *cwd, char *err, size_t errlen)
{
    int data[2], errp[2];
    if (pipe2(data, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(errp, O_CLOEXEC) != 0) {
        close(data[0]);
        close(data[1]);
        return -1;
    }
    pid_t a = spawn(left, cwd, -1, data[1], errp[1]);
    close(data[1]);
    pid_t b = a < 0 ? -1 : spawn(right, cwd, data[0], -1, errp[1]);
    close(data[0]);
    close(errp[1]);
    drain(errp[0], err, errlen);
    int sa = a < 0 ? -1 : wait_status(a);
    int sb = b < 0 ? -1 : wait_status(b);
    return sa == 0 && sb == 0 ? 0 : -1;
}
