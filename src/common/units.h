/* SPDX-License-Identifier: MIT */
/* One way to print durations, rates and counts for a person, shared by every command's text
 * and the report (report/clockscope_report/units.py prints the same strings): 4.56 ns,
 * 33.5 ns, 245 ns, 12.71 µs, 1.20 ms, 2.50 s; 45.1 M/s; 78.5 k. */
#ifndef CLOCKSCOPE_UNITS_H
#define CLOCKSCOPE_UNITS_H

#include <stddef.h>

#define FORMAT_NS_MAX 32
/* Writes ns as above into buf (at least FORMAT_NS_MAX bytes is always enough) and returns
 * buf: three significant digits below 1 µs, two decimals in µs, ms and s; a value that
 * rounds up to the next unit is printed in it (999.7 ns is "1.00 µs").  "-" for a value
 * that is not finite.  µ is UTF-8 (U+00B5). */
const char *units_format_ns(double ns, char *buf, size_t len);
/* The number of a table's ns column (its unit in the header): what units_format_ns prints
 * below 1 µs without " ns" ("4.40", "33.5", "245"), whole nanoseconds from 1 µs on. */
const char *units_format_ns_number(double ns, char *buf, size_t len);
/* Calls (or events) per second with three significant digits and an SI prefix after a
 * space: "950 /s", "1.20 k/s", "45.1 M/s", "2.05 G/s"; "-" when not finite. */
const char *units_format_rate(double per_second, char *buf, size_t len);
/* A count: a plain integer below 1000 ("999"), then three significant digits and an SI
 * prefix after a space ("1.00 k", "78.5 k", "10.0 M"); "-" when not finite. */
const char *units_format_count(double count, char *buf, size_t len);
/* The printf width that pads text to columns on a terminal: text's µ takes two bytes but
 * one column. */
int units_columns(int columns, const char *text);
/* "1 client", "2 clients": n and the noun, with an s unless n is 1. */
const char *units_plural(long long n, const char *noun, char *buf, size_t len);

/* For one printf argument: NS_TEXT(x) (RATE_TEXT, COUNT_TEXT) formats into a buffer that
 * lives to the end of the enclosing block. */
#define NS_TEXT(ns) units_format_ns((ns), (char[FORMAT_NS_MAX]){0}, FORMAT_NS_MAX)
#define RATE_TEXT(r) units_format_rate((r), (char[FORMAT_NS_MAX]){0}, FORMAT_NS_MAX)
#define COUNT_TEXT(n) units_format_count((n), (char[FORMAT_NS_MAX]){0}, FORMAT_NS_MAX)

#endif
