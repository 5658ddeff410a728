/* SPDX-License-Identifier: MIT */
/* perf bench sched pipe's loop, bare: two processes, two pipes, N round trips of 4 bytes,
 * gettimeofday around the whole (fork and wait included), as perf 6.1 times it.  A third
 * opinion when clockscope ladder's pipe rung and perf disagree (docs/benchmarks/ladder.md):
 *
 *     cc -O2 -o /tmp/pingpong benchmarks/ladder_pipe_pingpong.c
 *     taskset -c 0 /tmp/pingpong 20000          # round trips; prints us per round trip */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int loops = argc > 1 ? atoi(argv[1]) : 20000;
    int a[2], b[2], m = 0;
    if (loops < 1 || pipe(a) != 0 || pipe(b) != 0)
        return 2;
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    pid_t p = fork();
    if (p < 0)
        return 1;
    if (p == 0) {
        for (int i = 0; i < loops; i++)
            if (read(a[0], &m, sizeof m) != sizeof m || write(b[1], &m, sizeof m) != sizeof m)
                _exit(1);
        _exit(0);
    }
    for (int i = 0; i < loops; i++)
        if (write(a[1], &m, sizeof m) != sizeof m || read(b[0], &m, sizeof m) != sizeof m)
            return 1;
    waitpid(p, NULL, 0);
    gettimeofday(&t1, NULL);
    printf("%.3f us per round trip\n",
           ((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_usec - t0.tv_usec)) / loops);
    return 0;
}
