/* SPDX-License-Identifier: MIT */
/* qemu-system in its own process group (so that killing it kills all of it), with the
 * guest's first serial port on qemu's stdout.  The console loop separates frames (the
 * command's output) from everything else (the kernel's messages), keeps the tail of the
 * latter for error reports, watches for a panic, and enforces the timeout. */
#include "vm/qemu.h"
#include "common/clock_ns.h"

#include "facts/emulation.h"
#include "vm/guest_init.h"
#include "vm/frame.h"
#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES (2 * FRAME_MAX_LINE)
#define POWEROFF_GRACE_S 15.0

volatile sig_atomic_t vm_stop_requested;

double vm_now_s(void)
{
    return clock_ns_monotonic_s();
}

void vm_qemu_args(const struct vm_boot *b, const char *dumpdtb, struct qemu_args *a)
{
    snprintf(a->smp, sizeof a->smp, "%u", b->cpus);
    snprintf(a->mem, sizeof a->mem, "%u", b->memory_mb);
    snprintf(a->accel, sizeof a->accel, "%s", b->kvm ? "kvm" : "tcg");
    snprintf(a->machine, sizeof a->machine, "%s%s%s", b->machine->name,
             dumpdtb ? ",dumpdtb=" : "", dumpdtb ? dumpdtb : "");
    /* quiet: only errors reach the console.  panic=-1 with -no-reboot: a panicking kernel
     * makes qemu exit at once instead of hanging until the timeout. */
    /* Under TCG the guest is told so (EMULATION_CMDLINE_WORD): its facts then record an
     * emulated CPU on every arch, where nothing inside an aarch64 or riscv64 guest has to
     * say it (docs/vm.md). */
    snprintf(a->append, sizeof a->append, "console=%s quiet panic=-1 rdinit=/init%s%s%s",
             b->machine->console, b->kvm ? "" : " " EMULATION_CMDLINE_WORD,
             b->append ? " " : "", b->append ? b->append : "");
    char **argv = a->argv;
    int n = 0;
    argv[n++] = (char *)b->arch->desc->qemu_system;
    argv[n++] = "-machine";
    argv[n++] = a->machine;
    argv[n++] = "-accel";
    argv[n++] = a->accel;
    if (b->machine->cpu_option) {
        argv[n++] = "-cpu";
        argv[n++] = (char *)(b->kvm ? b->arch->kvm_cpu : b->arch->tcg_cpu);
    }
    argv[n++] = "-smp";
    argv[n++] = a->smp;
    argv[n++] = "-m";
    argv[n++] = a->mem;
    argv[n++] = "-nodefaults";
    argv[n++] = "-no-user-config";
    argv[n++] = "-display";
    argv[n++] = "none";
    argv[n++] = "-serial";
    argv[n++] = dumpdtb ? "null" : "stdio";
    argv[n++] = "-no-reboot";
    if (b->arch->bios) {
        argv[n++] = "-bios";
        argv[n++] = (char *)b->arch->bios;
    }
    if (b->dtb && !dumpdtb) {
        argv[n++] = "-dtb";
        argv[n++] = (char *)b->dtb;
    }
    argv[n++] = "-kernel";
    argv[n++] = (char *)b->kernel;
    argv[n++] = "-initrd";
    argv[n++] = (char *)b->initrd;
    argv[n++] = "-append";
    argv[n++] = a->append;
    argv[n] = NULL;
}

