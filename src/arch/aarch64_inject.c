/* SPDX-License-Identifier: MIT */
/* aarch64: serving a program through its vDSO is not done yet (arch/inject.h); run refuses. */
#include "arch/inject.h"

#include <stdio.h>

bool arch_inject_supported(char *why, size_t len)
{
    snprintf(why, len, "patching the vDSO is not yet done on aarch64 (only x86_64)");
    return false;
}

const struct arch_vdso_entries *arch_inject_vdso_entries(void) { return NULL; }
bool arch_inject_symbol_forbidden(const char *name) { (void)name; return true; }
int arch_inject_get_regs(pid_t pid, struct arch_regs *regs) { (void)pid, (void)regs; return 38; }
int arch_inject_set_regs(pid_t pid, const struct arch_regs *regs) { (void)pid, (void)regs; return 38; }
uint64_t arch_inject_pc(const struct arch_regs *regs) { (void)regs; return 0; }
size_t arch_inject_syscall_insn(uint8_t *out) { (void)out; return 0; }
void arch_inject_syscall_regs(struct arch_regs *out, const struct arch_regs *saved, uint64_t pc,
                              long nr, const long args[6])
{
    *out = *saved;
    (void)pc, (void)nr, (void)args;
}
long arch_inject_syscall_result(const struct arch_regs *regs) { (void)regs; return -38; }
size_t arch_inject_abs_jump(uint8_t *out, size_t len, uint64_t target)
{
    (void)out, (void)len, (void)target;
    return 0;
}
