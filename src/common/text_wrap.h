/* SPDX-License-Identifier: MIT */
/* Prose for a terminal within TEXT_WIDTH columns: a label, words wrapped under a hanging
 * indent, a number never parted from its unit ("26.3 ns"), and a command a person may paste
 * never broken: inline in `backquotes`, or on a line of its own indented TEXT_COMMAND_INDENT
 * (the one kind of line that may be wider than TEXT_WIDTH). */
#ifndef CLOCKSCOPE_TEXT_WRAP_H
#define CLOCKSCOPE_TEXT_WRAP_H

#include <stddef.h>
#include <stdio.h>

#define TEXT_WIDTH 100
#define TEXT_COMMAND_INDENT 4

enum text_wrap_flags {
    /* `a backquoted span` is one word that is never broken, printed with its backquotes */
    TEXT_INLINE_COMMANDS = 0,
    /* a backquoted span is a command: printed on a line of its own, TEXT_COMMAND_INDENT
     * spaces in, without the backquotes and never wrapped; the prose around it wraps */
    TEXT_COMMAND_LINES = 1,
    /* backquotes are text (a value read from a machine); a word wider than a line is cut
     * into pieces that fit */
    TEXT_PLAIN = 2,
};

/* Prints label then text at indent spaces, continued on lines indented hang spaces, each
 * line at most width columns (µ and other UTF-8 characters count one) with no trailing
 * space; runs of spaces in text print as one, but in TEXT_PLAIN, where a line keeps them. */
void text_wrap(FILE *out, const char *label, const char *text, int indent, int hang, int width,
               enum text_wrap_flags flags);
/* text as written, but every line wider than width columns wrapped (as text_wrap, its
 * continuation two columns deeper than the line); trailing spaces dropped.  For a report
 * composed whole, whose tables already fit and whose prose may not. */
void text_fold(FILE *out, const char *text, int width);
/* s into buf, at most `columns` columns: as it is when it fits, else its head and tail
 * around "…" ("syscall.cl…putime_id"), for an id in a table's column.  Returns buf. */
const char *text_middle_cut(const char *s, int columns, char *buf, size_t len);
/* Terminal columns of n bytes of UTF-8 (one per character). */
int text_columns(const char *s, size_t n);
/* The length of text's first sentence, its full stop included: up to the first ". " whose
 * next word does not start in lower case and whose word is not an abbreviation ("e.g.",
 * "i.e.", "cf.", "vs."); strlen(text) when there is no such stop. */
size_t text_first_sentence(const char *text);

#endif
