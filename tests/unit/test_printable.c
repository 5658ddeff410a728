/* SPDX-License-Identifier: MIT */
/* common/printable: control characters (the newline, ESC, DEL, UTF-8's C1) become '?',
 * the rest of UTF-8 is kept, the output is always terminated within its size. */
#include "check.h"
#include "common/printable.h"

#include <string.h>

TEST(printable_replaces_controls_keeps_utf8)
{
    char out[64];
    CHECK(strcmp(printable_copy(out, sizeof out, "a\nb\x1b[31m\x7f"), "a?b?[31m?") == 0);
    CHECK(strcmp(printable_copy(out, sizeof out, "caf\xc3\xa9"), "caf\xc3\xa9") == 0);
    CHECK(strcmp(printable_copy(out, sizeof out, "x\xc2\x85y\xc2\xa0z"), "x?y\xc2\xa0z") == 0);
    CHECK(strcmp(printable_copy(out, 4, "abcdef"), "abc") == 0);
    CHECK(strcmp(printable_copy(out, sizeof out, "end\xc2"), "end\xc2") == 0);
}

/* A shell word: plain words as they are, anything else single-quoted so that a POSIX shell
 * gives back the same argument; never unterminated when cut. */
TEST(printable_shell_word_quotes_what_a_shell_would_split)
{
    char out[64];
    CHECK(strcmp(printable_shell_word(out, sizeof out, "python3"), "python3") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "-c"), "-c") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "/usr/bin/x,y=1:2"), "/usr/bin/x,y=1:2") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "import time"), "'import time'") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "for i in 1; do :; done"),
                 "'for i in 1; do :; done'") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "it's"), "'it'\\''s'") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, ""), "''") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "$HOME*"), "'$HOME*'") == 0);
    /* A control character: $'...' with escapes, exact when pasted, one line when printed. */
    CHECK(strcmp(printable_shell_word(out, sizeof out, "a\nb"), "$'a\\nb'") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "x\t'\\\x1b"), "$'x\\t\\'\\\\\\x1b'") == 0);
    CHECK(strcmp(printable_shell_word(out, sizeof out, "c1 \xc2\x85"), "$'c1 \\xc2\\x85'") == 0);
    CHECK(strcmp(printable_shell_word(out, 10, "a\nbcdef"), "$'a\\n'...") == 0);
    /* Cut: never a word that passes for the whole one. */
    CHECK(strcmp(printable_shell_word(out, 11, "a b c d e"), "'a b c'...") == 0);
    CHECK(strcmp(printable_shell_word(out, 9, "abcdefghij"), "'abc'...") == 0);
    CHECK(strcmp(printable_shell_word(out, 10, "it's it's"), "'it'...") == 0);
    CHECK(strcmp(printable_shell_word(out, 6, "a b"), "'a b'") == 0);
    CHECK(strcmp(printable_shell_word(out, 6, "a b c"), "") == 0);
    CHECK(strcmp(printable_shell_word(out, 4, "abc"), "abc") == 0);
    CHECK(strcmp(printable_shell_word(out, 2, "a b"), "") == 0);
    /* Longer than any fixed buffer: the whole word, quoted. */
    char big[3000], word[7000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    big[1500] = ' ';
    printable_shell_word(word, sizeof word, big);
    CHECK(strlen(word) == sizeof big + 1 && word[0] == '\'' && word[sizeof big] == '\'');
}
