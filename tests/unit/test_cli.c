/* SPDX-License-Identifier: MIT */
/* The declarative option parser (src/common/cli_parse.c): every kind of option, the one
 * wording of each mistake, the help check, and in-process mutation of argument vectors. */
#include "check.h"
#include "commands.h"
#include "common/cli.h"
#include "cli_sample.h"

#include <stdlib.h>

/* Parses the space-separated words of `line` (copied: LIST values are split in place). */
static enum cli_status parse_line(const struct cli_spec *spec, const char *line, struct t_opts *o,
                                  int *first, char *why, size_t whylen)
{
    static char buf[512];
    static char *argv[32];
    snprintf(buf, sizeof buf, "t %s", line);
    int argc = 0;
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < 31;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = strcmp(w, "''") == 0 ? w + 2 : w; /* '' is the empty word */
    argv[argc] = NULL;
    memset(o, 0, sizeof *o);
    o->count = 7;
    o->mode = -1;
    why[0] = '\0';
    return cli_parse_status(spec, argc, argv, o, first, why, whylen);
}

TEST(test_cli_parses_every_kind)
{
    struct t_opts o;
    char err[600];
    int first;
    CHECK(parse_line(&t_spec, "-j --count=42 --seconds 1.5 --mode slow --root r "
                              "--only a,b --only c --env A=1 --env B=2 f1 -- -f2",
                     &o, &first, err, sizeof err) == CLI_OK);
    CHECK(o.json && o.count == 42 && o.seconds == 1.5 && o.mode == 1);
    CHECK(strcmp(o.root, "r") == 0 && !o.save && !o.force);
    CHECK(o.nonly == 3 && strcmp(o.only[0], "a") == 0 && strcmp(o.only[2], "c") == 0);
    CHECK(o.nenv == 2 && strcmp(o.env[1], "B=2") == 0);
    CHECK(o.nargs == 2 && strcmp(o.args[0], "f1") == 0 && strcmp(o.args[1], "-f2") == 0);
    /* Defaults stay when an option is not given. */
    CHECK(parse_line(&t_spec, "-n 3", &o, &first, err, sizeof err) == CLI_OK);
    CHECK(o.count == 3 && o.mode == -1 && !o.json && o.nonly == 0);
    CHECK(parse_line(&t_spec, "", &o, &first, err, sizeof err) == CLI_OK && o.count == 7);
    CHECK(parse_line(&t_spec, "--json --help --bogus", &o, &first, err, sizeof err) == CLI_HELP);
    CHECK(parse_line(&t_spec, "-h", &o, &first, err, sizeof err) == CLI_HELP);
}

TEST(test_cli_command_specs_stop_at_the_command)
{
    struct t_opts o;
    char err[600];
    int first;
    CHECK(parse_line(&t_command_spec, "--json -- ls --count x", &o, &first, err, sizeof err) == CLI_OK);
    CHECK(first == 3 && o.json && o.count == 7);
    CHECK(parse_line(&t_command_spec, "-n 2 ls -l", &o, &first, err, sizeof err) == CLI_OK);
    CHECK(first == 3 && o.count == 2);
    CHECK(parse_line(&t_command_spec, "--json --", &o, &first, err, sizeof err) == CLI_ERROR);
    CHECK(strcmp(err, "no command given (clockscope t [options] -- COMMAND [ARG...])") == 0);
    CHECK(parse_line(&t_command_spec, "-- --help", &o, &first, err, sizeof err) == CLI_OK && first == 2);
}

static const struct {
    const char *line, *error;
} bad_inputs[] = {
    {"--bogus", "unknown option '--bogus'"},
    {"-x", "unknown option '-x'"},
    {"-jn", "unknown option '-jn'"},
    {"--js", "unknown option '--js'"},
    {"--count", "--count needs a value (N)"},
    {"--root ''", "--root needs a value (DIR)"},
    {"--root=", "--root needs a value (DIR)"},
    {"--count two", "--count: 'two' is not a whole number"},
    {"--count -3", "--count: '-3' is not a whole number"},
    {"--count 1e3", "--count: '1e3' is not a whole number"},
    {"--count 0", "--count: 0 is out of range (1 to 100)"},
    {"--count 101", "--count: 101 is out of range (1 to 100)"},
    {"--count 99999999999999999999999", "--count: '99999999999999999999999' is too large"},
    {"--seconds soon", "--seconds: 'soon' is not a duration in seconds"},
    {"--seconds 0.1", "--seconds: 0.1 s is out of range (0.5 to 60)"},
    {"--seconds 1..2", "--seconds: '1..2' is not a duration in seconds"},
    {"--mode medium", "--mode: 'medium' is not one of fast, slow"},
    {"--mode FAST", "--mode: 'FAST' is not one of fast, slow"},
    {"--count 1 --count 2", "--count given more than once"},
    {"--json --json", "--json given more than once"},
    {"--json=yes", "--json takes no value"},
    {"--force", "--force goes only with --save"},
    {"--root a --save b", "--root and --save do not go together"},
    {"--root box", "--root: 'box' has an x"},
    {"--only a,x", "--only: 'x' has an x"},
    {"--only ,,", "--only needs a value (GLOBS)"},
    {"--only a,b,c,d,e", "--only: more than 4 values"},
    {"--env A=1 --env B=1 --env C=1 --env D=1", "--env: more than 3 values"},
    {"a b c", "unexpected argument 'c' (at most 2: [FILE...])"},
};

