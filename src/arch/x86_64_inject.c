/* SPDX-License-Identifier: MIT */
/* x86_64 side of serving a program through its vDSO (arch/inject.h). */
#include "arch/inject.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

_Static_assert(sizeof(struct user_regs_struct) <= sizeof(struct arch_regs), "regs fit");

bool arch_inject_supported(char *why, size_t len)
{
    (void)why, (void)len;
    return true;
}

const struct arch_vdso_entries *arch_inject_vdso_entries(void)
{
    /* glibc, musl and Go's runtime look these up with version LINUX_2.6. */
    static const struct arch_vdso_entries e = {
        .name = {"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time"},
        .version = "LINUX_2.6",
        .elf_machine = EM_X86_64};
    return &e;
}

bool arch_inject_symbol_forbidden(const char *name)
{
    /* x86_64 returns from signals through libc's restorer, not the vDSO, but the rule is
     * the same on every arch: a trampoline or getrandom is never touched. */
    return strstr(name, "sigreturn") != NULL || strstr(name, "getrandom") != NULL;
}

int arch_inject_get_regs(pid_t pid, struct arch_regs *regs)
{
    memset(regs, 0, sizeof *regs);
    return ptrace(PTRACE_GETREGS, pid, NULL, regs) == 0 ? 0 : errno;
}

int arch_inject_set_regs(pid_t pid, const struct arch_regs *regs)
{
    return ptrace(PTRACE_SETREGS, pid, NULL, regs) == 0 ? 0 : errno;
}

uint64_t arch_inject_pc(const struct arch_regs *regs)
{
    return ((const struct user_regs_struct *)regs)->rip;
}

size_t arch_inject_syscall_insn(uint8_t *out)
{
    out[0] = 0x0f, out[1] = 0x05; /* syscall */
    return 2;
}

int arch_inject_syscall_resume(void)
{
    return PTRACE_SINGLESTEP; /* one step runs the whole syscall instruction */
}

void arch_inject_syscall_regs(struct arch_regs *out, const struct arch_regs *saved, uint64_t pc,
                              long nr, const long args[6])
{
    *out = *saved;
    struct user_regs_struct *r = (struct user_regs_struct *)out;
    r->rip = pc;
    r->rax = (unsigned long)nr;
    /* orig_rax -1: not inside a syscall, so the way back to user mode does no restart. */
    r->orig_rax = (unsigned long)-1;
    r->rdi = (unsigned long)args[0], r->rsi = (unsigned long)args[1];
    r->rdx = (unsigned long)args[2], r->r10 = (unsigned long)args[3];
    r->r8 = (unsigned long)args[4], r->r9 = (unsigned long)args[5];
}

long arch_inject_syscall_result(const struct arch_regs *regs)
{
    return (long)((const struct user_regs_struct *)regs)->rax;
}

size_t arch_inject_abs_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target)
{
    (void)at; /* the immediate needs no alignment */
    /* movabs $target, %r11 (49 bb imm64); jmp *%r11 (41 ff e3).  r11 is clobbered by the
     * syscall instruction anyway, so no caller of the vDSO can keep anything in it. */
    if (len < 13)
        return 0;
    out[0] = 0x49, out[1] = 0xbb;
    memcpy(out + 2, &target, 8);
    out[10] = 0x41, out[11] = 0xff, out[12] = 0xe3;
    return 13;
}

size_t arch_inject_near_jump(uint8_t *out, size_t len, uint64_t from, uint64_t target)
{
    /* jmp rel32 (e9 disp32): the displacement counts from the end of the 5-byte instruction.
     * A direct jump: no register, and no indirect-branch prediction (the movabs form's
     * `jmp *%r11` is an indirect branch, predicted through the BTB, and a retpoline/IBRS
     * kernel setting does not make user-space indirect jumps free either). */
    uint64_t disp = target - (from + 5);
    if (len < 5 || (int64_t)disp < INT32_MIN || (int64_t)disp > INT32_MAX)
        return 0;
    int32_t d32 = (int32_t)(int64_t)disp;
    out[0] = 0xe9;
    memcpy(out + 1, &d32, 4);
    return 5;
}

bool arch_inject_jump_target(const uint8_t *code, size_t len, uint64_t at, uint64_t *target)
{
    if (len >= 13 && code[0] == 0x49 && code[1] == 0xbb && code[10] == 0x41 && code[11] == 0xff &&
        code[12] == 0xe3) {
        memcpy(target, code + 2, 8);
        return true;
    }
    if (len >= 5 && code[0] == 0xe9) {
        int32_t d32;
        memcpy(&d32, code + 1, 4);
        *target = at + 5 + (uint64_t)(int64_t)d32;
        return true;
    }
    return false;
}
