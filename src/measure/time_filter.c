/* SPDX-License-Identifier: MIT */
/* The time syscalls' seccomp filter (time_filter.h). */
#include "measure/time_filter.h"
#include "arch/arch.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

int time_filter_build(struct sock_filter *f, unsigned int action)
{
    long nrs[4];
    int k = 0;
    nrs[k++] = SYS_clock_gettime;
    nrs[k++] = SYS_gettimeofday;
#ifdef SYS_clock_gettime64 /* 32-bit ABIs only: a feature test, not an arch test */
    nrs[k++] = SYS_clock_gettime64;
#endif
    if (arch_syscall_time_nr() >= 0)
        nrs[k++] = arch_syscall_time_nr();
    int n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch_audit_arch(), 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < k; i++)
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nrs[i],
                                              (uint8_t)(k - i), 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    /* A time syscall: let it through only with the magic third argument (little-endian
     * on all three arches: low word first). */
    size_t arg2 = offsetof(struct seccomp_data, args[2]);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg2);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)TIME_FILTER_MAGIC, 0, 2);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg2 + 4);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(TIME_FILTER_MAGIC >> 32), 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    return n;
}
