/* SPDX-License-Identifier: MIT */
/* The counter libfastclock reads, inline: one small header per arch, picked by the target
 * the compiler builds for (the Makefile links the matching src/arch/<arch>.c).  Each
 * defines, for the hot path only,
 *   arch_counter_ordered()  ordered after every earlier load (as arch_fast_counter_ordered)
 *   arch_counter_raw()      unordered (as arch_fast_counter_raw)
 *   ARCH_WORD_CONSTANTS_IN_CODE  1 where a 64-bit constant is an instruction immediate
 * so that fastclock's readers make no call (issue 10).  Everything else about the arch is
 * behind arch/arch.h. */
#ifndef CLOCKSCOPE_ARCH_COUNTER_H
#define CLOCKSCOPE_ARCH_COUNTER_H

#if defined(__x86_64__)
#include "arch/x86_64/counter.h"
#elif defined(__aarch64__)
#include "arch/aarch64/counter.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch/riscv64/counter.h"
#else
#error "clockscope supports x86_64, aarch64 and riscv64"
#endif

#endif
