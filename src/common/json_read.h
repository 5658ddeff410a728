/* SPDX-License-Identifier: MIT */
/* The one JSON reader (RFC 8259), strict: one value, optionally surrounded by whitespace,
 * nested at most JSON_READ_MAX_DEPTH deep, strings valid UTF-8 without raw control
 * characters, nothing after it.  Two uses of the same parser:
 *   json_check       is this text one JSON document?  collect embeds each part's output in
 *                    the bundle as is, so a part that printed anything else must be caught,
 *                    or the whole bundle would be unreadable.  Builds nothing.
 *   json_tree_parse  the document as a tree with unescaped strings, for reading what a
 *                    guest's clockscope printed (`doctor --json` for `vm --apply-fix`).
 *                    Lookups on a missing node give NULL, so that a path can be followed
 *                    without a check at every step.
 * A text is refused with why saying what is wrong at which byte offset. */
#ifndef CLOCKSCOPE_COMMON_JSON_READ_H
#define CLOCKSCOPE_COMMON_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_READ_MAX_DEPTH 64

/* Checks that text[0..n) is exactly one JSON document.  When the value is an object whose
 * top level has a string member "schema", its value (unescaped only if it has no escapes;
 * otherwise as written) goes to schema (empty when there is none). */
bool json_check(const char *text, size_t n, char *schema, size_t schemalen, char *why,
                size_t whylen);

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_node {
    enum json_type type;
    bool boolean;
    double number;
    char *string;             /* JSON_STRING: the value */
    char *key;                /* the member's name when the parent is an object */
    struct json_node *child;  /* first element or member */
    struct json_node *next;   /* next sibling */
};

/* Parses text[0..n); NULL (why filled) when it is not one valid JSON document or memory
 * ran out.  Free the result with json_tree_free. */
struct json_node *json_tree_parse(const char *text, size_t n, char *why, size_t whylen);
void json_tree_free(struct json_node *node);

/* The member `key` of an object, the element `i` of an array, or NULL. */
const struct json_node *json_get(const struct json_node *obj, const char *key);
const struct json_node *json_at(const struct json_node *arr, size_t i);
size_t json_len(const struct json_node *arr);
/* The value if node has that type, else NULL / def. */
const char *json_str(const struct json_node *node);
double json_num(const struct json_node *node, double def);

#endif
