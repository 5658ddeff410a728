/* SPDX-License-Identifier: MIT */
#include "common/trap_guard.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

static sigjmp_buf guard_env;
static volatile sig_atomic_t guard_signal;

static void on_trap(int sig)
{
    guard_signal = sig;
    siglongjmp(guard_env, 1);
}

bool trap_guard_read(uint64_t (*read)(void), uint64_t *value, int *signo)
{
    struct sigaction sa, old_ill, old_segv;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_trap;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGILL, &sa, &old_ill);
    sigaction(SIGSEGV, &sa, &old_segv);
    guard_signal = 0;
    volatile bool ok = false;
    if (sigsetjmp(guard_env, 1) == 0) {
        uint64_t v = read();
        if (value)
            *value = v;
        ok = true;
    }
    sigaction(SIGILL, &old_ill, NULL);
    sigaction(SIGSEGV, &old_segv, NULL);
    if (!ok && signo)
        *signo = guard_signal;
    return ok;
}
