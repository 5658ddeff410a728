/* SPDX-License-Identifier: MIT */
/* A JSON document as a tree, for reading what a guest's clockscope printed (`doctor
 * --json` for `vm --apply-fix`).  The text is first checked strictly (collect/json_check.c);
 * then this builds nodes with unescaped strings.  Lookups on a missing node give NULL, so a
 * path can be followed without a check at every step. */
#ifndef CLOCKSCOPE_VM_JSON_TREE_H
#define CLOCKSCOPE_VM_JSON_TREE_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_node {
    enum json_type type;
    bool boolean;
    double number;
    char *string;             /* JSON_STRING: the value; in an object's member: its key */
    char *key;                /* the member's name when the parent is an object */
    struct json_node *child;  /* first element or member */
    struct json_node *next;   /* next sibling */
};

/* Parses text[0..n); NULL (why filled) when it is not one valid JSON document.  Free the
 * result with json_tree_free. */
struct json_node *json_tree_parse(const char *text, size_t n, char *why, size_t wl);
void json_tree_free(struct json_node *node);

/* The member `key` of an object, the element `i` of an array, or NULL. */
const struct json_node *json_get(const struct json_node *obj, const char *key);
const struct json_node *json_at(const struct json_node *arr, size_t i);
size_t json_len(const struct json_node *arr);
/* The value if node has that type, else NULL / def. */
const char *json_str(const struct json_node *node);
double json_num(const struct json_node *node, double def);

#endif
