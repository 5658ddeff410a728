/* SPDX-License-Identifier: MIT */
/* The declarative option parser (common/cli.h): every command's options, one wording. */
#include "common/cli.h"
#include "common/message.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_OPTIONS 64

struct parse {
    const struct cli_spec *spec;
    void *opts;
    char *err;
    size_t errlen;
    int seen[CLI_MAX_OPTIONS];
};

__attribute__((format(printf, 2, 3))) static bool fail(struct parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
    return false;
}

static void *member(struct parse *p, size_t at) { return (char *)p->opts + at; }

static const struct cli_option *find_long(const struct cli_spec *s, const char *name, size_t len)
{
    for (const struct cli_option *o = s->options; o && o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

static const struct cli_option *find_short(const struct cli_spec *s, char c)
{
    for (const struct cli_option *o = s->options; o && o->name; o++)
        if (o->short_name && o->short_name == c)
            return o;
    return NULL;
}

static bool is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* "-", "" and words are arguments; "-x" and "--x" are options ("--" is handled apart). */
static bool looks_like_option(const char *a) { return a[0] == '-' && a[1] != '\0'; }

static void values_text(const char *const *values, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; values[i]; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? ", " : "", values[i]);
}

static bool append_item(struct parse *p, const struct cli_option *o, const char *item)
{
    int *count = member(p, o->count_at);
    if (*count >= o->max_items)
        return fail(p, "--%s: more than %d values", o->name, o->max_items);
    char why[MSG_REASON] = "";
    if (o->check && !o->check(p->opts, item, why, sizeof why))
        return fail(p, "--%s: %s", o->name, why);
    ((const char **)member(p, o->at))[(*count)++] = item;
    return true;
}

/* Converts and stores one value of option o. */
static bool store(struct parse *p, const struct cli_option *o, char *value)
{
    char why[MSG_REASON] = "";
    switch (o->kind) {
    case CLI_FLAG:
        *(bool *)member(p, o->at) = true;
        return true;
    case CLI_UINT: {
        uint64_t v;
        uint64_t max = o->max_at ? (uint64_t)*(int *)member(p, o->max_at - 1) : o->max;
        if (!parse_u64(value, 0, UINT64_MAX, &v, why, sizeof why))
            return fail(p, "--%s: %s", o->name, why); /* not a number at all */
        if (!parse_u64(value, o->min, max, &v, why, sizeof why))
            return fail(p, "--%s: %s%s%s", o->name, why, o->max_note ? ": " : "",
                        o->max_note ? o->max_note : "");
        *(int *)member(p, o->at) = (int)v;
        return true;
    }
    case CLI_SECONDS:
        if (!parse_seconds(value, o->min_s, o->max_s, member(p, o->at), why, sizeof why))
            return fail(p, "--%s: %s", o->name, why);
        return true;
    case CLI_ENUM:
        for (int i = 0; o->values[i]; i++)
            if (strcmp(o->values[i], value) == 0) {
                *(int *)member(p, o->at) = i;
                return true;
            }
        char list[MSG_REASON];
        values_text(o->values, list, sizeof list);
        cli_not_one_of(why, sizeof why, value, list);
        return fail(p, "--%s: %s", o->name, why);
    case CLI_LIST: {
        int items = 0;
        for (char *save = NULL, *tok = strtok_r(value, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save), items++)
            if (!append_item(p, o, tok))
                return false;
        if (!items)
            return fail(p, "--%s needs a value (%s)", o->name, o->metavar);
        return true;
    }
    case CLI_MULTI:
        return append_item(p, o, value);
    case CLI_STRING:
        if (o->check && !o->check(p->opts, value, why, sizeof why))
            return fail(p, "--%s: %s", o->name, why);
        *(const char **)member(p, o->at) = value;
        return true;
    }
    return fail(p, "--%s: undeclared kind of option", o->name);
}

/* One option at argv[*i] (which may take argv[*i + 1] as its value). */
static bool take_option(struct parse *p, int argc, char **argv, int *i)
{
    char *a = argv[*i], *value = NULL;
    const struct cli_option *o;
    if (a[1] == '-') {
        char *eq = strchr(a, '=');
        o = find_long(p->spec, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
        if (eq && o)
            value = eq + 1;
    } else {
        o = a[2] == '\0' ? find_short(p->spec, a[1]) : NULL;
    }
    if (!o)
        return fail(p, "unknown option '%s'", a);
    size_t idx = (size_t)(o - p->spec->options);
    if (p->seen[idx]++ && o->kind != CLI_LIST && o->kind != CLI_MULTI)
        return fail(p, "--%s given more than once", o->name);
    if (o->kind == CLI_FLAG) {
        if (value)
            return fail(p, "--%s takes no value", o->name);
        return store(p, o, NULL);
    }
    if (!value && *i + 1 < argc)
        value = argv[++*i];
    if (!value || !*value)
        return fail(p, "--%s needs a value (%s)", o->name, o->metavar ? o->metavar : "VALUE");
    return store(p, o, value);
}

static bool take_argument(struct parse *p, const char *a)
{
    const struct cli_spec *s = p->spec;
    if (s->args != CLI_ARGS)
        return fail(p, "unexpected argument '%s'", a);
    int *count = member(p, s->args_count_at);
    if (*count >= s->max_args)
        return fail(p, "unexpected argument '%s' (at most %d: %s)", a, s->max_args,
                    s->args_usage ? s->args_usage : "");
    ((const char **)member(p, s->args_at))[(*count)++] = a;
    return true;
}

/* What may only be known once every option is in: required, needs, excludes, counts. */
static bool check_together(struct parse *p, int first, int argc)
{
    const struct cli_spec *s = p->spec;
    for (const struct cli_option *o = s->options; o && o->name; o++) {
        size_t idx = (size_t)(o - s->options);
        if (o->required && !p->seen[idx]) {
            if (o->kind != CLI_ENUM)
                return fail(p, "--%s is required", o->name);
            char list[MSG_REASON];
            values_text(o->values, list, sizeof list);
            return fail(p, "--%s is required (one of %s)", o->name, list);
        }
        const struct cli_option *x;
        if (p->seen[idx] && o->needs && (x = find_long(s, o->needs, strlen(o->needs))) &&
            !p->seen[x - s->options])
            return fail(p, "--%s goes only with --%s", o->name, o->needs);
        if (p->seen[idx] && o->excludes && (x = find_long(s, o->excludes, strlen(o->excludes))) &&
            p->seen[x - s->options])
            return fail(p, "--%s and --%s do not go together", o->name, o->excludes);
    }
    for (const char *const *u = s->command_unless; s->args == CLI_COMMAND && u && *u; u++) {
        const struct cli_option *x = find_long(s, *u, strlen(*u));
        if (x && p->seen[x - s->options]) {
            if (first < argc)
                return fail(p, "--%s does not go with a command", *u);
            return true;
        }
    }
    if (s->args == CLI_COMMAND && first >= argc)
        return fail(p, "no command given (clockscope%s%s [options] %s)", s->cmd ? " " : "",
                    s->cmd ? s->cmd : "", s->args_usage ? s->args_usage : "COMMAND");
    if (s->args == CLI_ARGS && *(int *)member(p, s->args_count_at) < s->min_args)
        return fail(p, "missing argument (%s)", s->args_usage ? s->args_usage : "ARG");
    return true;
}

enum cli_status cli_parse_status(const struct cli_spec *spec, int argc, char **argv, void *opts,
                                 int *first, char *why, size_t whylen)
{
    struct parse p = {.spec = spec, .opts = opts, .err = why, .errlen = whylen};
    size_t n = 0;
    while (spec->options && spec->options[n].name)
        n++;
    if (n > CLI_MAX_OPTIONS) {
        fail(&p, "more than %d options declared", CLI_MAX_OPTIONS);
        return CLI_ERROR;
    }
    if (spec->args == CLI_ARGS)
        *(int *)member(&p, spec->args_count_at) = 0;
    for (const struct cli_option *o = spec->options; o && o->name; o++)
        if (o->kind == CLI_LIST || o->kind == CLI_MULTI)
            *(int *)member(&p, o->count_at) = 0;
    int i = 1;
    bool options_done = false;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
            if (spec->args == CLI_COMMAND) {
                i++;
                break;
            }
        } else if (!options_done && is_help(a)) {
            return CLI_HELP;
        } else if (!options_done && looks_like_option(a)) {
            if (!take_option(&p, argc, argv, &i))
                return CLI_ERROR;
        } else if (spec->args == CLI_COMMAND) {
            break;
        } else if (!take_argument(&p, a)) {
            return CLI_ERROR;
        }
    }
    *first = spec->args == CLI_COMMAND ? i : argc;
    return check_together(&p, *first, argc) ? CLI_OK : CLI_ERROR;
}

