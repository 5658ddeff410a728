/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the JSON reader (src/common/json_read.c): no crash, no read past
 * the input, no leak; json_tree_parse accepts exactly what json_check accepts; and what it
 * accepts stays valid JSON when collect embeds it in the bundle (as a member value). */
#include "common/json_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char schema[64], why[200];
    char *copy = malloc(size ? size : 1);      /* exact size: ASan sees any over-read */
    memcpy(copy, data, size);
    bool ok = json_check(copy, size, schema, sizeof schema, why, sizeof why);
    char why_tree[200];
    struct json_node *tree = json_tree_parse(copy, size, why_tree, sizeof why_tree);
    if (!tree != !ok)
        abort();
    json_tree_free(tree);
    if (ok) {
        if (strnlen(schema, sizeof schema) == sizeof schema)
            abort();
        char *wrapped = malloc(size + 16);
        memcpy(wrapped, "{\"part\":", 8);
        memcpy(wrapped + 8, copy, size);
        memcpy(wrapped + 8 + size, "}", 1);
        /* One level deeper: accepted unless the document was already at the depth limit. */
        if (!json_check(wrapped, size + 9, NULL, 0, why, sizeof why) && !strstr(why, "deeply"))
            abort();
        free(wrapped);
    } else if (!why[0]) {
        abort();
    }
    free(copy);
    return 0;
}
