/* libFuzzer harness for the option parser (src/common/cli_parse.c): `make fuzz`, then
 * build/fuzz/fuzz_cli -max_total_time=60 CORPUS_DIR.  The input is an argument vector (words
 * separated by NUL or newline; the first byte picks a spec with arguments or one that runs a
 * command).  Whatever the words, the parser answers OK, HELP or ERROR with a message, and
 * what it accepts obeys the declarations. */
#include "common/cli.h"

#include <stdlib.h>
#include <string.h>

struct f_opts {
    bool json, force;
    int count, mode, cpus;
    double seconds;
    const char *root, *save;
    const char *only[4];
    int nonly;
    const char *env[3];
    int nenv;
    const char *args[3];
    int nargs;
};

static const char *const f_modes[] = {"fast", "slow", NULL};

static const struct cli_option f_decl[] = {
    {.name = "json", .short_name = 'j', CLI_FLAG_OF(struct f_opts, json)},
    {.name = "count", .short_name = 'n', .metavar = "N", CLI_UINT_OF(struct f_opts, count, 1, 100),
     CLI_MAX_FROM(struct f_opts, cpus), .max_note = "cpus"},
    {.name = "seconds", .metavar = "S", CLI_SECONDS_OF(struct f_opts, seconds, 0.5, 60)},
    {.name = "mode", .metavar = "MODE", .required = false, CLI_ENUM_OF(struct f_opts, mode, f_modes)},
    {.name = "root", .metavar = "DIR", .excludes = "save", CLI_STRING_OF(struct f_opts, root)},
    {.name = "save", .metavar = "DIR", CLI_STRING_OF(struct f_opts, save)},
    {.name = "force", .needs = "save", CLI_FLAG_OF(struct f_opts, force)},
    {.name = "only", .metavar = "GLOBS", CLI_LIST_OF(struct f_opts, only, nonly)},
    {.name = "env", .metavar = "NAME=VALUE", CLI_MULTI_OF(struct f_opts, env, nenv)},
    {0},
};

static const struct cli_spec f_args_spec = {
    .cmd = "f", .help = "usage: f\n", .options = f_decl, CLI_ARGS_OF(struct f_opts, args, nargs),
    .min_args = 1,
};
static const struct cli_spec f_command_spec = {
    .cmd = "f", .help = "usage: f\n", .options = f_decl, .args = CLI_COMMAND,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    const struct cli_spec *spec = data[0] & 1 ? &f_command_spec : &f_args_spec;
    static char buf[4097];
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    char f0[] = "f";
    char *argv[34] = {f0};
    int argc = 1;
    for (char *w = buf; argc < 33;) {
        argv[argc++] = w;
        size_t n = strcspn(w, "\n");
        if (!w[n])
            break;
        w[n] = '\0';
        w += n + 1;
    }
    argv[argc] = NULL;
    struct f_opts o = {.count = 7, .mode = -1, .cpus = 50};
    char err[600] = "";
    int first = -1;
    enum cli_status st = cli_parse_status(spec, argc, argv, &o, &first, err, sizeof err);
    if (st == CLI_ERROR && !err[0])
        abort();
    if (st != CLI_OK)
        return 0;
    if (o.count < 1 || o.count > 50 || o.mode < -1 || o.mode > 1)
        abort();
    if (o.seconds != 0 && (o.seconds < 0.5 || o.seconds > 60))
        abort();
    if (o.nonly < 0 || o.nonly > 4 || o.nenv < 0 || o.nenv > 3 || (o.force && !o.save))
        abort();
    if ((o.root && (!o.root[0] || o.save)) || (o.save && !o.save[0]))
        abort();
    for (int i = 0; i < o.nonly; i++)
        if (!o.only[i][0] || strchr(o.only[i], ','))
            abort();
    if (spec == &f_command_spec && (first < 1 || first >= argc))
        abort();
    if (spec == &f_args_spec && (o.nargs < 1 || o.nargs > 3))
        abort();
    return 0;
}
