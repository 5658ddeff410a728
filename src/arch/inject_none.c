/* SPDX-License-Identifier: MIT */
/* Serving a program through its vDSO (arch/inject.h) where an arch does not do it yet:
 * weak definitions that say so, overridden by arch/ARCH_inject.c where that file exists
 * (x86_64, aarch64 and riscv64 all have one today: these stay for an arch added later, and
 * arch_inject_attach_supported's refusal serves aarch64 and riscv64 too).
 * run asks arch_inject_supported() first and calls nothing else here. */
#include "arch/arch.h"
#include "arch/inject.h"

#include <errno.h>
#include <stdio.h>

#define INJECT_NONE __attribute__((weak))

INJECT_NONE bool arch_inject_supported(char *why, size_t whylen)
{
    snprintf(why, whylen, "patching the vDSO is not yet done on %s", arch_name());
    return false;
}

/* The injected syscalls restore the registers ptrace's general register set holds; on
 * x86_64 that includes orig_rax, which a thread stopped inside a syscall needs to restart
 * it (x86_64_inject.c says yes).  aarch64 and riscv64 keep the interrupted syscall's first
 * argument (orig_x0, orig_a0) and number outside that set: a restarted futex or read would
 * get the injected syscall's argument.  The exec path (run -- CMD) is not concerned: its
 * thread stands at the exec's syscall-exit stop, nothing to restart. */
INJECT_NONE bool arch_inject_attach_supported(char *why, size_t whylen)
{
    snprintf(why, whylen, "run -p and --undo are done on x86_64 only: here an interrupted "
             "syscall's first argument is not restored after the injected ones "
             "(run -- COMMAND serves static and Go programs at their start)");
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
    return false; /* run -p and --undo are x86_64 only (arch_inject_attach_supported says why) */
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
    return 0; /* run -p is x86_64 only (arch_inject_attach_supported says why) */
}
INJECT_NONE long arch_inject_eintr_syscall(const struct arch_regs *regs)
{
    (void)regs;
    return -1;
}
