/* SPDX-License-Identifier: MIT */
/* The parser below may assume a valid document: json_check has accepted it first (syntax,
 * depth, UTF-8), so it only has to build nodes, never to diagnose. */
#include "vm/json_tree.h"
#include "collect/json_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *p, *end;
    bool oom;
};

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80)
        return (size_t)(o[0] = (char)cp, 1);
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* At the opening quote; the unescaped string (an escape never makes it longer). */
static char *parse_string(struct parser *ps)
{
    const char *s = ++ps->p;
    while (*ps->p != '"')
        ps->p += *ps->p == '\\' ? 2 : 1;
    size_t n = (size_t)(ps->p - s);
    ps->p++;
    char *out = malloc(n + 1), *o = out;
    if (!out) {
        ps->oom = true;
        return NULL;
    }
    for (const char *c = s; c < s + n; c++) {
        if (*c != '\\') {
            *o++ = *c;
            continue;
        }
        c++;
        switch (*c) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t cp = hex4(c + 1);
            c += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && c + 6 < s + n && c[1] == '\\' && c[2] == 'u') {
                uint32_t lo = hex4(c + 3);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    c += 6;
                }
            }
            o += put_utf8(o, cp);
            break;
        }
        default: *o++ = *c; break; /* " \ / */
        }
    }
    *o = 0;
    return out;
}

static struct json_node *parse_value(struct parser *ps)
{
    skip_ws(ps);
    struct json_node *n = calloc(1, sizeof *n);
    if (!n) {
        ps->oom = true;
        return NULL;
    }
    char c = *ps->p;
    if (c == '{' || c == '[') {
        n->type = c == '{' ? JSON_OBJECT : JSON_ARRAY;
        ps->p++;
        struct json_node **tail = &n->child;
        skip_ws(ps);
        while (*ps->p != (c == '{' ? '}' : ']') && !ps->oom) {
            char *key = NULL;
            if (c == '{') {
                key = parse_string(ps);
                skip_ws(ps);
                ps->p++; /* ':' */
            }
            struct json_node *v = parse_value(ps);
            if (!v) {
                free(key);
                break;
            }
            v->key = key;
            *tail = v;
            tail = &v->next;
            skip_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                skip_ws(ps);
            }
        }
        ps->p++;
    } else if (c == '"') {
        n->type = JSON_STRING;
        n->string = parse_string(ps);
    } else if (c == 't' || c == 'f') {
        n->type = JSON_BOOL;
        n->boolean = c == 't';
        ps->p += c == 't' ? 4 : 5;
    } else if (c == 'n') {
        n->type = JSON_NULL;
        ps->p += 4;
    } else {
        n->type = JSON_NUMBER;
        char *end;
        n->number = strtod(ps->p, &end);
        ps->p = end;
    }
    return n;
}

struct json_node *json_tree_parse(const char *text, size_t n, char *why, size_t wl)
{
    char schema[8];
    if (!json_check(text, n, schema, sizeof schema, why, wl))
        return NULL;
    /* strtod needs a terminated copy: the document may be followed by anything. */
    char *copy = malloc(n + 1);
    if (!copy) {
        snprintf(why, wl, "out of memory");
        return NULL;
    }
    memcpy(copy, text, n);
    copy[n] = 0;
    struct parser ps = {copy, copy + n, false};
    struct json_node *root = parse_value(&ps);
    free(copy);
    if (ps.oom) {
        json_tree_free(root);
        snprintf(why, wl, "out of memory");
        return NULL;
    }
    return root;
}

void json_tree_free(struct json_node *node)
{
    while (node) {
        struct json_node *next = node->next;
        json_tree_free(node->child);
        free(node->string);
        free(node->key);
        free(node);
        node = next;
    }
}

const struct json_node *json_get(const struct json_node *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    for (const struct json_node *c = obj->child; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

const struct json_node *json_at(const struct json_node *arr, size_t i)
{
    if (!arr || arr->type != JSON_ARRAY)
        return NULL;
    const struct json_node *c = arr->child;
    while (c && i--)
        c = c->next;
    return c;
}

size_t json_len(const struct json_node *arr)
{
    size_t n = 0;
    if (arr && arr->type == JSON_ARRAY)
        for (const struct json_node *c = arr->child; c; c = c->next)
            n++;
    return n;
}

const char *json_str(const struct json_node *node)
{
    return node && node->type == JSON_STRING ? node->string : NULL;
}

double json_num(const struct json_node *node, double def)
{
    return node && node->type == JSON_NUMBER ? node->number : def;
}
