/* SPDX-License-Identifier: MIT */
/* Is this text one JSON document (RFC 8259)?  collect embeds each part's output in the
 * bundle as is, so a part that printed anything else must be caught here, or the whole
 * bundle would be unreadable. */
#ifndef CLOCKSCOPE_JSON_CHECK_H
#define CLOCKSCOPE_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_CHECK_MAX_DEPTH 64

/* Checks that text[0..n) is exactly one JSON value, optionally surrounded by whitespace,
 * nested at most JSON_CHECK_MAX_DEPTH deep, strings valid UTF-8 without raw control
 * characters.  When the value is an object whose top level has a string member "schema",
 * its value (unescaped only if it has no escapes; otherwise as written) goes to schema
 * (empty when there is none).  On failure, why says what and at which byte offset. */
bool json_check(const char *text, size_t n, char *schema, size_t schemalen, char *why,
                size_t whylen);

#endif
