/* SPDX-License-Identifier: MIT */
/* Prints units.c's three forms of each number on stdin, one line each, tab-separated:
 * tests/test_units_agree.py compares them with report/clockscope_report/units.py. */
#include "common/units.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char word[64];
    while (scanf("%63s", word) == 1) {
        double v = strtod(word, NULL);
        char ns[FORMAT_NS_MAX], num[FORMAT_NS_MAX], rate[FORMAT_NS_MAX], count[FORMAT_NS_MAX];
        printf("%s\t%s\t%s\t%s\n", units_format_ns(v, ns, sizeof ns),
               units_format_ns_number(v, num, sizeof num),
               units_format_rate(v, rate, sizeof rate), units_format_count(v, count, sizeof count));
    }
    return 0;
}
