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

bool arch_inject_supported(char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return true;
}

/* orig_rax is in the general register set the injected syscalls restore: a thread
 * stopped inside a syscall restarts it whole. */
bool arch_inject_attach_supported(char *why, size_t whylen)
{
    (void)why, (void)whylen;
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

void arch_inject_home_regs(struct arch_regs *home, const struct arch_regs *saved)
{
    *home = *saved;
    struct user_regs_struct *r = (struct user_regs_struct *)home;
    /* The kernel's restart on the way out of an interrupted syscall when no signal handler
     * runs (arch/x86/kernel/signal.c, arch_do_signal_or_restart): -ERESTARTSYS,
     * -ERESTARTNOINTR, -ERESTARTNOHAND run the syscall again, -ERESTART_RESTARTBLOCK runs
     * restart_syscall (nanosleep, poll: the remaining time is in the thread's kernel
     * restart block, which the injected syscalls never touch).  The syscall instruction
     * is 2 bytes, and a 64-bit program enters the kernel with `syscall`. */
    if ((long)r->orig_rax >= 0) {
        long rax = (long)r->rax;
        if (rax == -512 || rax == -513 || rax == -514)
            r->rax = r->orig_rax, r->rip -= 2;
        else if (rax == -516)
            r->rax = SYS_restart_syscall, r->rip -= 2;
    }
    r->orig_rax = (unsigned long)-1;
}

long arch_inject_eintr_syscall(const struct arch_regs *regs)
{
    const struct user_regs_struct *r = (const struct user_regs_struct *)regs;
    return (long)r->orig_rax >= 0 && (long)r->rax == -EINTR ? (long)r->orig_rax : -1;
}

/* The stub's data: the registers a step changes (the syscall's number and arguments, and
 * rcx and r11, which the syscall instruction overwrites), the pc to go back to, the mask. */
enum { HOME_RAX, HOME_RCX, HOME_RDX, HOME_RSI, HOME_RDI, HOME_R8, HOME_R9, HOME_R10, HOME_R11,
       HOME_RIP, HOME_MASK, HOME_WORDS };
#define STUB_CODE_AT 96 /* the data, 16-byte aligned */

static uint8_t *put_rel32(uint8_t *p, uint64_t insn_end, uint64_t target)
{
    int32_t d = (int32_t)(int64_t)(target - insn_end);
    memcpy(p, &d, 4);
    return p + 4;
}

size_t arch_inject_heal_stub(uint8_t *out, size_t len, uint64_t at, const struct arch_regs *home,
                             uint64_t sigmask, size_t *step_off)
{
    _Static_assert(HOME_WORDS * 8 <= STUB_CODE_AT, "the data fits before the code");
    const struct user_regs_struct *r = (const struct user_regs_struct *)home;
    uint64_t data[HOME_WORDS] = {
        [HOME_RAX] = r->rax, [HOME_RCX] = r->rcx, [HOME_RDX] = r->rdx, [HOME_RSI] = r->rsi,
        [HOME_RDI] = r->rdi, [HOME_R8] = r->r8, [HOME_R9] = r->r9, [HOME_R10] = r->r10,
        [HOME_R11] = r->r11, [HOME_RIP] = r->rip, [HOME_MASK] = sigmask};
    uint8_t code[128], *p = code;
    const uint64_t c = at + STUB_CODE_AT;
#define AT(ptr) (c + (uint64_t)((ptr) - code))
    /* The step: the tracer sets rax and the arguments and stops the thread at this
     * syscall's entry and exit (PTRACE_SYSCALL). */
    *p++ = 0x0f, *p++ = 0x05;
    /* Reached only when the tracer is gone.  rt_sigprocmask(SIG_SETMASK, &mask, NULL, 8):
     * the tracer blocked the thread's signals for the steps.  Only moves and lea: the
     * flags stay as the thread had them (each syscall returns with the flags it entered
     * with). */
    *p++ = 0xb8, memcpy(p, &(uint32_t){SYS_rt_sigprocmask}, 4), p += 4; /* mov $14, %eax */
    *p++ = 0xbf, memcpy(p, &(uint32_t){2}, 4), p += 4;                  /* mov $2, %edi */
    *p++ = 0x48, *p++ = 0x8d, *p++ = 0x35;                              /* lea mask(%rip), %rsi */
    p = put_rel32(p, AT(p + 4), at + 8 * HOME_MASK);
    *p++ = 0xba, memcpy(p, &(uint32_t){0}, 4), p += 4;                  /* mov $0, %edx */
    *p++ = 0x41, *p++ = 0xba, memcpy(p, &(uint32_t){8}, 4), p += 4;     /* mov $8, %r10d */
    *p++ = 0x0f, *p++ = 0x05;                                           /* syscall */
    /* mov home(%rip), reg for each register a step changes: REX, opcode 8b, ModRM with
     * mod 00 and r/m 101 (RIP-relative), reg the register's number. */
    static const struct { uint8_t rex, modrm; int word; } load[] = {
        {0x48, 0x05, HOME_RAX}, {0x48, 0x0d, HOME_RCX}, {0x48, 0x15, HOME_RDX},
        {0x48, 0x35, HOME_RSI}, {0x48, 0x3d, HOME_RDI}, {0x4c, 0x05, HOME_R8},
        {0x4c, 0x0d, HOME_R9},  {0x4c, 0x15, HOME_R10}, {0x4c, 0x1d, HOME_R11}};
    for (size_t i = 0; i < sizeof load / sizeof load[0]; i++) {
        *p++ = load[i].rex, *p++ = 0x8b, *p++ = load[i].modrm;
        p = put_rel32(p, AT(p + 4), at + 8 * (uint64_t)load[i].word);
    }
    *p++ = 0xff, *p++ = 0x25; /* jmp *home_rip(%rip): no register, no stack */
    p = put_rel32(p, AT(p + 4), at + 8 * HOME_RIP);
#undef AT
    size_t total = STUB_CODE_AT + (size_t)(p - code);
    if (len < total || at % 16)
        return 0;
    memset(out, 0, STUB_CODE_AT);
    memcpy(out, data, sizeof data);
    memcpy(out + STUB_CODE_AT, code, (size_t)(p - code));
    *step_off = STUB_CODE_AT;
    return total;
}
