/* SPDX-License-Identifier: MIT */
/* What `clockscope run` needs from an architecture to serve a program through its vDSO
 * (docs/run.md, "Static and Go programs"): the tracee's registers, running one syscall in a
 * stopped tracee, the absolute jump written over a vDSO entry point, and which vDSO symbols
 * are the clock entry points.  arch/ARCH_inject.c, where it exists, overrides the weak "not yet"
 * definitions of arch/inject_none.c; where an arch is not done yet,
 * arch_inject_supported() says so and nothing else is called. */
#ifndef CLOCKSCOPE_ARCH_INJECT_H
#define CLOCKSCOPE_ARCH_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A stopped tracee's general registers, opaque (large enough for every arch's
 * struct user_regs_struct). */
struct arch_regs {
    uint64_t r[64];
};

/* The clock entry points of this arch's vDSO, in the order of enum run_entry
 * (run/run_reader_abi.h): clock_gettime, gettimeofday, time (NULL: the arch has none). */
struct arch_vdso_entries {
    const char *name[3];
    const char *version; /* the version the C libraries and Go ask for */
    unsigned elf_machine; /* the e_machine a vDSO image of this arch has */
};

/* Whether this arch can be served; false with a reason ("not yet on aarch64 ..."). */
bool arch_inject_supported(char *why, size_t whylen);
/* Whether a running process can be served (run -p, --undo): the injected syscalls must
 * restore everything a thread stopped inside a syscall needs to restart it.  False with a
 * reason where the arch keeps some of that outside the general register set. */
bool arch_inject_attach_supported(char *why, size_t whylen);
const struct arch_vdso_entries *arch_inject_vdso_entries(void);
/* Symbols that must never be written: the signal-return trampolines and getrandom. */
bool arch_inject_symbol_forbidden(const char *name);
/* PTRACE_GETREGS / SETREGS equivalents; 0 or an errno value. */
int arch_inject_get_regs(pid_t pid, struct arch_regs *regs);
int arch_inject_set_regs(pid_t pid, const struct arch_regs *regs);
uint64_t arch_inject_pc(const struct arch_regs *regs);
/* The bytes of one syscall instruction, followed where the arch needs it by a breakpoint
 * that stops the tracee after it; returns their count (<= 8). */
size_t arch_inject_syscall_insn(uint8_t *out);
/* The ptrace request that runs those bytes once and stops: PTRACE_SINGLESTEP (x86_64), or
 * PTRACE_CONT up to the breakpoint (aarch64, riscv64: riscv has no single step). */
int arch_inject_syscall_resume(void);
/* `saved` changed to execute the syscall instruction at pc with number nr and args, as if
 * no syscall were in progress (so that no restart logic applies on the way out). */
void arch_inject_syscall_regs(struct arch_regs *out, const struct arch_regs *saved, uint64_t pc,
                              long nr, const long args[6]);
/* The syscall's return value after it ran. */
long arch_inject_syscall_result(const struct arch_regs *regs);
/* An absolute jump to target, to be written at address `at` (its length may depend on
 * at's alignment: a literal kept 8-byte aligned), that clobbers only registers the C ABI
 * lets a callee clobber and that the vDSO's callers do not keep anything in (x86_64: r11,
 * aarch64: x16, riscv64: t1); its length, or 0 if it does not fit in len.  A vDSO lies on
 * a page boundary, so an image offset has the alignment of the address. */
size_t arch_inject_abs_jump(uint8_t *out, size_t len, uint64_t at, uint64_t target);
/* A shorter jump from the instruction written at `from` to target, clobbering no register
 * (x86_64: jmp rel32, reaching +-2 GiB); its length, or 0 when target is out of its reach,
 * len is too small or the arch has none: then the absolute jump is written.  Never longer
 * than the absolute jump, so a site planned for that one holds it. */
size_t arch_inject_near_jump(uint8_t *out, size_t len, uint64_t from, uint64_t target);
/* Whether code (len bytes found at address `at`) begins with a jump this arch writes
 * (either form above), and its target: how run -p and --undo recognise an entry point
 * already served, whichever jump it got. */
bool arch_inject_jump_target(const uint8_t *code, size_t len, uint64_t at, uint64_t *target);

/* The self-healing step of run -p (run/run_heal.h).  A thread whose registers are set for an
 * injected syscall is exposed until its tracer puts them back: if the tracer dies (SIGKILL)
 * the kernel lets the thread go as it stands.  So the syscall runs from a stub written into
 * bytes of the tracee's vDSO that never execute (past the ELF's content, in its last page),
 * and after the syscall the stub puts the thread back by itself: the signal mask, every
 * register the step changed, and a jump to where the thread was.  While the tracer lives
 * the thread never runs past the syscall (it stops at the syscall's exit).
 *
 * home: the registers the thread resumes with: `saved` as a return to user mode would
 * leave them, i.e. a syscall it was interrupted in restarted as the kernel restarts it when
 * no handler runs (x86_64: rip back over the syscall instruction, rax the syscall's number
 * or restart_syscall), and no syscall in progress.  The stub's syscall instruction lies
 * at at + *step_off; it is len bytes at most; returns its length, 0 where the arch has no
 * stub or len is too small. */
void arch_inject_home_regs(struct arch_regs *home, const struct arch_regs *saved);
/* The syscall a stopped thread was in, when that syscall returns EINTR because of the stop
 * (its result is -EINTR: the kernel does not restart it); -1 otherwise. */
long arch_inject_eintr_syscall(const struct arch_regs *regs);
size_t arch_inject_heal_stub(uint8_t *out, size_t len, uint64_t at, const struct arch_regs *home,
                             uint64_t sigmask, size_t *step_off);

#endif
