/* SPDX-License-Identifier: MIT */
/* Programs `clockscope run -p` must refuse, leaving them running as they were
 * (tests/test_run_attach_safety.py), built with -static.  Each starts two threads reading
 * the time, sets itself up as its mode says, prints "ready pid P ..." and runs until its
 * stdin ends, then prints "ok refusal MODE reads R outside 0 sigsegv 0 sigsys 0 ..." and
 * exits 0 ("FAIL ..." and 1 when a count but reads is not 0):
 *
 *   refusal_target vdso-none | vdso-read
 * mprotect()s its own [vdso] mapping PROT_NONE, or PROT_READ (readable, not executable):
 * nothing may run there any more, so its threads read the time by raw syscalls only.  A
 * SIGSEGV handler counts what the attach would make it take.
 *
 *   refusal_target seccomp mmap|openat|mprotect kill|trap
 * Installs a seccomp filter on every thread (SECCOMP_FILTER_FLAG_TSYNC, after
 * PR_SET_NO_NEW_PRIVS) failing that one syscall with SECCOMP_RET_KILL_PROCESS or
 * SECCOMP_RET_TRAP; the program itself makes none of them afterwards.  A SIGSYS handler
 * counts.  Its threads read the time through the vDSO, each read between raw syscalls.
 *
 *   refusal_target clonevm
 * Starts a child with clone(CLONE_VM | SIGCHLD) and a stack of its own: a process sharing
 * all its memory (the vDSO too) without being one of its threads.  The child reads the time
 * through the vDSO, between raw syscalls, until the parent's stdin ends; the parent then
 * checks it exited by itself ("child_status 0"); it is killed if the parent dies first.
 * Prints "ready pid P clone C". */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_bool stop;
static atomic_long reads, outside;
static volatile sig_atomic_t sigsegv, sigsys;
static bool vdso_usable = true;
static char outbuf[4096]; /* stdout's buffer: no allocation once a filter is in */

static void on_sigsegv(int sig)
{
    (void)sig;
    if (++sigsegv > 1000)
        _exit(3); /* a fault that keeps coming back: not one handed over by a tracer */
}

static void on_sigsys(int sig)
{
    (void)sig;
    sigsys++;
}

static int64_t kernel(clockid_t id)
{
    struct timespec t;
    syscall(SYS_clock_gettime, id, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* One read checked between the kernel's before and after (through the vDSO when it can
 * still be run). */
static void read_once(void)
{
    if (!vdso_usable) {
        int64_t a = kernel(CLOCK_MONOTONIC), b = kernel(CLOCK_MONOTONIC);
        if (b < a)
            atomic_fetch_add(&outside, 1);
        return;
    }
    struct timespec t;
    int64_t before = kernel(CLOCK_MONOTONIC);
    int r = clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t after = kernel(CLOCK_MONOTONIC);
    int64_t v = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
    if (r != 0 || v < before || v > after)
        atomic_fetch_add(&outside, 1);
}

static void *reader(void *arg)
{
    (void)arg;
    long n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        read_once();
        n++;
    }
    atomic_fetch_add(&reads, n);
    return NULL;
}

/* The clone child's own: it shares every page with the parent, not its threads. */
static atomic_long child_reads, child_outside;
static int child(void *arg)
{
    pid_t parent = *(pid_t *)arg;
    /* Never outlive the parent (its stdin ends it; a parent killed would leave it
     * spinning): killed with it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
        return 1;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        struct timespec t;
        int64_t before = kernel(CLOCK_MONOTONIC);
        int r = clock_gettime(CLOCK_MONOTONIC, &t);
        int64_t after = kernel(CLOCK_MONOTONIC);
        int64_t v = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
        if (r != 0 || v < before || v > after)
            atomic_fetch_add(&child_outside, 1);
        atomic_fetch_add_explicit(&child_reads, 1, memory_order_relaxed);
    }
    return 0;
}

static bool vdso_range(uintptr_t *start, uintptr_t *end)
{
    FILE *f = fopen("/proc/self/maps", "re");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", start, end) == 2)
            found = true;
    if (f)
        fclose(f);
    return found;
}

static int install_filter(const char *name, const char *action)
{
    int nr = !strcmp(name, "mmap") ? SYS_mmap : !strcmp(name, "openat") ? SYS_openat
             : !strcmp(name, "mprotect") ? SYS_mprotect : -1;
    unsigned act = !strcmp(action, "kill") ? SECCOMP_RET_KILL_PROCESS
                   : !strcmp(action, "trap") ? SECCOMP_RET_TRAP : 0;
    if (nr < 0 || !act) {
        fprintf(stderr, "refusal_target seccomp: mmap|openat|mprotect kill|trap\n");
        return 2;
    }
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, act),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        perror("seccomp");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: refusal_target vdso-none|vdso-read|seccomp SYSCALL ACTION|clonevm\n");
        return 2;
    }
    const char *mode = argv[1];
    setvbuf(stdout, outbuf, _IOLBF, sizeof outbuf);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_sigsegv;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_handler = on_sigsys;
    sigaction(SIGSYS, &sa, NULL);

    bool vdso = !strcmp(mode, "vdso-none") || !strcmp(mode, "vdso-read");
    uintptr_t vs = 0, ve = 0;
    if (vdso) {
        /* Before any thread may be inside it. */
        if (!vdso_range(&vs, &ve)) {
            fprintf(stderr, "no [vdso] mapping\n");
            return 2;
        }
        vdso_usable = false;
        if (mprotect((void *)vs, ve - vs, !strcmp(mode, "vdso-none") ? PROT_NONE : PROT_READ)) {
            perror("mprotect");
            return 2;
        }
    }
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, reader, NULL) != 0) {
            perror("pthread_create");
            return 2;
        }
    pid_t kid = 0;
    char *stack = NULL;
    if (!strcmp(mode, "seccomp")) {
        if (argc != 4) {
            fprintf(stderr, "refusal_target seccomp SYSCALL ACTION\n");
            return 2;
        }
        int e = install_filter(argv[2], argv[3]);
        if (e)
            return e;
    } else if (!strcmp(mode, "clonevm")) {
        size_t size = 256 * 1024;
        stack = malloc(size);
        static pid_t me;
        me = getpid();
        kid = stack ? clone(child, stack + size, CLONE_VM | SIGCHLD, &me) : -1;
        if (kid < 0) {
            perror("clone");
            return 2;
        }
    } else if (!vdso) {
        fprintf(stderr, "refusal_target: unknown mode %s\n", mode);
        return 2;
    }
    if (kid)
        printf("ready pid %d clone %d\n", (int)getpid(), (int)kid);
    else
        printf("ready pid %d\n", (int)getpid());

    char buf[256];
    ssize_t r;
    while ((r = read(0, buf, sizeof buf)) != 0)
        if (r < 0 && errno != EINTR)
            break;
    atomic_store(&stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    int child_status = 0;
    if (kid) {
        int st = 0;
        while (waitpid(kid, &st, 0) < 0 && errno == EINTR)
            ;
        child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    bool ok = !atomic_load(&outside) && !sigsegv && !sigsys && !child_status &&
              !atomic_load(&child_outside);
    printf("%s refusal %s reads %ld outside %ld sigsegv %d sigsys %d child_status %d "
           "child_reads %ld child_outside %ld\n",
           ok ? "ok" : "FAIL", mode, atomic_load(&reads), atomic_load(&outside), (int)sigsegv,
           (int)sigsys, child_status, atomic_load(&child_reads), atomic_load(&child_outside));
    fflush(stdout);
    return ok ? 0 : 1;
}
