/* SPDX-License-Identifier: MIT */
/* Text from elsewhere (a directory's entry names, an archive's member names) made safe for a
 * terminal and for line-oriented output: every control character, the newline included,
 * becomes '?', as the doctor's findings and the report's terminal text already do.  UTF-8
 * is kept, except its C1 controls (U+0080..U+009F, which some terminals obey). */
#ifndef CLOCKSCOPE_PRINTABLE_H
#define CLOCKSCOPE_PRINTABLE_H

#include <stddef.h>

/* in, made printable, into out (outlen bytes, always NUL-terminated); returns out. */
const char *printable_copy(char *out, size_t outlen, const char *in);

/* in as one POSIX shell word a person can paste: as is when every character is one no shell
 * treats specially (letters, digits, and _@%+=:,./-), else in single quotes, a ' inside
 * written '\''; the empty string is ''.  A word holding a control character is written
 * $'...' (bash, zsh, ksh and POSIX.1-2024 sh) with \n, \t, \r or \xHH escapes, so that it
 * pastes back exact and never breaks the line it is printed on.  A word
 * out cannot hold is cut and quoted, followed by "..." outside the quotes, so a cut word
 * never passes for the whole one; out is empty when it cannot hold even that.  Returns
 * out. */
const char *printable_shell_word(char *out, size_t outlen, const char *in);

#endif
