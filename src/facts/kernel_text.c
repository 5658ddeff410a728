/* SPDX-License-Identifier: MIT */
#include "facts/kernel_text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cmdline_param(const char *cmdline, const char *key, char *value, size_t len)
{
    bool found = false;
    size_t kl = strlen(key);
    const char *p = cmdline;
    if (len)
        value[0] = 0;
    while (p && *p) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        const char *tok = p;
        bool quoted = false;
        while (*p && (quoted || !isspace((unsigned char)*p))) {
            if (*p == '"')
                quoted = !quoted;
            p++;
        }
        size_t tl = (size_t)(p - tok);
        if (tl >= kl && strncmp(tok, key, kl) == 0 && (tl == kl || tok[kl] == '=')) {
            found = true;
            if (len) {
                const char *v = tl == kl ? tok + tl : tok + kl + 1;
                size_t vl = (size_t)(tok + tl - v);
                size_t w = 0;
                for (size_t i = 0; i < vl && w + 1 < len; i++)
                    if (v[i] != '"')
                        value[w++] = v[i];
                value[w] = 0;
            }
        }
    }
    return found;
}

static bool parse_release(const char *s, struct kernel_version *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    long maj = strtol(s, &end, 10);
    if (*end != '.' || !isdigit((unsigned char)end[1]) || maj < 1 || maj > 99)
        return false;
    long min = strtol(end + 1, &end, 10);
    long pat = 0;
    if (*end == '.' && isdigit((unsigned char)end[1]))
        pat = strtol(end + 1, &end, 10);
    if (min < 0 || min > 999 || pat < 0 || pat > 99999)
        return false;
    out->known = true;
    out->major = (int)maj;
    out->minor = (int)min;
    out->patch = (int)pat;
    size_t n = strcspn(s, " \t\r\n");
    if (n >= sizeof out->release)
        n = sizeof out->release - 1;
    memcpy(out->release, s, n);
    out->release[n] = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)out->release[i] < 0x20 || (unsigned char)out->release[i] >= 0x7f)
            out->release[i] = '?';
    return true;
}

/* The n-th (0-based) whitespace-separated token of s, or NULL. */
static const char *token(const char *s, int n)
{
    for (int i = 0;; i++) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (!*s)
            return NULL;
        if (i == n)
            return s;
        while (*s && !isspace((unsigned char)*s))
            s++;
    }
}

void kernel_version_parse(const char *text, struct kernel_version *out)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return;
    const char *v = strstr(text, "Linux version ");
    if (v && parse_release(v + strlen("Linux version "), out))
        return;
    const char *t0 = token(text, 0);
    if (t0 && strncmp(t0, "Linux ", 6) == 0) {
        const char *t2 = token(text, 2); /* uname -a: Linux HOST RELEASE ... */
        if (t2 && parse_release(t2, out))
            return;
    }
    for (int i = 0; i < 4; i++) {
        const char *t = token(text, i);
        if (t && parse_release(t, out))
            return;
    }
}

int kernel_version_cmp(const struct kernel_version *v, int major, int minor)
{
    if (!v->known)
        return 0;
    if (v->major != major)
        return v->major < major ? -1 : 1;
    if (v->minor != minor)
        return v->minor < minor ? -1 : 1;
    return 0;
}

static const char *const machines[] = {
    "x86_64", "amd64", "i386", "i486", "i586", "i686", "aarch64", "arm64", "armv8l", "armv7l",
    "armv7", "armv6l", "armv5tel", "armv5l", "armhf", "riscv64", "riscv32",
};

void machine_name_parse(const char *text, char *out, size_t len)
{
    out[0] = 0;
    if (!text)
        return;
    for (int i = 0; i < 64; i++) {
        const char *t = token(text, i);
        if (!t)
            break;
        size_t tl = strcspn(t, " \t\r\n");
        for (size_t m = 0; m < sizeof machines / sizeof machines[0]; m++)
            if (strlen(machines[m]) == tl && strncmp(t, machines[m], tl) == 0)
                snprintf(out, len, "%s", machines[m]); /* the last match: uname -a ends with -m -p -i */
    }
}

const char *machine_family(const char *m)
{
    if (!strcmp(m, "x86_64") || !strcmp(m, "amd64") || (m[0] == 'i' && !strcmp(m + 2, "86")))
        return "x86";
    if (!strcmp(m, "aarch64") || !strcmp(m, "arm64"))
        return "arm64";
    if (!strncmp(m, "arm", 3))
        return "arm32";
    if (!strncmp(m, "riscv", 5))
        return "riscv";
    return "";
}
