/* SPDX-License-Identifier: MIT */
/* Does this machine give a process seccomp filters?  Installs a filter that makes getppid
 * fail with EPERM and checks that it does, independently of the doctor's own code.
 * Exit 0: filters work; 1: they do not (the reason on stderr). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        fprintf(stderr, "seccomp filter refused: %s\n", strerror(errno));
        return 1;
    }
    long r = syscall(SYS_getppid);
    if (r != -1 || errno != EPERM) {
        fprintf(stderr, "the filter was installed but getppid returned %ld\n", r);
        return 1;
    }
    return 0;
}