static pid_t start_qemu(const struct vm_boot *b, int console_fd, int err_fd)
{
    static struct qemu_args a;
    vm_qemu_args(b, NULL, &a);
    char **argv = a.argv;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setsid();
    /* Should we die without cleaning up (SIGKILL), qemu must not outlive us. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(console_fd, 1);
    dup2(err_fd, 2);
    execvp(argv[0], argv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

struct console {
    char line[LINE_MAX_BYTES];
    size_t len;
    uint64_t next_seq;
    double t0;
    bool got_exit;
    double exit_at;
    struct vm_capture *capture;
};

static void handle_line(struct console *c, struct vm_result *r)
{
    static struct frame f;
    int d = frame_decode(c->line, c->len, &f);
    if (d == 0) {
        subprocess_tail_append(r->console_tail, sizeof r->console_tail, c->line, c->len);
        if (!r->panic_line[0]) {
            const char *p = memmem(c->line, c->len, "Kernel panic", 12);
            if (p) {
                size_t n = c->len - (size_t)(p - c->line);
                snprintf(r->panic_line, sizeof r->panic_line, "%.*s", (int)n, p);
                r->panic_line[strcspn(r->panic_line, "\r\n")] = '\0';
            }
        }
        return;
    }
    if (d < 0 || f.seq != c->next_seq) {
        if (!r->framing_error[0])
            snprintf(r->framing_error, sizeof r->framing_error,
                     d < 0 ? "a corrupt frame after frame %llu"
                           : "frame %llu missing (kernel messages mixed into the console?)",
                     (unsigned long long)c->next_seq);
        if (d < 0)
            return;
    }
    c->next_seq = f.seq + 1;
    switch (f.kind) {
    case 's':
        r->init_started = true;
        r->init_s = vm_now_s() - c->t0;
        break;
    case 'o':
        if (c->capture) {
            struct vm_capture *k = c->capture;
            size_t room = k->cap > k->len ? k->cap - k->len : 0;
            size_t n = f.len < room ? f.len : room;
            memcpy(k->buf + k->len, f.data, n);
            k->len += n;
            k->overflow |= n < f.len;
        }
        if (!c->capture || c->capture->relay)
            subprocess_write_fully(1, f.data, f.len);
        break;
    case 'e': subprocess_write_fully(2, f.data, f.len); break;
    case 'm': fprintf(stderr, "%s\n", (char *)f.data); break;
    case GUEST_FRAME_FIX_REFUSED:
        snprintf(r->fix_refused, sizeof r->fix_refused, "%s", (char *)f.data);
        break;
    case 'x':
        c->got_exit = true;
        c->exit_at = vm_now_s();
        r->exit_code = atoi((char *)f.data);
        r->run_s = c->exit_at - c->t0 - r->init_s;
        break;
    }
}

static void feed(struct console *c, struct vm_result *r, const char *p, size_t n)
{
    if (n)
        r->console_output = true;
    for (size_t i = 0; i < n; i++) {
        if (c->len < sizeof c->line)
            c->line[c->len++] = p[i];
        if (p[i] == '\n' || c->len == sizeof c->line) {
            handle_line(c, r);
            c->len = 0;
        }
    }
}

/* Reads qemu's console (p[0], fed to c) and stderr (p[1]) until both close, the timeout
 * (or the poweroff grace after the exit status), a stop request, or /init missing its
 * deadline. */
static void console_loop(const struct vm_boot *b, struct console *c, struct pollfd p[2],
                         struct vm_result *r, bool *timed_out, bool *init_late)
{
    int open_fds = 2;
    while (open_fds > 0) {
        double now = vm_now_s();
        double deadline = c->t0 + b->timeout_s;
        if (c->got_exit && c->exit_at + POWEROFF_GRACE_S < deadline)
            deadline = c->exit_at + POWEROFF_GRACE_S;
        if (b->init_deadline_s > 0 && !r->init_started && now >= c->t0 + b->init_deadline_s) {
            *init_late = true;
            break;
        }
        if (vm_stop_requested || now >= deadline) {
            *timed_out = !vm_stop_requested;
            break;
        }
        double wait = deadline - now;
        int ms = wait > 0.2 ? 200 : (int)(wait * 1000) + 1;
        if (poll(p, 2, ms) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            char buf[8192];
            ssize_t n = read(p[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
            } else if (i == 0) {
                feed(c, r, buf, (size_t)n);
            } else {
                subprocess_tail_append(r->qemu_stderr, sizeof r->qemu_stderr, buf, (size_t)n);
            }
        }
    }
}

/* How the boot ended, from what the console loop saw. */
static enum vm_outcome outcome_of(const struct console *c, const struct vm_result *r,
                                  bool init_late, bool timed_out)
{
    if (c->got_exit && !r->framing_error[0])
        return VM_DONE;
    if (c->got_exit)
        return VM_FRAMING;
    if (vm_stop_requested)
        return VM_INTERRUPTED;
    if (r->panic_line[0])
        return VM_PANIC;
    if (init_late)
        return VM_INIT_LATE;
    if (timed_out)
        return VM_TIMEOUT;
    if (!r->console_output)
        return VM_QEMU_FAILED;
    return VM_STOPPED;
}

void vm_boot_run(const struct vm_boot *b, struct vm_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = 125;
    int con[2] = {-1, -1}, err[2] = {-1, -1};
    struct console *c = calloc(1, sizeof *c);
    if (!c || pipe2(con, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        r->outcome = VM_QEMU_FAILED;
        snprintf(r->qemu_stderr, sizeof r->qemu_stderr, "%s: %s", c ? "pipe" : "console buffer",
                 strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (con[i] >= 0)
                close(con[i]);
            if (err[i] >= 0)
                close(err[i]);
        }
        free(c);
        return;
    }
    c->t0 = vm_now_s();
    c->capture = b->capture;
    pid_t pid = start_qemu(b, con[1], err[1]);
    close(con[1]);
    close(err[1]);
    if (pid < 0) {
        r->outcome = VM_QEMU_FAILED;
        snprintf(r->qemu_stderr, sizeof r->qemu_stderr, "fork: %s", strerror(errno));
        close(con[0]);
        close(err[0]);
        free(c);
        return;
    }
    struct pollfd p[2] = {{con[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    bool timed_out = false, init_late = false;
    console_loop(b, c, p, r, &timed_out, &init_late);
    if (c->len)
        handle_line(c, r); /* a last line without its newline */
    /* Whatever state qemu is in, it ends here: the whole process group is killed (a no-op
     * if it already exited) and reaped. */
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    int status;
    subprocess_reap(pid, &status);
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);

    r->outcome = outcome_of(c, r, init_late, timed_out);
    free(c);
}
