/* SPDX-License-Identifier: MIT */
#include "common/cli.h"
#include "common/message.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "clockscope%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'clockscope%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    exit(EXIT_USAGE);
}

void cli_not_one_of(char *why, size_t whylen, const char *value, const char *list)
{
    snprintf(why, whylen, "'%s' is not one of %s", value, list);
}

bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why, size_t whylen)
{
    if (!s || !*s) {
        snprintf(why, whylen, "expected a number, got an empty string");
        return false;
    }
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') {
            snprintf(why, whylen, "'%s' is not a whole number", s);
            return false;
        }
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || *end) {
        snprintf(why, whylen, "'%s' is too large", s);
        return false;
    }
    if (v < min || v > max) {
        snprintf(why, whylen, "%s is out of range (%llu to %llu)", s,
                 (unsigned long long)min, (unsigned long long)max);
        return false;
    }
    *out = v;
    return true;
}

bool parse_seconds(const char *s, double min, double max, double *out, char *why, size_t whylen)
{
    if (!s || !*s) {
        snprintf(why, whylen, "expected a duration in seconds, got an empty string");
        return false;
    }
    for (const char *p = s; *p; p++) {
        if ((*p < '0' || *p > '9') && *p != '.') {
            snprintf(why, whylen, "'%s' is not a duration in seconds", s);
            return false;
        }
    }
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v)) {
        snprintf(why, whylen, "'%s' is not a duration in seconds", s);
        return false;
    }
    if (v < min || v > max) {
        snprintf(why, whylen, "%s s is out of range (%g to %g)", s, min, max);
        return false;
    }
    *out = v;
    return true;
}

void cli_split_list(const char *cmd, char *s, const char **out, int *count, int max,
                    const char *what)
{
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*count >= max)
            usage_error(cmd, "too many %s (at most %d)", what, max);
        out[(*count)++] = tok;
    }
    if (*count == 0)
        usage_error(cmd, "empty %s list", what);
}

bool cli_matches_any(const char *const *globs, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (fnmatch(globs[i], s, 0) == 0)
            return true;
    return false;
}

void cli_cpus_allowed(const char *cmd, struct cpu_list *allowed)
{
    if (!cpuset_allowed(allowed))
        usage_error(cmd, "cannot read this process's CPU affinity");
}

void cli_parse_cpus(const char *cmd, const char *arg, const struct cpu_list *allowed,
                    struct cpu_list *out)
{
    char err[MSG_LINE];
    if (!cpuset_parse_list(arg, allowed, out, err, sizeof err))
        usage_error(cmd, "--cpus: %s", err);
}

void cli_bad_option(const char *cmd, char **argv)
{
    if (optopt)
        usage_error(cmd, "option '%s' needs a value or is unknown", argv[optind - 1]);
    usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}
