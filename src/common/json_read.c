/* SPDX-License-Identifier: MIT */
/* The one JSON reader (json_read.h): a recursive descent that checks every byte and, for
 * json_tree_parse, builds the nodes as it goes.  Each node is linked into the tree before
 * its contents are read, so that a document refused halfway is freed from its root. */
#include "common/json_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
    const unsigned char *p, *start, *end;
    int depth;
    const char *error;      /* static text: what was wrong at p */
    bool oom;               /* building, memory ran out */
};

static void skip_ws(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool fail(struct cursor *c, const char *error)
{
    if (!c->error)
        c->error = error;
    return false;
}

static bool literal(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return fail(c, "unexpected character");
    c->p += n;
    return true;
}

static bool digits(struct cursor *c)
{
    const unsigned char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > s ? true : fail(c, "a digit was expected");
}

static bool number(struct cursor *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;                         /* no leading zeros: "01" stops after the 0 */
    else if (!digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!digits(c))
            return false;
    }
    return true;
}

/* Length of the UTF-8 sequence starting at p (1-4), or 0 when it is not valid UTF-8
 * (overlong forms, surrogates and code points above U+10FFFF are rejected). */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char b = p[0];
    size_t n;
    unsigned min;
    unsigned cp;
    if (b < 0x80)
        return 1;
    if ((b & 0xe0) == 0xc0) { n = 2; cp = b & 0x1f; min = 0x80; }
    else if ((b & 0xf0) == 0xe0) { n = 3; cp = b & 0x0f; min = 0x800; }
    else if ((b & 0xf8) == 0xf0) { n = 4; cp = b & 0x07; min = 0x10000; }
    else return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static bool is_hex(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A string; its raw contents (between the quotes) go to *s, *len; *escaped when it has
 * escapes. */
static bool string(struct cursor *c, const unsigned char **s, size_t *len, bool *escaped)
{
    c->p++;                             /* the opening quote */
    *s = c->p;
    *escaped = false;
    while (c->p < c->end) {
        unsigned char ch = *c->p;
        if (ch == '"') {
            *len = (size_t)(c->p - *s);
            c->p++;
            return true;
        }
        if (ch < 0x20)
            return fail(c, "a control character inside a string");
        if (ch == '\\') {
            *escaped = true;
            if (c->end - c->p < 2)
                break;
            unsigned char e = c->p[1];
            if (e == 'u') {
                if (c->end - c->p < 6)
                    break;
                for (int i = 2; i < 6; i++)
                    if (!is_hex(c->p[i]))
                        return fail(c, "a bad \\u escape");
                c->p += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                c->p += 2;
            } else {
                return fail(c, "a bad escape");
            }
            continue;
        }
        size_t n = utf8_length(c->p, c->end);
        if (!n)
            return fail(c, "invalid UTF-8 inside a string");
        c->p += n;
    }
    return fail(c, "the text ends inside a string");
}

static unsigned hex4(const unsigned char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = s[i];
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

/* The \u escape at e (after its backslash) as a code point, a surrogate pair joined; *used
 * the escape's length in bytes from e. */
static uint32_t escaped_code_point(const unsigned char *e, const unsigned char *end, size_t *used)
{
    uint32_t cp = hex4(e + 1);
    *used = 5;
    if (cp >= 0xd800 && cp < 0xdc00 && end - e > 10 && e[5] == '\\' && e[6] == 'u') {
        uint32_t lo = hex4(e + 7);
        if (lo >= 0xdc00 && lo < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            *used = 11;
        }
    }
    return cp;
}

/* A checked string's raw contents, unescaped, in new memory (an escape never makes the
 * text longer); NULL when memory ran out. */
static char *unescape(struct cursor *c, const unsigned char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    if (!out) {
        c->oom = true;
        return NULL;
    }
    for (const unsigned char *p = s; p < s + n; p++) {
        if (*p != '\\') {
            *o++ = (char)*p;
            continue;
        }
        p++;
        switch (*p) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            size_t used;
            o += put_utf8(o, escaped_code_point(p, s + n, &used));
            p += used - 1;
            break;
        }
        default: *o++ = (char)*p; break; /* " \ / */
        }
    }
    *o = 0;
    return out;
}

/* A new node of `type` in *slot (where the tree wants it), or NULL when building nothing
 * (slot NULL) or memory ran out (c->oom). */
static struct json_node *new_node(struct cursor *c, struct json_node **slot, enum json_type type)
{
    if (!slot)
        return NULL;
    struct json_node *n = calloc(1, sizeof *n);
    if (!n) {
        c->oom = true;
        return NULL;
    }
    n->type = type;
    *slot = n;
    return n;
}

/* A checked number's text [s, c->p) as a double: strtod on a terminated copy (the document
 * may go on with anything, or end without a terminator). */
static bool number_value(struct cursor *c, const unsigned char *s, struct json_node *n)
{
    size_t len = (size_t)(c->p - s);
    char small[64], *copy = len < sizeof small ? small : malloc(len + 1);
    if (!copy) {
        c->oom = true;
        return false;
    }
    memcpy(copy, s, len);
    copy[len] = 0;
    n->number = strtod(copy, NULL);
    if (copy != small)
        free(copy);
    return true;
}

static bool value(struct cursor *c, struct json_node **slot, char *schema, size_t schemalen);