void cli_print_help(const struct cli_spec *spec, FILE *out)
{
    fputs(spec->help, out);
    if (spec->exits)
        exit_status_help(out, spec->exits);
}

int cli_parse(const struct cli_spec *spec, int argc, char **argv, void *opts)
{
    char err[MSG_REASON];
    int first = argc;
    switch (cli_parse_status(spec, argc, argv, opts, &first, err, sizeof err)) {
    case CLI_HELP:
        /* A help that cannot be written (stdout closed, a full disk) is a failure. */
        cli_print_help(spec, stdout);
        exit(fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_FAILED);
    case CLI_ERROR:
        usage_error(spec->cmd, "%s", err);
    case CLI_OK:
        break;
    }
    return first;
}

/* Whether the help has "--name" followed by what `after` requires, as a whole word. */
static bool help_mentions(const char *help, const char *name, const char *metavar)
{
    char want[MSG_LINE];
    snprintf(want, sizeof want, "--%s%s%s", name, metavar ? " " : "", metavar ? metavar : "");
    size_t len = strlen(want);
    for (const char *h = strstr(help, want); h; h = strstr(h + 1, want)) {
        char next = h[len];
        bool word_ends = !(next == '-' || next == '_' || (next >= 'a' && next <= 'z') ||
                           (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9'));
        bool word_starts = h == help || h[-1] == ' ' || h[-1] == '[' || h[-1] == '\n' ||
                           h[-1] == '(' || h[-1] == '\'';
        if (word_ends && word_starts)
            return true;
    }
    return false;
}

bool cli_help_check(const struct cli_spec *spec, char *why, size_t whylen)
{
    struct parse p = {.spec = spec, .err = why, .errlen = whylen};
    const char *who = spec->cmd ? spec->cmd : "clockscope";
    if (!spec->help || !strstr(spec->help, "usage:"))
        return fail(&p, "%s: the help has no usage line", who);
    if (spec->cmd && !spec->exits)
        return fail(&p, "%s: no exit statuses declared (.exits)", who);
    if (strstr(spec->help, "Exit status"))
        return fail(&p, "%s: the help words its own exit statuses (declare .exits)", who);
    for (const struct cli_option *o = spec->options; o && o->name; o++) {
        const char *metavar = o->kind == CLI_FLAG ? NULL : o->metavar;
        if (o->kind != CLI_FLAG && !metavar)
            return fail(&p, "%s: --%s takes a value but declares no metavar", who, o->name);
        if (o->kind == CLI_UINT && o->max > INT_MAX)
            return fail(&p, "%s: --%s allows more than an int holds", who, o->name);
        if (!help_mentions(spec->help, o->name, metavar))
            return fail(&p, "%s: the help does not show '--%s%s%s'", who, o->name,
                        metavar ? " " : "", metavar ? metavar : "");
        for (const struct cli_option *q = spec->options; q != o; q++)
            if (strcmp(q->name, o->name) == 0 || (o->short_name && q->short_name == o->short_name))
                return fail(&p, "%s: --%s is declared twice", who, o->name);
    }
    /* Every option line of the help ("  --name ...") is a declared option or --help. */
    for (const char *line = spec->help; line && *line; line = strchr(line, '\n'), line += !!line) {
        const char *s = line;
        while (*s == ' ')
            s++;
        if (s == line || s[0] != '-' || s[1] != '-')
            continue;
        size_t len = strcspn(s + 2, " =,\n");
        if (!(len == 4 && strncmp(s + 2, "help", 4) == 0) && !find_long(spec, s + 2, len))
            return fail(&p, "%s: the help describes --%.*s, which is not declared", who,
                        (int)len, s + 2);
    }
    return true;
}
