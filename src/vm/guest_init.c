/* SPDX-License-Identifier: MIT */
/* PID 1 inside the VM.  There is no shell and no distribution: this process mounts what
 * the measurements read (/proc, /sys, /dev), runs the one command the host asked for as
 * its child, and relays that child's output as frames on the console (vm/frame.h), since
 * the console also carries whatever the kernel prints.  Then it powers the machine off:
 * PID 1 must never exit, or the kernel panics. */
#include "vm/guest_init.h"
#include "arch/arch.h"
#include "common/clocksource_sysfs.h"
#include "common/exit_status.h"
#include "common/message.h"
#include "vm/frame.h"
#include "vm/sysfs_readback.h"
#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGV_BYTES GUEST_MAX_ARGV_BYTES
#define MAX_ARGS (GUEST_MAX_ARGS + 1) /* and argv[0] */

static int console_fd = -1;
static uint64_t frame_seq;

static void send_frame(char kind, const void *data, size_t len)
{
    const unsigned char *p = data;
    do {
        size_t chunk = len < FRAME_MAX_PAYLOAD ? len : FRAME_MAX_PAYLOAD;
        char line[FRAME_MAX_LINE];
        size_t n = frame_encode(kind, frame_seq++, p, chunk, line);
        subprocess_write_fully(console_fd, line, n); /* on failure there is nowhere left to report to */
        p += chunk;
        len -= chunk;
    } while (len > 0);
}

static void send_text(char kind, const char *text)
{
    send_frame(kind, text, strlen(text));
}

_Noreturn static void power_off(void)
{
    /* The frames are still in the UART's transmit buffer: wait for them to leave,
     * or the host would see the machine stop without the exit status. */
    tcdrain(console_fd);
    sync();
    reboot(RB_POWER_OFF);
    for (;;)
        pause();
}

_Noreturn static void fail(const char *what)
{
    char msg[MSG_LINE];
    snprintf(msg, sizeof msg, "clockscope vm init: %s: %s", what, strerror(errno));
    send_text('m', msg);
    send_text('x', "125");
    power_off();
}

static void mount_one(const char *source, const char *dir, const char *type)
{
    mkdir(dir, 0755);
    if (mount(source, dir, type, 0, NULL) != 0 && errno != EBUSY) {
        char msg[MSG_LINE];
        snprintf(msg, sizeof msg, "clockscope vm init: cannot mount %s on %s: %s", type, dir,
                 strerror(errno));
        send_text('m', msg);
    }
}

/* Reads a file of NUL-terminated strings the host wrote into the initramfs into list
 * (at most max of them, then a NULL); returns how many.  A missing file is an empty list
 * when `optional`. */
static int read_strings(const char *path, bool optional, char *buf, size_t cap, char **list,
                        int max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && optional && errno == ENOENT) {
        list[0] = NULL;
        return 0;
    }
    if (fd < 0)
        fail(path);
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            fail(path);
        if (r == 0 || (n += (size_t)r) == cap)
            break;
    }
    close(fd);
    int count = 0;
    for (size_t i = 0; i < n && count < max; count++) {
        list[count] = buf + i;
        size_t len = strnlen(buf + i, n - i);
        if (i + len == n) {
            errno = EINVAL;
            fail("a file from the host does not end in a NUL byte");
        }
        i += len + 1;
    }
    list[count] = NULL;
    return count;
}

/* Relays the child's stdout and stderr until both are closed. */
static void relay(int out_fd, int err_fd)
{
    struct pollfd p[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    const char kinds[2] = {'o', 'e'};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            fail("poll");
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            char buf[FRAME_MAX_PAYLOAD];
            ssize_t r = read(p[i].fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
                continue;
            }
            send_frame(kinds[i], buf, (size_t)r);
        }
    }
}

/* How long the init waits for a clocksource switch to settle (sysfs_readback.h): the
 * refined TSC registers a second or more after boot, later under TCG on a busy host. */
#define READBACK_SETTLE_S 30

