/* SPDX-License-Identifier: MIT */
/* riscv64 side of serving a program through its vDSO (arch/inject.h).
 *
 * Instruction cache: every byte run writes into the tracee goes through /proc/PID/mem, i.e.
 * the kernel's access_remote_vm, whose copy_to_user_page() on riscv calls
 * flush_icache_user_page(): for an executable mapping (the vDSO's text: the jumps and the
 * syscall instruction) flush_icache_mm() fences this hart's instruction fetches and marks
 * every other hart's cache stale for the mm, to be flushed before it next runs the
 * program.  The reader is written while its pages are read-write; the mprotect that makes
 * them executable installs executable PTEs through set_pte_at(), which flushes for a page
 * not yet marked clean (flush_icache_pte; a page fresh from the allocator never is).  The
 * program is stopped at its exec with one thread.  Nothing more is needed. */
#include "arch/inject.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <asm/ptrace.h>

_Static_assert(sizeof(struct user_regs_struct) <= sizeof(struct arch_regs), "regs fit");

/* Instruction words (RISC-V unprivileged ISA; t1 is x6). */
#define RV_AUIPC_T1 0x00000317u    /* auipc t1, 0 */
#define RV_LD_T1_T1 0x00033303u    /* ld t1, imm(t1): imm << 20 */
#define RV_JR_T1 0x00030067u       /* jalr x0, 0(t1) */
#define RV_C_NOP 0x0001u
#define RV_ECALL 0x00000073u
#define RV_EBREAK 0x00100073u

bool arch_inject_supported(char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return true;
}

const struct arch_vdso_entries *arch_inject_vdso_entries(void)
{
    /* glibc, musl and Go's runtime look these up with version LINUX_4.15.  No time(): the
     * riscv vDSO has none. */
    static const struct arch_vdso_entries e = {
        .name = {"__vdso_clock_gettime", "__vdso_gettimeofday", NULL},
        .version = "LINUX_4.15",
        .elf_machine = EM_RISCV};
    return &e;
}

bool arch_inject_symbol_forbidden(const char *name)
{
    /* riscv returns from every signal through the vDSO's __vdso_rt_sigreturn. */
    return strstr(name, "sigreturn") != NULL || strstr(name, "getrandom") != NULL;
}

int arch_inject_get_regs(pid_t pid, struct arch_regs *regs)
{
    memset(regs, 0, sizeof *regs);
    struct iovec io = {regs, sizeof(struct user_regs_struct)};
    return ptrace(PTRACE_GETREGSET, pid, (void *)(long)NT_PRSTATUS, &io) == 0 ? 0 : errno;
}

int arch_inject_set_regs(pid_t pid, const struct arch_regs *regs)
{
    struct iovec io = {(void *)regs, sizeof(struct user_regs_struct)};
    return ptrace(PTRACE_SETREGSET, pid, (void *)(long)NT_PRSTATUS, &io) == 0 ? 0 : errno;
}

uint64_t arch_inject_pc(const struct arch_regs *regs)
{
    return ((const struct user_regs_struct *)regs)->pc;
}

static void put32(uint8_t *out, uint32_t w) { memcpy(out, &w, 4); }

size_t arch_inject_syscall_insn(uint8_t *out)
{
    /* ecall, then ebreak: riscv has no PTRACE_SINGLESTEP, so PTRACE_CONT runs the syscall
     * and the tracee stops at the breakpoint (SIGTRAP). */
    put32(out, RV_ECALL);
    put32(out + 4, RV_EBREAK);
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
    struct user_regs_struct *r = (struct user_regs_struct *)out;
    r->pc = pc;
    r->a7 = (unsigned long)nr;
    r->a0 = (unsigned long)args[0], r->a1 = (unsigned long)args[1];
    r->a2 = (unsigned long)args[2], r->a3 = (unsigned long)args[3];
    r->a4 = (unsigned long)args[4], r->a5 = (unsigned long)args[5];
    /* No "not in a syscall" marker is needed as x86's orig_rax = -1: the kernel restarts a
     * syscall on the way out only when a0 holds -ERESTART* (-512..-516), and a0 here is
     * the first argument: 0, an address, or a small descriptor. */
}

long arch_inject_syscall_result(const struct arch_regs *regs)
{
    return (long)((const struct user_regs_struct *)regs)->a0;
}

size_t arch_inject_abs_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target)
{
    /*   auipc t1, 0        t1: a temporary, clobbered by any call; not t0, which a jr
     *   ld    t1, off(t1)  would make a return-address-stack hint (x1/x5 are link
     *   jr    t1           registers)
     *   [c.nop ...]        never run
     *   lit: .dword target at the first 8-byte boundary from at + 12 (a misaligned ld
     *                      may trap to the kernel or firmware to be emulated: slow)
     * With the C extension functions start on 2-byte boundaries: off is 12, 14, 16 or 18,
     * 20 to 26 bytes in all. */
    if (at % 2)
        return 0;
    uint64_t lit = (at + 12 + 7) & ~(uint64_t)7;
    uint32_t off = (uint32_t)(lit - at);
    size_t n = (size_t)off + 8;
    if (len < n)
        return 0;
    put32(out, RV_AUIPC_T1);
    put32(out + 4, RV_LD_T1_T1 | off << 20);
    put32(out + 8, RV_JR_T1);
    for (uint32_t p = 12; p < off; p += 2) {
        uint16_t nop = RV_C_NOP;
        memcpy(out + p, &nop, 2);
    }
    memcpy(out + off, &target, 8);
    return n;
}
