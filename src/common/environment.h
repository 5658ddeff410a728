/* SPDX-License-Identifier: MIT */
/* Every CLOCKSCOPE_* environment variable clockscope reads or sets, in one place, each with
 * what it does; nothing else in src/ spells one (tests/test_layering.py checks).  Three
 * kinds:
 *   settings    a user may set them: where things are found or kept;
 *   protocol    clockscope sets them for a process of its own (a worker, a probe, the
 *               shim in a program `run` starts): the contract between the two sides;
 *   test hooks  what the tests fake, each named for what it fakes and said in the output
 *               when it is used.  docs/testing.md says which test uses which. */
#ifndef CLOCKSCOPE_COMMON_ENVIRONMENT_H
#define CLOCKSCOPE_COMMON_ENVIRONMENT_H

/* ---- settings ------------------------------------------------------------------------- */
#define ENV_SHIM "CLOCKSCOPE_SHIM"                   /* run: libclockscope-shim.so's path */
#define ENV_CACHE_DIR "CLOCKSCOPE_CACHE_DIR"         /* vm: where kernels are kept */
#define ENV_VM_BINARY_DIR "CLOCKSCOPE_VM_BINARY_DIR" /* vm: the guests' static binaries */
#define ENV_CROSS_LIBDIR "CLOCKSCOPE_CROSS_LIBDIR"   /* vm --add: another arch's libraries */
#define ENV_PYTHON "CLOCKSCOPE_PYTHON"               /* report: the python3 to run */
#define ENV_REPORT_PATH "CLOCKSCOPE_REPORT_PATH"     /* report: where clockscope_report is */
#define ENV_PROBES "CLOCKSCOPE_PROBES"               /* runtimes: where probes are built */
#define ENV_RUSTC "CLOCKSCOPE_RUSTC"                 /* runtimes: the Rust compiler */

/* ---- protocol ------------------------------------------------------------------------- */
/* bench's parent -> a worker process: the run's number of processes, which makes this
 * bench a worker (a variable, not an option: no option meant for machines in the help). */
#define ENV_BENCH_WORKER "CLOCKSCOPE_BENCH_WORKER"
/* runtimes -> the C probe: "c" makes this binary, re-executed, the C probe (probe_c.c). */
#define ENV_RUNTIMES_PROBE "CLOCKSCOPE_RUNTIMES_PROBE"
/* runtimes -> a probe: the pairs its foreign-function rows time. */
#define ENV_PROBE_FFI_PAIRS "CLOCKSCOPE_PROBE_FFI_PAIRS"
/* run -> the shim (shim/shim.h says each value): the mode, the coarse clocks' mask, whether
 * programs it executes keep the shim, the wrapper script to follow, count mode's output
 * file, and --verbose. */
#define ENV_RUN_MODE "CLOCKSCOPE_RUN_MODE"
#define ENV_RUN_COARSE "CLOCKSCOPE_RUN_COARSE"
#define ENV_RUN_INHERIT "CLOCKSCOPE_RUN_INHERIT"
#define ENV_RUN_FOLLOW_PID "CLOCKSCOPE_RUN_FOLLOW_PID"
#define ENV_RUN_OUTPUT "CLOCKSCOPE_RUN_OUTPUT"
#define ENV_RUN_VERBOSE "CLOCKSCOPE_RUN_VERBOSE"

/* ---- test hooks ----------------------------------------------------------------------- */
/* run's and the shim's auto mode: 1 = the kernel path is slow here, 0 = fast (instead of
 * timing libc's call against the raw syscall). */
#define ENV_RUN_SLOW "CLOCKSCOPE_RUN_SLOW"
/* bench: the named method's measurement fails, so that a failed row's handling is seen. */
#define ENV_BENCH_FAULT "CLOCKSCOPE_BENCH_FAULT"
/* bench: the reference of process i of n scaled by 1 + F i / (n - 1) (F the value), as on a
 * machine whose speed falls through the run (measure/instability.h). */
#define ENV_TEST_REFERENCE_DRIFT "CLOCKSCOPE_TEST_REFERENCE_DRIFT"
/* warp: a clock that runs behind on one CPU, steps back, stalls or jumps (warp_fault.h). */
#define ENV_WARP_FAULT "CLOCKSCOPE_WARP_FAULT"
/* ladder: a rung that fails, hangs or dies on cue (ladder/fault.h). */
#define ENV_LADDER_FAULT "CLOCKSCOPE_LADDER_FAULT"
/* collect: the parts run with this program instead of this binary. */
#define ENV_COLLECT_SELF "CLOCKSCOPE_COLLECT_SELF"
/* vm --apply-fix: the guest doctor's JSON read from this file instead of a boot. */
#define ENV_APPLY_FIX_DOCTOR_JSON "CLOCKSCOPE_APPLY_FIX_DOCTOR_JSON"
/* common/beneath.c: 1 = openat2 taken as missing, so that the user-space fallback runs. */
#define ENV_TEST_NO_OPENAT2 "CLOCKSCOPE_TEST_NO_OPENAT2"

#endif
