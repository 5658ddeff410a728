/* SPDX-License-Identifier: MIT */
/* The ladder's text within 100 columns: long prose lines folded at spaces, a number kept
 * with its unit, no trailing spaces; and ids shortened in the middle to fit a column. */
#ifndef CLOCKSCOPE_LADDER_TEXT_FIT_H
#define CLOCKSCOPE_LADDER_TEXT_FIT_H

#include <stddef.h>
#include <stdio.h>

#define TEXT_FIT_COLUMNS 100

/* Writes text to out with every line at most `columns` columns (a UTF-8 character is one
 * column): a longer line is folded at a space (never between a number and its unit), its
 * continuation indented two more than the line; a word longer than a line stays whole. */
void text_fit(FILE *out, const char *text, int columns);
/* id into buf, at most `columns` columns: kept when it fits, else its start and end with
 * "…" between ("syscall.clock_…process_cputime_id"). */
void text_fit_id(const char *id, int columns, char *buf, size_t len);
/* Columns of a UTF-8 string (continuation bytes not counted). */
int text_fit_width(const char *s, size_t n);

#endif
