/* SPDX-License-Identifier: MIT */
/* Streaming JSON writer: objects, arrays, strings escaped per RFC 8259.
 * It tracks nesting so callers never place commas by hand. */
#ifndef CLOCKSCOPE_JSON_H
#define CLOCKSCOPE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
    FILE *out;
    int depth;
    bool need_comma[JSON_MAX_DEPTH];
    bool after_key;
    int indent;           /* 0: compact; otherwise spaces per level */
};

void json_init(struct json *j, FILE *out, int indent);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);     /* NULL -> null */
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_double(struct json *j, double v);          /* NaN/inf -> null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A value that is already JSON text (n bytes, validated by the caller), placed as is. */
void json_raw(struct json *j, const char *text, size_t n);
/* Convenience: key + value in one call. */
void json_kv_string(struct json *j, const char *k, const char *v);
void json_kv_int(struct json *j, const char *k, int64_t v);
void json_kv_uint(struct json *j, const char *k, uint64_t v);
void json_kv_double(struct json *j, const char *k, double v);
void json_kv_bool(struct json *j, const char *k, bool v);
void json_kv_null(struct json *j, const char *k);
/* "k": v, or "k": null when v is NULL or "". */
void json_kv_string_or_null(struct json *j, const char *k, const char *v);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif
