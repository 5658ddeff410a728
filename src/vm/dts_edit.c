/* SPDX-License-Identifier: MIT */
/* The lab's one edit of a device tree's source as dtc prints it: a property added to the
 * node of a compatible string (pure; unit-tested and fuzzed: tests/fuzz/fuzz_dts_edit.c). */
#include "vm/dts_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dts_add_property(const char *dts, size_t len, const char *compatible, const char *property,
                      char **out, size_t *out_len, char *why, size_t whylen)
{
    *out = NULL;
    size_t clen = strlen(compatible);
    if (!clen || clen > 200 || strpbrk(compatible, "\"\\\n") || !property[0] ||
        strlen(property) > 200 || strpbrk(property, "{};\"\n")) {
        snprintf(why, whylen, "bad compatible string or property");
        return false;
    }
    /* One entry of a compatible list, as dtc prints it: "a", "b" or "a\0b". */
    const char *hit = NULL;
    for (const char *p = dts; (p = memmem(p, len - (size_t)(p - dts), compatible, clen)); p += clen) {
        size_t at = (size_t)(p - dts), end = at + clen;
        bool starts = (at >= 1 && dts[at - 1] == '"') ||
                      (at >= 2 && dts[at - 2] == '\\' && dts[at - 1] == '0');
        bool ends = end < len && (dts[end] == '"' || (end + 1 < len && dts[end] == '\\' &&
                                                      dts[end + 1] == '0'));
        if (!starts || !ends)
            continue;
        const char *line = p;
        while (line > dts && line[-1] != '\n')
            line--;
        const char *key = line;
        while (key < p && (*key == ' ' || *key == '\t'))
            key++;
        if (strncmp(key, "compatible", 10) != 0)
            continue;
        if (hit) {
            snprintf(why, whylen, "more than one node is compatible with %s", compatible);
            return false;
        }
        hit = p;
    }
    if (!hit) {
        snprintf(why, whylen, "no node is compatible with %s", compatible);
        return false;
    }
    /* dtc prints a node's properties before its subnodes, so the nearest '{' before the
     * compatible property opens that node. */
    const char *open = hit;
    while (open > dts && open[-1] != '{')
        open--;
    if (open == dts) {
        snprintf(why, whylen, "the node compatible with %s has no opening brace", compatible);
        return false;
    }
    char insert[300];
    int in = snprintf(insert, sizeof insert, "\n\t\t%s;", property);
    if (in < 0 || (size_t)in >= sizeof insert) {
        snprintf(why, whylen, "property too long");
        return false;
    }
    size_t head = (size_t)(open - dts);
    *out_len = len + (size_t)in;
    *out = malloc(*out_len + 1);
    if (!*out) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    memcpy(*out, dts, head);
    memcpy(*out + head, insert, (size_t)in);
    memcpy(*out + head + in, dts + head, len - head);
    (*out)[*out_len] = '\0';
    return true;
}
