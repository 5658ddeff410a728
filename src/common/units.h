/* SPDX-License-Identifier: MIT */
/* One way to print a duration for a person, shared by the commands and the report
 * (report/clockscope_report/compare.py fmt_ns prints the same): 4.56 ns, 33.5 ns, 245 ns,
 * 12.71 µs, 1.20 ms, 2.50 s. */
#ifndef CLOCKSCOPE_UNITS_H
#define CLOCKSCOPE_UNITS_H

#include <stddef.h>

#define FORMAT_NS_MAX 32
/* Writes ns as above into buf (at least FORMAT_NS_MAX bytes is always enough) and returns
 * buf; "-" for a value that is not finite.  µ is UTF-8 (U+00B5). */
const char *format_ns(double ns, char *buf, size_t len);
/* For one printf argument: NS_TEXT(x) formats into a buffer that lives to the end of the
 * enclosing block. */
#define NS_TEXT(ns) format_ns((ns), (char[FORMAT_NS_MAX]){0}, FORMAT_NS_MAX)

#endif
