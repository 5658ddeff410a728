/* SPDX-License-Identifier: MIT */
/* aarch64 side of serving a program through its vDSO (arch/inject.h).
 *
 * Instruction cache: every byte run writes into the tracee goes through /proc/PID/mem, i.e.
 * the kernel's access_remote_vm, whose copy_to_user_page() on arm64 cleans the data cache
 * to the point of unification and invalidates the instruction cache for the range
 * (flush_ptrace_access) when the mapping is executable: the jumps, and the syscall
 * instruction, both written into the vDSO's text.  The reader is written while its pages
 * are still read-write; the mprotect that makes them executable installs executable
 * PTEs through set_pte_at(), which syncs the caches of a page not yet marked clean
 * (__sync_icache_dcache; a page fresh from the allocator never is).  `ic ivau` is
 * broadcast to the inner-shareable domain, so this holds for whichever CPU the program's
 * first thread runs on next, and no other thread exists yet (the program is stopped at
 * its exec).  Nothing more is needed. */
#include "arch/inject.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <asm/ptrace.h>

_Static_assert(sizeof(struct user_pt_regs) <= sizeof(struct arch_regs), "regs fit");

/* Instruction words (Arm ARM, A64). */
#define A64_BTI_C 0xd503245fu      /* landing pad for calls: the vDSO is mapped guarded (BTI) */
#define A64_NOP 0xd503201fu
#define A64_LDR_LIT_X16 0x58000010u /* ldr x16, label: imm19 (words from this instruction) << 5 */
#define A64_BR_X16 0xd61f0200u
#define A64_SVC_0 0xd4000001u
#define A64_BRK_0 0xd4200000u

bool arch_inject_supported(char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return true;
}

const struct arch_vdso_entries *arch_inject_vdso_entries(void)
{
    /* glibc, musl and Go's runtime look these up with version LINUX_2.6.39.  No time():
     * the arm64 vDSO has none (libc answers time() from clock_gettime or the syscall). */
    static const struct arch_vdso_entries e = {
        .name = {"__kernel_clock_gettime", "__kernel_gettimeofday", NULL},
        .version = "LINUX_2.6.39",
        .elf_machine = EM_AARCH64};
    return &e;
}

bool arch_inject_symbol_forbidden(const char *name)
{
    /* arm64 returns from every signal through the vDSO's __kernel_rt_sigreturn (libc's
     * SA_RESTORER points there): written, it would break every signal handler. */
    return strstr(name, "sigreturn") != NULL || strstr(name, "getrandom") != NULL;
}

/* At a syscall stop (run's first one: execve's exit) arm64 shows x7 as the stop's
 * direction (1: exit) and puts the real x7 back when the tracee goes on; restoring the
 * registers read there at a later stop leaves x7 = 1 instead of execve's 0.  A program's
 * entry point reads only what the ABI gives it (sp, x0), so this is harmless at the exec. */
int arch_inject_get_regs(pid_t pid, struct arch_regs *regs)
{
    memset(regs, 0, sizeof *regs);
    struct iovec io = {regs, sizeof(struct user_pt_regs)};
    return ptrace(PTRACE_GETREGSET, pid, (void *)(long)NT_PRSTATUS, &io) == 0 ? 0 : errno;
}

int arch_inject_set_regs(pid_t pid, const struct arch_regs *regs)
{
    struct iovec io = {(void *)regs, sizeof(struct user_pt_regs)};
    return ptrace(PTRACE_SETREGSET, pid, (void *)(long)NT_PRSTATUS, &io) == 0 ? 0 : errno;
}

uint64_t arch_inject_pc(const struct arch_regs *regs)
{
    return ((const struct user_pt_regs *)regs)->pc;
}

static void put32(uint8_t *out, uint32_t w) { memcpy(out, &w, 4); }

size_t arch_inject_syscall_insn(uint8_t *out)
{
    /* svc #0, then brk #0: PTRACE_CONT runs the syscall and stops at the breakpoint
     * (SIGTRAP), with no reliance on single-stepping over svc. */
    put32(out, A64_SVC_0);
    put32(out + 4, A64_BRK_0);
    return 8;
}

int arch_inject_syscall_resume(void)
{
    return PTRACE_CONT;
}

void arch_inject_syscall_regs(struct arch_regs *out, const struct arch_regs *saved, uint64_t pc,
                              long nr, const long args[6])
{
    *out = *saved;
    struct user_pt_regs *r = (struct user_pt_regs *)out;
    r->pc = pc;
    r->regs[8] = (uint64_t)nr;
    for (int i = 0; i < 6; i++)
        r->regs[i] = (uint64_t)args[i];
    /* No "not in a syscall" marker is needed as x86's orig_rax = -1: the kernel restarts a
     * syscall on the way out only when x0 holds -ERESTART* (-512..-516), and x0 here is
     * the first argument: 0, an address, or a small descriptor. */
}

long arch_inject_syscall_result(const struct arch_regs *regs)
{
    return (long)((const struct user_pt_regs *)regs)->regs[0];
}

size_t arch_inject_abs_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target)
{
    /*   bti c             the vDSO's text is a guarded page where the CPU has BTI: a call
     *                     (blr) must land on a landing pad, as the original first
     *                     instruction was (bti c or paciasp); a no-op elsewhere
     *   ldr x16, lit      x16/x17 are the intra-procedure-call scratch registers: any call
     *   br  x16           may clobber them (veneers, PLT stubs), so no caller keeps
     *   [nop]             anything in them
     *   lit: .quad target aligned to 8 bytes (a nop before it when at + 12 is not)
     * 20 or 24 bytes. */
    if (at % 4)
        return 0;
    uint64_t lit = (at + 12 + 7) & ~(uint64_t)7;
    size_t n = (size_t)(lit - at) + 8;
    if (len < n)
        return 0;
    put32(out, A64_BTI_C);
    put32(out + 4, A64_LDR_LIT_X16 | (uint32_t)((lit - (at + 4)) / 4) << 5);
    put32(out + 8, A64_BR_X16);
    if (lit - at == 16)
        put32(out + 12, A64_NOP);
    memcpy(out + (lit - at), &target, 8);
    return n;
}
