/* SPDX-License-Identifier: MIT */
/* The helper's set-up shared by run -- COMMAND and run -p (run/run_helper.h). */
#include "run/run_helper.h"
#include "common/subprocess.h"
#include "common/sysctl.h"

#include "run/run_refresher.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int run_helper_memfd(unsigned flags)
{
    int memfd = memfd_create("clockscope-run-page", flags);
    if (memfd >= 0 && ftruncate(memfd, RUN_MEMFD_SIZE) != 0) {
        int e = errno;
        close(memfd);
        errno = e;
        return -1;
    }
    return memfd;
}

struct run_page_header *run_helper_map(int memfd)
{
    return mmap(NULL, RUN_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, RUN_PAGE_SIZE);
}

pid_t run_helper_spawn(void (*fn)(void *ctx), void *ctx)
{
    fflush(NULL);
    pid_t mid = fork();
    if (mid == 0) {
        if (fork() == 0)
            fn(ctx);
        _exit(0);
    }
    int st;
    if (mid > 0)
        subprocess_reap(mid, &st);
    return mid;
}

void run_helper_quiet_signals(void)
{
    static const int quiet[] = {SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        signal(quiet[i], SIG_IGN);
}

void run_helper_drop_stdio(bool also_stderr)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0), dup2(null, 1);
        if (also_stderr)
            dup2(null, 2);
        close(null);
    }
}

int run_helper_yama_scope(void)
{
    int v = -1;
    sysctl_read_int("/proc/sys/kernel/yama/ptrace_scope", &v);
    return v;
}

void run_helper_say_serving(const char *who, const char *how, bool count, bool served)
{
    fprintf(stderr, "clockscope run: %s: %s; %s%s%s (refresher: pid %d)\n", who, how,
            count ? "every call counted (and answered by the syscall)"
                  : served ? "served by fastclock's line" : "nothing served",
            count ? "" : ", ", count ? "" : run_refresher_start_said(), (int)getpid());
    fflush(stderr);
}
