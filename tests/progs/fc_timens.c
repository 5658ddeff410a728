/* SPDX-License-Identifier: MIT */
/* A child forked into a new time namespace must read its own CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME, not its parent's (issue 30.2).  Under `clockscope run --mode fast` the
 * parent's reads make fastclock's line live; then, for each offset given (seconds), the
 * parent unshares a time namespace for its children (unshare(CLONE_NEWTIME)), writes the
 * offset for both clocks to /proc/self/timens_offsets and forks.  The child reads every
 * clock through libc (what the shim serves) between two raw syscalls (the kernel's own,
 * namespaced values) for 300 ms, and reports the worst excursion outside the bracket.
 * Prints per offset: "ns OFFSET_S CLOCK below above" (ns beyond the bracket, negative when
 * inside) and "applied OFFSET_S 1" when the child's kernel clock did move by the offset;
 * "skip REASON" when a time namespace cannot be made here (needs CAP_SYS_ADMIN and a
 * kernel >= 5.6).  Usage: fc_timens OFFSET_S...   (an offset below -uptime is clipped) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static int64_t raw_ns(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t lib_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const clockid_t ids[] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};
static const char *const names[] = {"monotonic", "boottime", "realtime"};

/* Reads every clock through libc for ms milliseconds, densely (fastclock's refreshes run
 * meanwhile); below/above: the worst excursion outside the syscall bracket. */
static void measure(int ms, int64_t below[3], int64_t above[3])
{
    for (int c = 0; c < 3; c++)
        below[c] = above[c] = INT64_MIN;
    int64_t end = raw_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
    for (long i = 0; raw_ns(CLOCK_MONOTONIC) < end; i++) {
        int c = (int)(i % 3);
        int64_t a = raw_ns(ids[c]), v = lib_ns(ids[c]), b = raw_ns(ids[c]);
        if (a - v > below[c])
            below[c] = a - v;
        if (v - b > above[c])
            above[c] = v - b;
        for (int j = 0; j < 50; j++)
            (void)lib_ns(CLOCK_MONOTONIC);
    }
}

int main(int argc, char **argv)
{
    int64_t below[3], above[3];
    measure(300, below, above); /* the parent's line goes live */
    int64_t uptime_s = raw_ns(CLOCK_MONOTONIC) / 1000000000;
    for (int i = 1; i < argc; i++) {
        long offset = atol(argv[i]);
        if (offset < -(uptime_s - 5))
            offset = -(uptime_s - 5); /* the kernel refuses a clock below 0 */
        if (unshare(CLONE_NEWTIME) != 0) {
            printf("skip unshare(CLONE_NEWTIME): %s\n", strerror(errno));
            return 0;
        }
        int fd = open("/proc/self/timens_offsets", O_WRONLY);
        char text[128];
        int len = snprintf(text, sizeof text, "monotonic %ld 0\nboottime %ld 0\n", offset, offset);
        if (fd < 0 || write(fd, text, (size_t)len) != len) {
            printf("skip /proc/self/timens_offsets: %s\n", strerror(errno));
            return 0;
        }
        close(fd);
        int64_t parent_mono = raw_ns(CLOCK_MONOTONIC);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            int64_t moved = raw_ns(CLOCK_MONOTONIC) - parent_mono;
            /* The child's kernel clock is the parent's + offset (give or take the fork). */
            int applied = moved > offset * 1000000000ll - 1000000000ll &&
                          moved < offset * 1000000000ll + 1000000000ll;
            measure(300, below, above);
            for (int c = 0; c < 3; c++)
                printf("ns %ld %s %lld %lld\n", offset, names[c], (long long)below[c],
                       (long long)above[c]);
            printf("applied %ld %d\n", offset, applied);
            fflush(stdout);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("child %ld failed\n", offset);
            return 1;
        }
    }
    return 0;
}
