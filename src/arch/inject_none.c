/* SPDX-License-Identifier: MIT */
/* Serving a program through its vDSO (arch/inject.h) where an arch does not do it yet:
 * weak definitions that say so, overridden by arch/ARCH_inject.c where that file exists
 * (x86_64, aarch64 and riscv64 all have one today: these stay for an arch added later).
 * run asks arch_inject_supported() first and calls nothing else here. */
#include "arch/arch.h"
#include "arch/inject.h"

#include <errno.h>
#include <stdio.h>

#define INJECT_NONE __attribute__((weak))

INJECT_NONE bool arch_inject_supported(char *why, size_t len)
{
    snprintf(why, len, "patching the vDSO is not yet done on %s", arch_name());
    return false;
}

INJECT_NONE const struct arch_vdso_entries *arch_inject_vdso_entries(void) { return NULL; }
INJECT_NONE bool arch_inject_symbol_forbidden(const char *name)
{
    (void)name;
    return true;    /* nothing may be written where nothing is known */
}
INJECT_NONE int arch_inject_get_regs(pid_t pid, struct arch_regs *regs)
{
    (void)pid, (void)regs;
    return ENOSYS;
}
INJECT_NONE int arch_inject_set_regs(pid_t pid, const struct arch_regs *regs)
{
    (void)pid, (void)regs;
    return ENOSYS;
}
INJECT_NONE uint64_t arch_inject_pc(const struct arch_regs *regs)
{
    (void)regs;
    return 0;
}
INJECT_NONE size_t arch_inject_syscall_insn(uint8_t *out)
{
    (void)out;
    return 0;
}
INJECT_NONE int arch_inject_syscall_resume(void) { return -1; }
INJECT_NONE void arch_inject_syscall_regs(struct arch_regs *out, const struct arch_regs *saved,
                                          uint64_t pc, long nr, const long args[6])
{
    *out = *saved;
    (void)pc, (void)nr, (void)args;
}
INJECT_NONE long arch_inject_syscall_result(const struct arch_regs *regs)
{
    (void)regs;
    return -ENOSYS;
}
INJECT_NONE size_t arch_inject_abs_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target)
{
    (void)out, (void)len, (void)at, (void)target;
    return 0;
}
INJECT_NONE size_t arch_inject_near_jump(uint8_t *out, size_t len, uint64_t from, uint64_t target)
{
    (void)out, (void)len, (void)from, (void)target;
    return 0;
}
INJECT_NONE bool arch_inject_jump_target(const uint8_t *code, size_t len, uint64_t at,
                                         uint64_t *target)
{
    (void)code, (void)len, (void)at, (void)target;
    return false; /* run -p and --undo are x86_64 only (run_attach.c says why) */
}
INJECT_NONE void arch_inject_home_regs(struct arch_regs *home, const struct arch_regs *saved)
{
    *home = *saved;
}
INJECT_NONE size_t arch_inject_heal_stub(uint8_t *out, size_t len, uint64_t at,
                                         const struct arch_regs *home, uint64_t sigmask,
                                         size_t *step_off)
{
    (void)out, (void)len, (void)at, (void)home, (void)sigmask, (void)step_off;
    return 0; /* run -p is x86_64 only (run_attach.c says why) */
}
INJECT_NONE long arch_inject_eintr_syscall(const struct arch_regs *regs)
{
    (void)regs;
    return -1;
}