TEST(test_cli_bad_inputs_have_one_wording)
{
    struct t_opts o;
    char err[600];
    int first;
    for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; i++) {
        enum cli_status st = parse_line(&t_spec, bad_inputs[i].line, &o, &first, err, sizeof err);
        if (st != CLI_ERROR || strcmp(err, bad_inputs[i].error) != 0) {
            fprintf(stderr, "  '%s': status %d, '%s'\n", bad_inputs[i].line, st, err);
            CHECK(false);
        }
    }
    CHECK(parse_line(&t_noargs_spec, "--json stray", &o, &first, err, sizeof err) == CLI_ERROR);
    CHECK(strcmp(err, "unexpected argument 'stray'") == 0);
    CHECK(parse_line(&t_noargs_spec, "-- --json", &o, &first, err, sizeof err) == CLI_ERROR);
    CHECK(strcmp(err, "unexpected argument '--json'") == 0);
}

TEST(test_cli_required_enum_names_its_values)
{
    static const struct cli_option decl[] = {
        {.name = "mode", .metavar = "MODE", .required = true,
         CLI_ENUM_OF(struct t_opts, mode, t_modes)},
        {0},
    };
    static const struct cli_spec spec = {.cmd = "t", .help = "usage: t --mode MODE\n", .options = decl};
    struct t_opts o;
    char err[600];
    int first;
    CHECK(parse_line(&spec, "", &o, &first, err, sizeof err) == CLI_ERROR);
    CHECK(strcmp(err, "--mode is required (one of fast, slow)") == 0);
    CHECK(parse_line(&spec, "--mode fast", &o, &first, err, sizeof err) == CLI_OK && o.mode == 0);
}

TEST(test_cli_help_check_catches_drift)
{
    char err[300];
    CHECK(cli_help_check(&t_spec, err, sizeof err));
    static const char missing[] = "usage: t\n  --json   JSON\n  --count N  n\n";
    struct cli_spec s = t_spec;
    s.help = missing;
    CHECK(!cli_help_check(&s, err, sizeof err) && strstr(err, "does not show '--seconds S'"));
    static const char extra[] =
        "usage: t\n  --json\n  --count N\n  --seconds S\n  --mode MODE\n  --root DIR\n"
        "  --save DIR\n  --force\n  --only GLOBS\n  --env NAME=VALUE\n  --gone N   removed\n";
    s.help = extra;
    CHECK(!cli_help_check(&s, err, sizeof err) && strstr(err, "--gone, which is not declared"));
    static const char wrong_metavar[] =
        "usage: t\n  --json\n  --count COUNT\n  --seconds S\n  --mode MODE\n  --root DIR\n"
        "  --save DIR\n  --force\n  --only GLOBS\n  --env NAME=VALUE\n";
    s.help = wrong_metavar;
    CHECK(!cli_help_check(&s, err, sizeof err) && strstr(err, "'--count N'"));
    /* the exit statuses come from the one table, never from the help's own words */
    s = t_spec;
    s.exits = NULL;
    CHECK(!cli_help_check(&s, err, sizeof err) && strstr(err, "no exit statuses declared"));
    static const char own_words[] = "usage: t\n  --json\n  --count N\n  --seconds S\n"
        "  --mode MODE\n  --root DIR\n  --save DIR\n  --force\n  --only GLOBS\n"
        "  --env NAME=VALUE\nExit status: 0 ok, 3 a file skipped\n";
    s = t_spec;
    s.help = own_words;
    CHECK(!cli_help_check(&s, err, sizeof err) && strstr(err, "words its own exit statuses"));
}

/* The paragraph printed from the table: the table's words for each status, then what it
 * means for this command, in the order the command lists them. */