/* path's first line into buf ("" when unreadable). */
static void read_first_line(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, buf, size - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[got > 0 ? got : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
}

/* What path reads back (into now) means for the write of value. */
static enum sysfs_readback readback(const char *path, const char *value, char *now, size_t size)
{
    char available[512];
    read_first_line(path, now, size);
    read_first_line(CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_AVAILABLE, available, sizeof available);
    return sysfs_readback(path, value, now, available,
                          arch_fast_counter_provisional_clocksource());
}

/* vm --apply-fix's sysfs writes (the clocksource switch), in the order given.  A refused
 * write (the guest does not allow this fix: say, a clocksource it never registered) is
 * reported to the host, which then tries the next fix; the command does not run. */
static void apply_sysfs_writes(void)
{
    static char buf[8192];
    char *list[33];
    int n = read_strings(GUEST_SYSFS_PATH, true, buf, sizeof buf, list, 32);
    for (int i = 0; i + 1 < n; i += 2) {
        const char *path = list[i], *value = list[i + 1];
        int fd = strncmp(path, "/sys/", 5) == 0 ? open(path, O_WRONLY | O_CLOEXEC) : -1;
        size_t len = strlen(value);
        bool written = fd >= 0 && write(fd, value, len) == (ssize_t)len;
        int e = errno;
        if (fd >= 0 && close(fd) != 0 && written) {
            written = false;
            e = errno;
        }
        char msg[MSG_REASON], now[128] = "";
        if (written) {
            /* The kernel may take the write and keep its choice (a clocksource it does not
             * have is only remembered as an override): the fix holds only if it reads back.
             * Early in boot it may not have registered the named clocksource yet (the
             * refined TSC): then wait, bounded, for its set of clocksources to settle. */
            struct timespec start, t;
            clock_gettime(CLOCK_MONOTONIC, &start);
            bool said = false;
            enum sysfs_readback rb;
            while ((rb = readback(path, value, now, sizeof now)) ==
                       SYSFS_READBACK_PENDING &&
                   clock_gettime(CLOCK_MONOTONIC, &t) == 0 &&
                   t.tv_sec - start.tv_sec < READBACK_SETTLE_S) {
                if (!said) {
                    snprintf(msg, sizeof msg, "clockscope vm init: wrote '%s' to %s, which "
                             "reads '%s' while the kernel's clocksources are still being "
                             "registered: waiting up to %d s", value, path, now,
                             READBACK_SETTLE_S);
                    send_text('m', msg);
                    said = true;
                }
                nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
            }
            if (rb != SYSFS_READBACK_HOLDS) {
                snprintf(msg, sizeof msg, "wrote '%s' to %s, but it reads '%s'", value, path, now);
                send_text(GUEST_FRAME_FIX_REFUSED, msg);
                send_text('x', "125");
                power_off();
            }
        }
        if (!written) {
            snprintf(msg, sizeof msg, "writing '%s' to %s: %s", value, path,
                     strncmp(path, "/sys/", 5) != 0 ? "not a /sys path" : strerror(e));
            send_text(GUEST_FRAME_FIX_REFUSED, msg);
            send_text('x', "125");
            power_off();
        }
        snprintf(msg, sizeof msg, "clockscope vm init: wrote '%s' to %s", value, path);
        send_text('m', msg);
    }
}

_Noreturn void guest_init_main(void)
{
    /* The kernel opened /dev/console (a node the host put in the initramfs) as fds
     * 0-2; fall back to opening it when it did not. */
    console_fd = fcntl(1, F_GETFD) >= 0 ? 1 : open("/dev/console", O_WRONLY | O_NOCTTY);
    struct termios t;
    if (tcgetattr(console_fd, &t) == 0) {
        /* Raw output: no "\n" -> "\r\n" rewriting or tab expansion of frames. */
        t.c_oflag &= ~(tcflag_t)OPOST;
        tcsetattr(console_fd, TCSANOW, &t);
    }
    send_text('s', "clockscope vm init");
    mount_one("proc", "/proc", "proc");
    mount_one("sysfs", "/sys", "sysfs");
    mount_one("devtmpfs", "/dev", "devtmpfs");

    static char buf[MAX_ARGV_BYTES], env_buf[MAX_ARGV_BYTES];
    char *argv[MAX_ARGS + 1], *env[MAX_ARGS + 1];
    argv[0] = "clockscope";
    read_strings(GUEST_ARGV_PATH, false, buf, sizeof buf, argv + 1, MAX_ARGS - 1);
    read_strings(GUEST_ENV_PATH, true, env_buf, sizeof env_buf, env, MAX_ARGS);

    apply_sysfs_writes();

    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
        fail("pipe");
    pid_t child = fork();
    if (child < 0)
        fail("fork");
    if (child == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        /* The kernel gives init no PATH; `run` and execvp need one.  --env may set it. */
        setenv("PATH", GUEST_DEFAULT_PATH, 1);
        for (int i = 0; env[i]; i++)
            putenv(env[i]);
        execv(GUEST_INIT_PATH, argv);
        dprintf(2, "clockscope vm init: cannot run %s: %s\n", GUEST_INIT_PATH, strerror(errno));
        _exit(125);
    }
    close(out[1]);
    close(err[1]);
    relay(out[0], err[0]);

    int status, code = 125;
    for (;;) {
        /* PID 1 also inherits every orphan: reap until our own child is among them. */
        pid_t w = waitpid(-1, &status, 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            fail("waitpid");
        if (w == child)
            break;
    }
    if (WIFEXITED(status)) {
        code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        char msg[MSG_LINE];
        snprintf(msg, sizeof msg, "clockscope vm init: the command was killed by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
        send_text('m', msg);
        code = EXIT_SIGNAL_BASE + WTERMSIG(status);
    }
    char text[16];
    snprintf(text, sizeof text, "%d", code);
    send_text('x', text);
    power_off();
}