static bool container(struct cursor *c, struct json_node **slot, bool object, char *schema,
                      size_t schemalen)
{
    if (++c->depth > JSON_READ_MAX_DEPTH)
        return fail(c, "nested too deeply");
    bool top = c->depth == 1;
    struct json_node *node = new_node(c, slot, object ? JSON_OBJECT : JSON_ARRAY);
    if (c->oom)
        return fail(c, "out of memory");
    struct json_node **tail = node ? &node->child : NULL;
    c->p++;                             /* '{' or '[' */
    skip_ws(c);
    char close = object ? '}' : ']';
    if (c->p < c->end && *c->p == close) {
        c->p++;
        c->depth--;
        return true;
    }
    for (;;) {
        skip_ws(c);
        bool is_schema = false;
        const unsigned char *k = NULL;
        size_t klen = 0;
        if (object) {
            bool esc;
            if (c->p >= c->end || *c->p != '"')
                return fail(c, c->p >= c->end ? "the text ends inside an object"
                                              : "a member name (a string) was expected");
            if (!string(c, &k, &klen, &esc))
                return false;
            is_schema = top && !esc && klen == 6 && memcmp(k, "schema", 6) == 0;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':')
                return fail(c, "':' was expected after a member name");
            c->p++;
            skip_ws(c);
        }
        const unsigned char *at = c->p;
        if (!value(c, tail, NULL, 0))
            return false;
        if (is_schema && schema && *at == '"')
            snprintf(schema, schemalen, "%.*s", (int)(c->p - at - 2), (const char *)at + 1);
        if (tail) {
            if (k && !((*tail)->key = unescape(c, k, klen)))
                return fail(c, "out of memory");
            tail = &(*tail)->next;
        }
        skip_ws(c);
        if (c->p >= c->end)
            return fail(c, object ? "the text ends inside an object"
                                  : "the text ends inside an array");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        if (*c->p == close) {
            c->p++;
            c->depth--;
            return true;
        }
        return fail(c, object ? "',' or '}' was expected" : "',' or ']' was expected");
    }
}

/* A scalar: checked by `check`, then, when building, its node. */
static bool scalar(struct cursor *c, struct json_node **slot)
{
    const unsigned char *s = c->p, *raw;
    size_t len;
    bool esc, ok;
    enum json_type type;
    switch (*c->p) {
    case '"': ok = string(c, &raw, &len, &esc); type = JSON_STRING; break;
    case 't': ok = literal(c, "true"); type = JSON_BOOL; break;
    case 'f': ok = literal(c, "false"); type = JSON_BOOL; break;
    case 'n': ok = literal(c, "null"); type = JSON_NULL; break;
    default:
        if (*c->p != '-' && (*c->p < '0' || *c->p > '9'))
            return fail(c, "unexpected character");
        ok = number(c);
        type = JSON_NUMBER;
    }
    if (!ok || !slot)
        return ok;
    struct json_node *n = new_node(c, slot, type);
    if (n && type == JSON_STRING)
        n->string = unescape(c, raw, len);
    else if (n && type == JSON_BOOL)
        n->boolean = *s == 't';
    else if (n && type == JSON_NUMBER)
        number_value(c, s, n);
    return c->oom ? fail(c, "out of memory") : true;
}

/* One value; its node goes to *slot when building (slot not NULL). */
static bool value(struct cursor *c, struct json_node **slot, char *schema, size_t schemalen)
{
    skip_ws(c);
    if (c->p >= c->end)
        return fail(c, "a value was expected, the text ended");
    if (*c->p == '{' || *c->p == '[')
        return container(c, slot, *c->p == '{', schema, schemalen);
    return scalar(c, slot);
}

/* The whole document: one value and nothing after it; false with why. */
static bool document(struct cursor *c, struct json_node **slot, char *schema, size_t schemalen,
                     char *why, size_t whylen)
{
    skip_ws(c);
    if (c->p == c->end) {
        snprintf(why, whylen, "no output (an empty document)");
        return false;
    }
    bool ok = value(c, slot, schema, schemalen);
    if (ok) {
        skip_ws(c);
        if (c->p != c->end) {
            ok = false;
            c->error = "more text after the document";
        }
    }
    if (!ok && c->oom)
        snprintf(why, whylen, "out of memory");
    else if (!ok)
        snprintf(why, whylen, "not JSON: %s at byte %zu", c->error ? c->error : "invalid",
                 (size_t)(c->p - c->start));
    return ok;
}

bool json_check(const char *text, size_t n, char *schema, size_t schemalen, char *why,
                size_t whylen)
{
    struct cursor c = {(const unsigned char *)text, (const unsigned char *)text,
                       (const unsigned char *)text + n, 0, NULL, false};
    if (schema && schemalen)
        schema[0] = '\0';
    bool ok = document(&c, NULL, schema, schemalen, why, whylen);
    if (!ok && schema && schemalen)
        schema[0] = '\0';
    return ok;
}

struct json_node *json_tree_parse(const char *text, size_t n, char *why, size_t whylen)
{
    struct cursor c = {(const unsigned char *)text, (const unsigned char *)text,
                       (const unsigned char *)text + n, 0, NULL, false};
    struct json_node *root = NULL;
    if (!document(&c, &root, NULL, 0, why, whylen)) {
        json_tree_free(root);
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
