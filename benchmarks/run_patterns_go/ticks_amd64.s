// SPDX-License-Identifier: MIT
// The TSC, fenced: the read waits for the call being timed to finish (main.go).
#include "textflag.h"

// func ticks() uint64
TEXT ·ticks(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ DX, AX
	MOVQ AX, ret+0(FP)
	RET
