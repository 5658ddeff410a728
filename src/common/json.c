/* SPDX-License-Identifier: MIT */
#include "common/json.h"

#include <math.h>
#include <inttypes.h>

void json_init(struct json *j, FILE *out, int indent)
{
    j->out = out;
    j->depth = 0;
    j->need_comma[0] = false;
    j->after_key = false;
    j->indent = indent;
}

static void newline(struct json *j)
{
    if (!j->indent)
        return;
    fputc('\n', j->out);
    for (int i = 0; i < j->depth * j->indent; i++)
        fputc(' ', j->out);
}

/* Called before every value or key: emits the separator the position needs. */
static void before_item(struct json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (j->need_comma[j->depth])
            fputc(',', j->out);
        newline(j);
    }
    j->need_comma[j->depth] = true;
}

static void open(struct json *j, char c)
{
    before_item(j);
    fputc(c, j->out);
    if (j->depth < JSON_MAX_DEPTH - 1)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close(struct json *j, char c)
{
    bool had_items = j->need_comma[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (had_items)
        newline(j);
    fputc(c, j->out);
}

void json_begin_object(struct json *j) { open(j, '{'); }
void json_end_object(struct json *j) { close(j, '}'); }
void json_begin_array(struct json *j) { open(j, '['); }
void json_end_array(struct json *j) { close(j, ']'); }

/* The code point of a well-formed UTF-8 sequence at p (no overlong forms, no surrogates,
 * at most U+10FFFF) and its length in *n; -1 when p does not start one. */
static long utf8_decode(const unsigned char *p, int *n)
{
    long cp;
    long min;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        *n = 2, cp = p[0] & 0x1f, min = 0x80;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        *n = 3, cp = p[0] & 0x0f, min = 0x800;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        *n = 4, cp = p[0] & 0x07, min = 0x10000;
    else
        return -1;
    for (int i = 1; i < *n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return -1;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    return cp;
}

static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int n = 1;
        long cp = *p >= 0x80 ? utf8_decode(p, &n) : -1;
        if (cp >= 0x10000) { /* as a UTF-16 surrogate pair, the output stays ASCII */
            fprintf(out, "\\u%04lx\\u%04lx", 0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
            p += n - 1;
            continue;
        }
        if (cp >= 0) { /* a character written in UTF-8 (µ in "12.71 µs") */
            fprintf(out, "\\u%04lx", cp);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            /* Control bytes and bytes >= 0x80 that are not valid UTF-8 would make the
             * document invalid; kernel logs can contain either, so escape both. */
            if (*p < 0x20 || *p >= 0x7f)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
    before_item(j);
    write_escaped(j->out, key);
    fputs(j->indent ? ": " : ":", j->out);
    j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
    before_item(j);
    if (s)
        write_escaped(j->out, s);
    else
        fputs("null", j->out);
}

void json_int(struct json *j, int64_t v) { before_item(j); fprintf(j->out, "%" PRId64, v); }
void json_uint(struct json *j, uint64_t v) { before_item(j); fprintf(j->out, "%" PRIu64, v); }
void json_bool(struct json *j, bool v) { before_item(j); fputs(v ? "true" : "false", j->out); }
void json_null(struct json *j) { before_item(j); fputs("null", j->out); }

void json_raw(struct json *j, const char *text, size_t n)
{
    before_item(j);
    fwrite(text, 1, n, j->out);
}

void json_double(struct json *j, double v)
{
    before_item(j);
    if (isnan(v) || isinf(v))
        fputs("null", j->out);
    else
        fprintf(j->out, "%.10g", v);
}

void json_kv_string(struct json *j, const char *k, const char *v) { json_key(j, k); json_string(j, v); }
void json_kv_int(struct json *j, const char *k, int64_t v) { json_key(j, k); json_int(j, v); }
void json_kv_uint(struct json *j, const char *k, uint64_t v) { json_key(j, k); json_uint(j, v); }
void json_kv_double(struct json *j, const char *k, double v) { json_key(j, k); json_double(j, v); }
void json_kv_bool(struct json *j, const char *k, bool v) { json_key(j, k); json_bool(j, v); }
void json_kv_string_or_null(struct json *j, const char *k, const char *v)
{
    if (v && v[0])
        json_kv_string(j, k, v);
    else
        json_kv_null(j, k);
}

void json_kv_null(struct json *j, const char *k) { json_key(j, k); json_null(j); }

void json_finish(struct json *j)
{
    fputc('\n', j->out);
    fflush(j->out);
}
