/* SPDX-License-Identifier: MIT */
/* A child forked into a new time namespace must read its own CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME, not its parent's, from its first read on; its CLOCK_REALTIME, which no
 * namespace changes, must not move.  Under `clockscope run --mode fast` (the shim for a
 * dynamic build, the patched vDSO for a static one) the parent's reads make the served line
 * live; then, for each offset given, the parent unshares a time namespace for its children
 * (unshare(CLONE_NEWTIME)), writes the offsets to /proc/self/timens_offsets and forks.  The
 * child reads every clock through libc between two raw syscalls (the kernel's own,
 * namespaced values) for 300 ms, its first read included, and reports the worst excursion
 * outside the bracket.  An offset is MONO_MS[:BOOT_MS] in milliseconds (BOOTTIME's defaults
 * to MONOTONIC's), so that offsets below fastclock's 250 ms jump bound and namespaces whose
 * two offsets differ are tried.  Prints per offset: "ns OFFSET CLOCK below above" (ns
 * beyond the bracket, negative when inside) and "applied OFFSET 1" when the child's kernel
 * clock did move by the offset; "skip REASON" when a time namespace cannot be made here
 * (needs CAP_SYS_ADMIN and a kernel >= 5.6).  Usage: fc_timens MONO_MS[:BOOT_MS]...   (an
 * offset below -uptime is clipped) */
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

/* ms as timens_offsets wants it: whole seconds (rounded down) and 0..999999999 ns. */
static const char *sec_nsec(long long ms, char *out, size_t len)
{
    long long s = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    snprintf(out, len, "%lld %lld", s, (ms - s * 1000) * 1000000);
    return out;
}

int main(int argc, char **argv)
{
    int64_t below[3], above[3];
    measure(300, below, above); /* the parent's line goes live */
    int64_t uptime_s = raw_ns(CLOCK_MONOTONIC) / 1000000000;
    for (int i = 1; i < argc; i++) {
        char *colon = NULL;
        long long mono_ms = strtoll(argv[i], &colon, 10);
        long long boot_ms = *colon == ':' ? strtoll(colon + 1, NULL, 10) : mono_ms;
        long long floor_ms = -(uptime_s - 5) * 1000; /* the kernel refuses a clock below 0 */
        if (mono_ms < floor_ms)
            mono_ms = floor_ms;
        if (boot_ms < floor_ms)
            boot_ms = floor_ms;
        if (unshare(CLONE_NEWTIME) != 0) {
            printf("skip unshare(CLONE_NEWTIME): %s\n", strerror(errno));
            return 0;
        }
        int fd = open("/proc/self/timens_offsets", O_WRONLY);
        char text[128], mono[40], boot[40];
        int len = snprintf(text, sizeof text, "monotonic %s\nboottime %s\n",
                           sec_nsec(mono_ms, mono, sizeof mono), sec_nsec(boot_ms, boot, sizeof boot));
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
            /* The child's kernel clock is the parent's + offset, and the fork's time. */
            int applied = moved >= mono_ms * 1000000ll && moved < mono_ms * 1000000ll + 1000000000ll;
            measure(300, below, above);
            for (int c = 0; c < 3; c++)
                printf("ns %s %s %lld %lld\n", argv[i], names[c], (long long)below[c],
                       (long long)above[c]);
            printf("applied %s %d\n", argv[i], applied);
            fflush(stdout);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("child %s failed\n", argv[i]);
            return 1;
        }
    }
    return 0;
}
