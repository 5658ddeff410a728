/* SPDX-License-Identifier: MIT */
/* Encoding and strict decoding of console frames (see frame.h). */
#include "vm/frame.h"

#include <stdio.h>
#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

uint32_t frame_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

size_t frame_encode(char kind, uint64_t seq, const void *data, size_t len, char *line)
{
    const unsigned char *p = data;
    int n = snprintf(line, FRAME_MAX_LINE, "%s%c %llu %zu %08x ", FRAME_TAG, kind,
                     (unsigned long long)seq, len, (unsigned)frame_hash(data, len));
    size_t o = (size_t)n;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        line[o++] = b64[(v >> 18) & 63];
        line[o++] = b64[(v >> 12) & 63];
        line[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        line[o++] = i + 2 < len ? b64[v & 63] : '=';
    }
    if (len == 0)
        line[o++] = '-'; /* an empty payload still has a field */
    line[o++] = '\n';
    return o;
}

static int b64_value(char c)
{
    const char *at = c ? strchr(b64, c) : NULL;
    return at ? (int)(at - b64) : -1;
}

/* Parses a decimal field ending in a space; advances *p past the space. */
static bool parse_field(const char **p, const char *end, int base, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;
    int digits = 0;
    for (; s < end && *s != ' '; s++, digits++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else
            return false;
        if (v > (max - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    /* One spelling per number, as frame_encode writes it: decimal without leading zeros,
     * hex as exactly 8 digits. */
    if (digits == 0 || digits > 20 || s >= end ||
        (base == 10 && digits > 1 && **p == '0') || (base == 16 && digits != 8))
        return false;
    *p = s + 1;
    *out = v;
    return true;
}

int frame_decode(const char *line, size_t n, struct frame *f)
{
    const char *tag = NULL;
    size_t taglen = sizeof FRAME_TAG - 1;
    for (size_t i = 0; i + taglen <= n; i++)
        if (memcmp(line + i, FRAME_TAG, taglen) == 0) {
            tag = line + i;
            break;
        }
    if (!tag)
        return 0;
    const char *end = line + n;
    while (end > tag && (end[-1] == '\r' || end[-1] == '\n'))
        end--;
    const char *p = tag + taglen;
    if (end - p < 2 || !strchr("oexmsr", *p) || *p == '\0' || p[1] != ' ')
        return -1;
    f->kind = *p;
    p += 2;
    uint64_t seq, len, hash;
    if (!parse_field(&p, end, 10, UINT64_MAX, &seq) ||
        !parse_field(&p, end, 10, FRAME_MAX_PAYLOAD, &len) ||
        !parse_field(&p, end, 16, UINT32_MAX, &hash))
        return -1;
    f->seq = seq;
    f->len = (size_t)len;
    size_t chars = (size_t)(end - p);
    if (len == 0) {
        if (chars != 1 || *p != '-')
            return -1;
    } else {
        if (chars != 4 * ((len + 2) / 3))
            return -1;
        size_t o = 0;
        for (size_t i = 0; i < chars; i += 4) {
            int v[4];
            for (int k = 0; k < 4; k++)
                v[k] = p[i + k] == '=' ? -2 : b64_value(p[i + k]);
            size_t take = len - o < 3 ? len - o : 3;
            /* '=' only as padding of the last group, exactly where len says. */
            if (v[0] < 0 || v[1] < 0 || (take >= 2 ? v[2] < 0 : v[2] != -2) ||
                (take == 3 ? v[3] < 0 : v[3] != -2))
                return -1;
            uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 |
                         (uint32_t)(v[2] < 0 ? 0 : v[2]) << 6 | (uint32_t)(v[3] < 0 ? 0 : v[3]);
            /* Canonical encoding only: the bits padding leaves unused must be zero, so
             * that exactly one line encodes each payload. */
            if ((take == 1 && (w & 0xffff)) || (take == 2 && (w & 0xff)))
                return -1;
            f->data[o++] = (unsigned char)(w >> 16);
            if (take >= 2)
                f->data[o++] = (unsigned char)(w >> 8);
            if (take == 3)
                f->data[o++] = (unsigned char)w;
        }
        if (o != len)
            return -1;
    }
    f->data[len] = '\0';
    if (frame_hash(f->data, f->len) != (uint32_t)hash)
        return -1;
    return 1;
}
