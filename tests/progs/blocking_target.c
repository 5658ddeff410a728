/* SPDX-License-Identifier: MIT */
/* A target for `clockscope run -p` whose threads sit in blocking calls
 * (tests/test_run_attach_safety.py), built with -static:
 *   blocking_target
 * One thread waits in epoll_wait (a call the kernel ends with EINTR at any ptrace stop),
 * another in read(2) on a pipe nobody writes (restarted by the kernel after the stop), each
 * with a 20 s bound; the main thread waits for its stdin to end.
 * Prints "ready pid P epoll TID read TID" once both wait, and at the end
 *   done epoll_r R epoll_errno E read_r R read_errno E
 * (the read thread is ended by writing its pipe). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int epoll_tid, read_tid;
static int epoll_r = 99, epoll_errno, read_r = 99, read_errno, pipe_fd[2];

static void *epoll_thread(void *arg)
{
    (void)arg;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev;
    atomic_store(&epoll_tid, (int)syscall(SYS_gettid));
    epoll_r = epoll_wait(ep, &ev, 1, 20000);
    epoll_errno = errno;
    return NULL;
}

static void *read_thread(void *arg)
{
    (void)arg;
    char c;
    atomic_store(&read_tid, (int)syscall(SYS_gettid));
    read_r = (int)read(pipe_fd[0], &c, 1);
    read_errno = errno;
    return NULL;
}

/* Whether thread tid is asleep in the kernel (state S in /proc/self/task/TID/stat). */
static int asleep(int tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = NULL;
    for (char *q = buf; *q; q++)
        if (*q == ')')
            p = q;
    return p && p[1] == ' ' && p[2] == 'S';
}

int main(void)
{
    if (pipe(pipe_fd) != 0)
        return 2;
    pthread_t a, b;
    pthread_create(&a, NULL, epoll_thread, NULL);
    pthread_create(&b, NULL, read_thread, NULL);
    while (!atomic_load(&epoll_tid) || !atomic_load(&read_tid) || !asleep(epoll_tid) ||
           !asleep(read_tid))
        usleep(1000);
    printf("ready pid %d epoll %d read %d\n", (int)getpid(), epoll_tid, read_tid);
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0)
        ;
    if (write(pipe_fd[1], "x", 1) != 1)
        return 2;
    pthread_join(b, NULL);
    pthread_join(a, NULL);
    printf("done epoll_r %d epoll_errno %d read_r %d read_errno %d\n", epoll_r, epoll_errno,
           read_r, read_errno);
    return 0;
}
