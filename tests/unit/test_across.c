/* SPDX-License-Identifier: MIT */
/* Figures across worker processes (measure/across.c): the median, the spread across
 * processes, and two distinct levels called bimodal, on synthetic per-process figures. */
#include "check.h"
#include "measure/across.h"

#include <math.h>

TEST(across_two_levels_are_bimodal_not_one_figure)
{
    /* issue 29's Python time.time(): processes at 39-41 ns and at 70-72 ns */
    const double v[] = {71.0, 39.2, 40.1, 70.2, 39.8, 71.9, 40.6};
    struct across a;
    across_summarize(v, 7, &a);
    CHECK(a.n == 7);
    CHECK(a.bimodal);
    CHECK(a.nlow == 4 && a.nhigh == 3);
    CHECK(fabs(a.low - 39.95) < 1e-9);
    CHECK(fabs(a.high - 71.0) < 1e-9);
    CHECK(fabs(a.median - 40.6) < 1e-9);
    CHECK(a.min == 39.2 && a.max == 71.9);
    /* the input is left as it was */
    CHECK(v[0] == 71.0 && v[1] == 39.2);
}

TEST(across_one_level_with_noise_is_not_bimodal)
{
    /* libc's clock_gettime, one level with 3% noise: no split has a gap wider than its
     * groups, and the spread is the one across processes */
    const double v[] = {22.2, 22.5, 22.9, 22.4, 22.7, 22.3, 22.6, 22.8};
    struct across a;
    across_summarize(v, 8, &a);
    CHECK(!a.bimodal);
    CHECK(fabs(a.median - 22.55) < 1e-9);
    CHECK(a.spread > 0.01 && a.spread < 0.03);
}

TEST(across_a_lone_outlier_is_not_a_level)
{
    const double v[] = {39.0, 39.5, 40.0, 39.2, 71.0};
    struct across a;
    across_summarize(v, 5, &a);
    CHECK(!a.bimodal);
    CHECK(a.median == 39.5);
    CHECK(a.max == 71.0);
}

TEST(across_close_levels_are_not_called_distinct)
{
    /* two tight groups 5% apart: below ACROSS_LEVEL_RATIO, one level with some spread */
    const double v[] = {22.0, 22.01, 22.02, 23.1, 23.11, 23.12};
    struct across a;
    across_summarize(v, 6, &a);
    CHECK(!a.bimodal);
    /* 14% apart (issue 29's libc levels: 22 and 25 ns): distinct */
    const double w[] = {22.0, 22.1, 22.2, 25.1, 25.2, 25.3};
    across_summarize(w, 6, &a);
    CHECK(a.bimodal);
    CHECK(a.nlow == 3 && a.nhigh == 3);
}

TEST(across_few_or_no_processes)
{
    struct across a;
    across_summarize(NULL, 0, &a);
    CHECK(a.n == 0 && isnan(a.median) && !a.bimodal);
    const double one[] = {23.0};
    across_summarize(one, 1, &a);
    CHECK(a.n == 1 && a.median == 23.0 && a.spread == 0 && !a.bimodal);
    /* three processes cannot hold two levels of two */
    const double three[] = {40.0, 40.0, 70.0};
    across_summarize(three, 3, &a);
    CHECK(!a.bimodal);
    /* four can */
    const double four[] = {40.0, 40.5, 70.0, 70.5};
    across_summarize(four, 4, &a);
    CHECK(a.bimodal && a.low == 40.25 && a.high == 70.25);
}
