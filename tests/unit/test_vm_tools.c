/* The console tail kept for clockscope vm's error reports. */
#include "check.h"
#include "vm/tools.h"

#include <string.h>

TEST(text_tail_keeps_the_last_bytes)
{
    char buf[8] = "";
    text_tail_append(buf, sizeof buf, "abc", 3);
    CHECK(strcmp(buf, "abc") == 0);
    text_tail_append(buf, sizeof buf, "defgh", 5);
    CHECK(strcmp(buf, "bcdefgh") == 0);
    text_tail_append(buf, sizeof buf, "0123456789", 10);
    CHECK(strcmp(buf, "3456789") == 0);
    text_tail_append(buf, sizeof buf, "", 0);
    CHECK(strcmp(buf, "3456789") == 0);
    text_tail_append(buf, sizeof buf, "x", 1);
    CHECK(strcmp(buf, "456789x") == 0);
}
