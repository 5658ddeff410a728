/* SPDX-License-Identifier: MIT */
/* run -p's self-healing step (run/run_heal.h, arch/inject.h): the scratch bytes of a vDSO
 * image it is written to, the home registers (a syscall the thread was interrupted in
 * restarted as the kernel restarts it), and the stub's way home executed in this process:
 * every register a step changes and the signal mask put back, a jump to the home pc. */
#include "check.h"
#include "arch/inject.h"
#include "run/run_vpatch.h"
#include "vdso/vdso.h"

#include <elf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

TEST(run_vpatch_scratch_is_past_the_elf_content_and_zero)
{
    const struct vdso_live *v = vdso_live();
    if (!v->present)
        SKIP("no vDSO in this process (qemu-user)");
    const uint8_t *img = v->base;
    uint64_t off = 0;
    size_t room = 0;
    CHECK(run_vpatch_scratch(img, v->size, &off, &room));
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    CHECK(off >= eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize);
    CHECK(off % 64 == 0 && off + room == v->size && room > 0);
    for (size_t i = 0; i < room; i++)
        CHECK(img[off + i] == 0);
    /* Doctored copies: a byte in the tail (something there: not scratch), a section
     * reaching the end, a header table outside the image, not an ELF. */
    uint8_t *c = malloc(v->size);
    memcpy(c, img, v->size);
    c[v->size - 1] = 0xcc;
    CHECK(!run_vpatch_scratch(c, v->size, &off, &room));
    memcpy(c, img, v->size);
    Elf64_Ehdr *e = (Elf64_Ehdr *)c;
    e->e_shoff = v->size - 8;
    CHECK(!run_vpatch_scratch(c, v->size, &off, &room));
    memcpy(c, img, v->size);
    c[1] = 'X';
    CHECK(!run_vpatch_scratch(c, v->size, &off, &room));
    CHECK(!run_vpatch_scratch(img, 16, &off, &room));
    free(c);
}

#if defined(__x86_64__)
#include <sys/user.h>

TEST(run_heal_home_registers_restart_as_the_kernel_does)
{
    struct arch_regs saved, home;
    struct user_regs_struct *s = (struct user_regs_struct *)&saved;
    const struct user_regs_struct *h = (const struct user_regs_struct *)&home;
    static const struct {
        long orig, rax;
        unsigned long want_rax;
        int back;
    } cases[] = {
        {SYS_read, -512, SYS_read, 2},                  /* -ERESTARTSYS */
        {SYS_futex, -513, SYS_futex, 2},                /* -ERESTARTNOINTR */
        {SYS_rt_sigsuspend, -514, SYS_rt_sigsuspend, 2}, /* -ERESTARTNOHAND */
        {SYS_nanosleep, -516, SYS_restart_syscall, 2},  /* -ERESTART_RESTARTBLOCK */
        {SYS_read, 5, 5, 0},                            /* returned */
        {SYS_epoll_wait, -4, (unsigned long)-4, 0},     /* -EINTR: returned as such */
        {-1, -512, (unsigned long)-512, 0},             /* not in a syscall */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&saved, 0, sizeof saved);
        s->rip = 0x401000, s->orig_rax = (unsigned long)cases[i].orig;
        s->rax = (unsigned long)cases[i].rax, s->rbx = 77;
        arch_inject_home_regs(&home, &saved);
        CHECK(h->rax == cases[i].want_rax);
        CHECK(h->rip == 0x401000 - (unsigned long)cases[i].back);
        CHECK(h->orig_rax == (unsigned long)-1 && h->rbx == 77);
    }
}

/* The stub run in this process: entered at its syscall instruction with rax = getpid, as
 * a thread let go mid-step would; it must block what its data's mask says, load every
 * register a step changes from its data and jump to the home pc, heal_landing, which
 * records them and returns to heal_enter's caller. */
uint64_t heal_seen[9], heal_return;
void heal_landing(void);
long heal_enter(uint64_t pc);
__asm__(".text\n"
        ".globl heal_landing\n"
        "heal_landing:\n"
        "  mov %rax, heal_seen+0(%rip)\n"
        "  mov %rcx, heal_seen+8(%rip)\n"
        "  mov %rdx, heal_seen+16(%rip)\n"
        "  mov %rsi, heal_seen+24(%rip)\n"
        "  mov %rdi, heal_seen+32(%rip)\n"
        "  mov %r8, heal_seen+40(%rip)\n"
        "  mov %r9, heal_seen+48(%rip)\n"
        "  mov %r10, heal_seen+56(%rip)\n"
        "  mov %r11, heal_seen+64(%rip)\n"
        "  jmp *heal_return(%rip)\n"
        ".globl heal_enter\n"
        "heal_enter:\n"
        "  lea 1f(%rip), %rax\n"
        "  mov %rax, heal_return(%rip)\n"
        "  mov $39, %eax\n" /* getpid: the step's syscall */
        "  jmp *%rdi\n"
        "1:\n"
        "  ret\n");

TEST(run_heal_stub_goes_home_by_itself)
{
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    struct arch_regs home;
    memset(&home, 0, sizeof home);
    struct user_regs_struct *h = (struct user_regs_struct *)&home;
    h->rax = 0x1111, h->rcx = 0x2222, h->rdx = 0x3333, h->rsi = 0x4444, h->rdi = 0x5555;
    h->r8 = 0x6666, h->r9 = 0x7777, h->r10 = 0x8888, h->r11 = 0x9999;
    h->rip = (uint64_t)(uintptr_t)heal_landing;
    sigset_t none, was, now;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, &was);
    uint64_t mask = 1ull << (SIGUSR2 - 1);
    size_t step = 0;
    uint64_t at = (uint64_t)(uintptr_t)page + 256;
    CHECK(arch_inject_heal_stub(page + 256, 100, at, &home, mask, &step) == 0); /* too small */
    CHECK(arch_inject_heal_stub(page + 256, 512, at + 8, &home, mask, &step) == 0); /* unaligned */
    size_t n = arch_inject_heal_stub(page + 256, 512, at, &home, mask, &step);
    CHECK(n > step && n <= 256 && page[256 + step] == 0x0f && page[256 + step + 1] == 0x05);
    CHECK(mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0);
    heal_enter(at + step);
    sigprocmask(SIG_SETMASK, &was, &now);
    CHECK(sigismember(&now, SIGUSR2) && !sigismember(&now, SIGUSR1));
    const uint64_t want[9] = {0x1111, 0x2222, 0x3333, 0x4444, 0x5555, 0x6666, 0x7777, 0x8888, 0x9999};
    for (int i = 0; i < 9; i++)
        CHECK(heal_seen[i] == want[i]);
    munmap(page, 4096);
}
#endif
