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
