/* SPDX-License-Identifier: MIT */
/* A sample declaration of every kind of option, shared by the parser's unit tests
 * (test_cli.c) and its fuzz harness (tests/fuzz/fuzz_cli.c).  Values in LIST items and
 * STRING options must not contain an 'x' (a .check). */
#ifndef CLOCKSCOPE_CLI_SAMPLE_H
#define CLOCKSCOPE_CLI_SAMPLE_H

#include "common/cli.h"

#include <stdio.h>
#include <string.h>

struct t_opts {
    bool json, force;
    int count, mode;
    double seconds;
    const char *root, *save;
    const char *only[4];
    int nonly;
    const char *env[3];
    int nenv;
    const char *args[2];
    int nargs;
};

static const char *const t_modes[] = {"fast", "slow", NULL};

static bool no_x(void *opts, const char *value, char *err, size_t errlen)
{
    (void)opts;
    if (strchr(value, 'x')) {
        snprintf(err, errlen, "'%s' has an x", value);
        return false;
    }
    return true;
}

static const struct cli_option t_decl[] = {
    {.name = "json", .short_name = 'j', CLI_FLAG_OF(struct t_opts, json)},
    {.name = "count", .short_name = 'n', .metavar = "N", CLI_UINT_OF(struct t_opts, count, 1, 100)},
    {.name = "seconds", .metavar = "S", CLI_SECONDS_OF(struct t_opts, seconds, 0.5, 60)},
    {.name = "mode", .metavar = "MODE", CLI_ENUM_OF(struct t_opts, mode, t_modes)},
    {.name = "root", .metavar = "DIR", .check = no_x, .excludes = "save",
     CLI_STRING_OF(struct t_opts, root)},
    {.name = "save", .metavar = "DIR", CLI_STRING_OF(struct t_opts, save)},
    {.name = "force", .needs = "save", CLI_FLAG_OF(struct t_opts, force)},
    {.name = "only", .metavar = "GLOBS", .check = no_x, CLI_LIST_OF(struct t_opts, only, nonly)},
    {.name = "env", .metavar = "NAME=VALUE", CLI_MULTI_OF(struct t_opts, env, nenv)},
    {0},
};

static const char t_help[] =
    "usage: clockscope t [options] [FILE...]\n"
    "  --json, -j       JSON\n"
    "  --count N        how many\n"
    "  --seconds S      how long\n"
    "  --mode MODE      fast or slow\n"
    "  --root DIR       read\n"
    "  --save DIR       write\n"
    "  --force          overwrite (with --save)\n"
    "  --only GLOBS     which\n"
    "  --env NAME=VALUE set\n"
    "  --help           this text\n";

static const struct exit_use t_exits[] = {
    {EXIT_OK, NULL}, {EXIT_USAGE, NULL}, {EXIT_PARTIAL, "one FILE was skipped"}, {EXIT_USES_END, NULL},
};
static const struct cli_spec t_spec = {
    .cmd = "t", .help = t_help, .options = t_decl, CLI_ARGS_OF(struct t_opts, args, nargs),
    .args_usage = "[FILE...]", .exits = t_exits,
};
static const struct cli_spec t_command_spec = {
    .cmd = "t", .help = t_help, .options = t_decl, .args = CLI_COMMAND,
    .args_usage = "-- COMMAND [ARG...]",
};
static const struct cli_spec t_noargs_spec = {.cmd = "t", .help = t_help, .options = t_decl};

#endif
