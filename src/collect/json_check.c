/* SPDX-License-Identifier: MIT */
/* A recursive-descent JSON validator: no tree is built, nothing is allocated. */
#include "collect/json_check.h"

#include <stdio.h>
#include <string.h>

struct cursor {
    const unsigned char *p, *start, *end;
    int depth;
    const char *error;      /* static text: what was wrong at p */
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

static bool value(struct cursor *c, char *schema, size_t schemalen);

static bool container(struct cursor *c, bool object, char *schema, size_t schemalen)
{
    if (++c->depth > JSON_CHECK_MAX_DEPTH)
        return fail(c, "nested too deeply");
    bool top = c->depth == 1;
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
        if (object) {
            const unsigned char *k;
            size_t klen;
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
        if (!value(c, NULL, 0))
            return false;
        if (is_schema && schema && *at == '"')
            snprintf(schema, schemalen, "%.*s", (int)(c->p - at - 2), (const char *)at + 1);
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

static bool value(struct cursor *c, char *schema, size_t schemalen)
{
    skip_ws(c);
    if (c->p >= c->end)
        return fail(c, "a value was expected, the text ended");
    const unsigned char *s;
    size_t len;
    bool esc;
    switch (*c->p) {
    case '{': return container(c, true, schema, schemalen);
    case '[': return container(c, false, schema, schemalen);
    case '"': return string(c, &s, &len, &esc);
    case 't': return literal(c, "true");
    case 'f': return literal(c, "false");
    case 'n': return literal(c, "null");
    default:
        if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9'))
            return number(c);
        return fail(c, "unexpected character");
    }
}

bool json_check(const char *text, size_t n, char *schema, size_t schemalen, char *why,
                size_t whylen)
{
    struct cursor c = {(const unsigned char *)text, (const unsigned char *)text,
                       (const unsigned char *)text + n, 0, NULL};
    if (schema && schemalen)
        schema[0] = '\0';
    skip_ws(&c);
    if (c.p == c.end) {
        snprintf(why, whylen, "no output (an empty document)");
        return false;
    }
    bool ok = value(&c, schema, schemalen);
    if (ok) {
        skip_ws(&c);
        if (c.p != c.end) {
            ok = false;
            c.error = "more text after the document";
        }
    }
    if (!ok) {
        if (schema && schemalen)
            schema[0] = '\0';
        snprintf(why, whylen, "not JSON: %s at byte %zu", c.error ? c.error : "invalid",
                 (size_t)(c.p - c.start));
    }
    return ok;
}
