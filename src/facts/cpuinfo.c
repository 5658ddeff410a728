/* SPDX-License-Identifier: MIT */
#include "facts/cpuinfo.h"

#include <stdio.h>
#include <string.h>

/* Copies [s, s+n) into out, trimming spaces and replacing unprintable bytes. */
static void copy_value(char *out, size_t cap, const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    out[n] = 0;
}

static bool key_is(const char *k, size_t kl, const char *want)
{
    return strlen(want) == kl && strncmp(k, want, kl) == 0;
}

void cpuinfo_parse(const char *text, size_t len, struct cpuinfo *out)
{
    memset(out, 0, sizeof *out);
    size_t pos = 0;
    while (text && pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        const char *colon = memchr(line, ':', n);
        if (!colon)
            continue;
        size_t kl = (size_t)(colon - line);
        while (kl > 0 && (line[kl - 1] == ' ' || line[kl - 1] == '\t'))
            kl--;
        const char *v = colon + 1;
        size_t vl = n - (size_t)(v - line);
        out->parsed = true;
        if (key_is(line, kl, "processor") || key_is(line, kl, "hart"))
            out->processors++;
        char *dst = NULL;
        size_t cap = 0;
        const char *family = NULL;
        if (key_is(line, kl, "flags")) {
            dst = out->flags, cap = sizeof out->flags, family = "x86";
        } else if (key_is(line, kl, "Features")) {
            dst = out->flags, cap = sizeof out->flags, family = "arm";
        } else if (key_is(line, kl, "isa")) {
            dst = out->flags, cap = sizeof out->flags, family = "riscv";
        } else if (key_is(line, kl, "vendor_id")) {
            dst = out->vendor, cap = sizeof out->vendor, family = "x86";
        } else if (key_is(line, kl, "CPU implementer")) {
            dst = out->vendor, cap = sizeof out->vendor, family = "arm";
        } else if (key_is(line, kl, "mvendorid")) {
            dst = out->vendor, cap = sizeof out->vendor, family = "riscv";
        } else if (key_is(line, kl, "model name") || key_is(line, kl, "cpu model")) {
            dst = out->model, cap = sizeof out->model;
        } else if (key_is(line, kl, "CPU part") && !out->model[0]) {
            dst = out->model, cap = sizeof out->model, family = "arm";
        } else if (key_is(line, kl, "uarch")) {
            dst = out->hardware, cap = sizeof out->hardware, family = "riscv";
        } else if (key_is(line, kl, "Hardware")) {
            dst = out->hardware, cap = sizeof out->hardware;
        } else if (key_is(line, kl, "mmu") && memmem(v, vl, "sv", 2)) {
            family = "riscv";
        }
        if (key_is(line, kl, "model name") && !out->model_name[0])
            copy_value(out->model_name, sizeof out->model_name, v, vl);
        if (key_is(line, kl, "CPU part") && !out->part[0])
            copy_value(out->part, sizeof out->part, v, vl);
        if (family && !out->family[0])
            snprintf(out->family, sizeof out->family, "%s", family);
        if (dst && !dst[0])
            copy_value(dst, cap, v, vl);
    }
}

bool cpuinfo_has_flag(const struct cpuinfo *c, const char *flag)
{
    size_t fl = strlen(flag);
    if (fl == 0)
        return false;
    for (const char *p = c->flags; (p = strstr(p, flag)) != NULL; p += fl) {
        bool start = p == c->flags || p[-1] == ' ';
        bool end = p[fl] == 0 || p[fl] == ' ';
        if (start && end)
            return true;
    }
    return false;
}
