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

/* A made-up vDSO-like image: headers, one segment and one section, zeros after them. */
static void made_up_image(uint8_t *img, size_t size)
{
    memset(img, 0, size);
    Elf64_Ehdr eh = {.e_phoff = 64, .e_phnum = 1, .e_phentsize = sizeof(Elf64_Phdr),
                     .e_shoff = 1024, .e_shnum = 2, .e_shentsize = sizeof(Elf64_Shdr)};
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    memcpy(img, &eh, sizeof eh);
    Elf64_Phdr ph = {.p_type = PT_LOAD, .p_offset = 0, .p_filesz = 1500};
    memcpy(img + 64, &ph, sizeof ph);
    Elf64_Shdr sh = {.sh_type = SHT_PROGBITS, .sh_offset = 1600, .sh_size = 100};
    memcpy(img + 1024 + sizeof sh, &sh, sizeof sh);
    memset(img + 1600, 0x90, 100);
}

TEST(run_vpatch_scratch_is_past_the_elf_content_and_zero)
{
    uint8_t img[4096];
    uint64_t off = 0;
    size_t room = 0;
    made_up_image(img, sizeof img);
    /* The section's end (1700), 64-aligned: everything after it is zero. */
    CHECK(run_vpatch_scratch(img, sizeof img, &off, &room) && off == 1728 && room == 4096 - 1728);
    /* A byte in the tail (something there: not scratch), a section reaching past the end, a
     * header table outside the image, not an ELF, an image shorter than its header. */
    img[sizeof img - 1] = 0xcc;
    CHECK(!run_vpatch_scratch(img, sizeof img, &off, &room));
    made_up_image(img, sizeof img);
    Elf64_Shdr sh = {.sh_type = SHT_PROGBITS, .sh_offset = 4000, .sh_size = 200};
    memcpy(img + 1024 + sizeof sh, &sh, sizeof sh);
    CHECK(!run_vpatch_scratch(img, sizeof img, &off, &room));
    made_up_image(img, sizeof img);
    ((Elf64_Ehdr *)(void *)img)->e_shoff = sizeof img - 8;
    CHECK(!run_vpatch_scratch(img, sizeof img, &off, &room));
    made_up_image(img, sizeof img);
    img[1] = 'X';
    CHECK(!run_vpatch_scratch(img, sizeof img, &off, &room));
    made_up_image(img, sizeof img);
    CHECK(!run_vpatch_scratch(img, 16, &off, &room));
    /* This process's own vDSO, where it has one (not under qemu-user): on x86_64, where
     * run -p writes its step there, the kernel's image has room past its content. */
    const struct vdso_live *v = vdso_live();
    if (v->present && run_vpatch_scratch(v->base, v->size, &off, &room)) {
        Elf64_Ehdr eh;
        memcpy(&eh, v->base, sizeof eh);
        CHECK(off >= eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize);
        CHECK(off % 64 == 0 && off + room == v->size);
        for (size_t i = 0; i < room; i++)
            CHECK(((const uint8_t *)v->base)[off + i] == 0);
    } else {
        CHECK(!v->present || !arch_inject_heal_stub(img, sizeof img, 0, &(struct arch_regs){{0}}, 0, &room));
    }
}

#if defined(__x86_64__)
#include <sys/user.h>

static void home_registers_restart_as_the_kernel_does(void)
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

static void stub_goes_home_by_itself(void)
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

TEST(run_heal_home_registers_restart_as_the_kernel_does)
{
#if defined(__x86_64__)
    home_registers_restart_as_the_kernel_does();
#else
    /* No stub on this arch (run -p is x86_64 only): home is the saved registers. */
    struct arch_regs saved, home;
    memset(&saved, 0x5a, sizeof saved);
    arch_inject_home_regs(&home, &saved);
    CHECK(!memcmp(&home, &saved, sizeof saved));
#endif
}

TEST(run_heal_stub_goes_home_by_itself)
{
#if defined(__x86_64__)
    stub_goes_home_by_itself();
#else
    uint8_t buf[512];
    size_t step = 0;
    struct arch_regs home;
    memset(&home, 0, sizeof home);
    CHECK(arch_inject_heal_stub(buf, sizeof buf, 0x10000, &home, 0, &step) == 0);
#endif
}
