/* SPDX-License-Identifier: MIT */
/* bench's answer line (bench/bench_answer.c): the path named from the figures, the ratio,
 * the parts left out when not measured, two levels said as such. */
#include "check.h"
#include "bench/bench_answer.h"

#include <math.h>
#include <string.h>

static struct answer_figure fig(double ns)
{
    return (struct answer_figure){.measured = true, .ns = ns};
}

TEST(bench_answer_says_the_cost_the_path_and_the_ratio)
{
    char buf[400];
    struct bench_answer_in in = {.libc = fig(23.0), .vdso = fig(21.0), .syscall = fig(245.0),
                                 .coarse = fig(4.6), .counter = fig(18.2),
                                 .counter_name = "rdtsc"};
    bench_answer(&in, buf, sizeof buf);
    CHECK(strcmp(buf, "clock_gettime(MONOTONIC) 23.0 ns through the vDSO; the syscall 245 ns "
                      "(10.7x); COARSE 4.60 ns; the counter read (rdtsc) 18.2 ns") == 0);
    /* a libc call as slow as the syscall is the syscall: no vDSO claim */
    in.libc = fig(240.0);
    bench_answer(&in, buf, sizeof buf);
    CHECK(strncmp(buf, "clock_gettime(MONOTONIC) 240 ns in the kernel (a syscall each time); "
                       "the syscall 245 ns (1.0x)", 87) == 0);
    /* two levels across processes: both said */
    in.libc = (struct answer_figure){.measured = true, .ns = 22.5, .bimodal = true,
                                     .low = 22.2, .high = 25.4};
    bench_answer(&in, buf, sizeof buf);
    CHECK(strstr(buf, "clock_gettime(MONOTONIC) 22.2 or 25.4 ns (bimodal across processes) "
                      "through the vDSO") == buf);
}

TEST(bench_answer_leaves_out_what_was_not_measured)
{
    char buf[400];
    struct bench_answer_in in = {.libc = fig(23.0)};
    bench_answer(&in, buf, sizeof buf);
    CHECK(strcmp(buf, "clock_gettime(MONOTONIC) 23.0 ns") == 0);
    struct bench_answer_in only_counter = {.counter = fig(7.25), .counter_name = "cntvct_el0"};
    bench_answer(&only_counter, buf, sizeof buf);
    CHECK(strcmp(buf, "the counter read (cntvct_el0) 7.25 ns") == 0);
    struct bench_answer_in other = {.fastest_id = "ref.empty_call", .fastest_ns = 1.1,
                                    .slowest_id = "ref.getppid", .slowest_ns = 12680};
    bench_answer(&other, buf, sizeof buf);
    CHECK(strcmp(buf, "fastest ref.empty_call 1.10 ns; slowest ref.getppid 12.68 \xc2\xb5s") == 0);
    struct bench_answer_in none = {.libc = {.measured = true, .ns = NAN}};
    bench_answer(&none, buf, sizeof buf);
    CHECK(buf[0] == 0);
}