TEST(test_exit_status_help_prints_the_table)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    exit_status_help(f, t_exits);
    fclose(f);
    CHECK(strstr(text, "Exit status"));
    CHECK(strstr(text, "\n  0      ok\n"));
    CHECK(strstr(text, "\n  6      partial: output was written, but a part or an input was "
                       "skipped\n         one FILE was skipped\n"));
    CHECK(strstr(text, "  2 ") < strstr(text, "  6 "));
    CHECK(!strstr(text, "  1 "));
    CHECK(strcmp(exit_status_name(EXIT_BAD_INPUT), "bad input") == 0 && !exit_status_name(9));
    free(text);
}

/* Random edits of a valid command line: the parser answers OK, HELP or ERROR with a
 * message, never crashes, and what it accepts obeys the declarations. */
TEST(test_cli_mutated_argument_vectors)
{
    static const char *const seeds[] = {
        "--json --count 5 --seconds 2.5 --mode fast --only a,b f",
        "--save d --force --env A=1 -n 100 --seconds=60",
        "--root=r --mode=slow -- -j",
    };
    const char alphabet[] = "-=, 0123456789.xjnfast";
    uint64_t x = 0x5eed;
    struct t_opts o;
    char err[600];
    int first;
    int ok = 0, bad = 0;
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (int round = 0; round < 3000; round++) {
            char line[256];
            snprintf(line, sizeof line, "%s", seeds[s]);
            for (int k = 0; k < 1 + round % 4; k++)
                check_mutate(line, sizeof line, alphabet, &x);
            enum cli_status st = parse_line(&t_spec, line, &o, &first, err, sizeof err);
            if (st == CLI_ERROR) {
                CHECK(err[0] != '\0');
                bad++;
                continue;
            }
            if (st == CLI_HELP)
                continue;
            ok++;
            CHECK(o.count >= 1 && o.count <= 100);
            CHECK(o.seconds == 0 || (o.seconds >= 0.5 && o.seconds <= 60));
            CHECK(o.mode >= -1 && o.mode <= 1);
            CHECK(o.nonly >= 0 && o.nonly <= 4 && o.nenv >= 0 && o.nenv <= 3);
            CHECK(o.nargs >= 0 && o.nargs <= 2);
            for (int i = 0; i < o.nonly; i++)
                CHECK(o.only[i][0] && !strchr(o.only[i], ',') && !strchr(o.only[i], 'x'));
            CHECK(!o.root || (o.root[0] && !strchr(o.root, 'x') && !o.save));
            CHECK(!o.force || o.save);
        }
    CHECK(ok > 100 && bad > 100); /* the mutations reached both sides */
}

/* A maximum known only at run time (CLI_MAX_FROM), e.g. the CPUs this process may use. */
TEST(test_cli_max_from_the_options)
{
    struct m_opts {
        int threads, cpus;
    };
    static const struct cli_option decl[] = {
        {.name = "threads", .metavar = "N", CLI_UINT_OF(struct m_opts, threads, 1, 1024),
         CLI_MAX_FROM(struct m_opts, cpus), .max_note = "the CPUs here"},
        {0},
    };
    static const struct cli_spec spec = {.cmd = "m", .help = "usage: m [--threads N]\n", .options = decl};
    char a0[] = "m", a1[] = "--threads", a2[] = "3", err[200];
    char *argv[] = {a0, a1, a2, NULL};
    struct m_opts o = {.threads = 1, .cpus = 2};
    int first;
    CHECK(cli_parse_status(&spec, 3, argv, &o, &first, err, sizeof err) == CLI_ERROR);
    CHECK(strcmp(err, "--threads: 3 is out of range (1 to 2): the CPUs here") == 0);
    o.cpus = 4;
    CHECK(cli_parse_status(&spec, 3, argv, &o, &first, err, sizeof err) == CLI_OK && o.threads == 3);
    char bad[] = "3x";
    argv[2] = bad; /* not a number: the note about the maximum does not apply */
    CHECK(cli_parse_status(&spec, 3, argv, &o, &first, err, sizeof err) == CLI_ERROR);
    CHECK(strcmp(err, "--threads: '3x' is not a whole number") == 0);
}

/* Every command's --help shows each declared option, and describes no undeclared one. */
TEST(test_cli_help_matches_every_command)
{
    const struct cli_spec *specs[] = {&bench_cli, &warp_cli, &vdso_cli, &doctor_cli,
                                      &facts_cli, &run_cli,  &vm_cli, &collect_cli,
                                      &metrics_cli, &ladder_cli, &profile_cli,
                                      &runtimes_cli};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char err[300];
        if (!cli_help_check(specs[i], err, sizeof err)) {
            fprintf(stderr, "  %s\n", err);
            CHECK(false);
        }
    }
}
