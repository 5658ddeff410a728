/* SPDX-License-Identifier: MIT */
/* What the reader `clockscope run` injects (src/run/reader/reader.c) needs of the arch,
 * freestanding and without relocations: the raw syscall, the address of its own code page,
 * a spin-wait hint and the clock syscalls' numbers.  One small header per arch, picked by
 * the target the reader is compiled for (as arch/counter.h). */
#ifndef CLOCKSCOPE_ARCH_READER_ARCH_H
#define CLOCKSCOPE_ARCH_READER_ARCH_H

#if defined(__x86_64__)
#include "arch/x86_64/reader_arch.h"
#elif defined(__aarch64__)
#include "arch/aarch64/reader_arch.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch/riscv64/reader_arch.h"
#else
#error "clockscope supports x86_64, aarch64 and riscv64"
#endif

#endif
