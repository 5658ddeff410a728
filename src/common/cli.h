/* SPDX-License-Identifier: MIT */
/* The command line of every clockscope command: one declarative parser, one wording.
 *
 * A command declares its options once, as a table pointing into its own options struct,
 * and calls cli_parse().  Bad usage always ends the same way: "clockscope CMD: what was
 * wrong" on stderr, "Try 'clockscope CMD --help'.", exit status 2 (EXIT_USAGE).
 *
 *     struct foo_options { bool json; int count; double seconds; const char *root;
 *                          const char *only[8]; int nonly; };
 *     static const struct cli_option foo_decl[] = {
 *         {.name = "json", CLI_FLAG_OF(struct foo_options, json)},
 *         {.name = "count", .short_name = 'n', .metavar = "N",
 *          CLI_UINT_OF(struct foo_options, count, 1, 1000)},
 *         {.name = "seconds", .metavar = "S", CLI_SECONDS_OF(struct foo_options, seconds, 0.05, 3600)},
 *         {.name = "root", .metavar = "DIR", CLI_STRING_OF(struct foo_options, root)},
 *         {.name = "only", .metavar = "GLOBS", CLI_LIST_OF(struct foo_options, only, nonly)},
 *         {0},
 *     };
 *     const struct cli_spec foo_cli = {.cmd = "foo", .help = foo_help, .options = foo_decl};
 *
 *     struct foo_options o = {.count = 10, .seconds = 5};   // defaults: set before parsing
 *     cli_parse(&foo_cli, argc, argv, &o);                  // argv[0] is the command name
 *
 * Kinds of option (the macros check, at compile time, that the member has the right type):
 *   CLI_FLAG_OF     bool, set to true; "--json=1" is an error.
 *   CLI_STRING_OF   const char *; any non-empty text.
 *   CLI_UINT_OF     int; a whole decimal number in [min, max] (max <= INT_MAX).
 *   CLI_SECONDS_OF  double; a decimal number of seconds ("5", "0.5") in [min, max].
 *   CLI_ENUM_OF     int; the index of the value in a NULL-terminated array of names.
 *   CLI_LIST_OF     const char *array[N] + int count; comma-separated items, split in place
 *                   in argv; repeating the option appends.  At most N items.
 *   CLI_MULTI_OF    const char *array[N] + int count; each occurrence appends one value.
 * Long names match exactly: no getopt-style abbreviations ("--js" is not "--json"), so
 * that a new option never makes a user's abbreviation ambiguous.  Short options do not
 * bundle ("-jn" is unknown).  A value may start with '-' ("--only -x" takes "-x").
 * Values come as "--name VALUE" or "--name=VALUE" (short: "-n VALUE").  An option given
 * twice is an error unless it is a LIST or a MULTI.  Optional per option:
 *   .required  the option must be given;
 *   .needs     the long name of another option this one only goes with;
 *   .excludes  the long name of an option this one does not go with;
 *   .check     a validator for each value (each item of a LIST): returns false and writes
 *              the reason to err; it may also store a converted value in the options struct;
 *   CLI_MAX_FROM(S, m)  a UINT's maximum known only at run time: the int member m, set
 *              before parsing (e.g. the CPUs this process may use); .max_note says what it is.
 * "--help" and "-h" print spec->help and the exit statuses of spec->exits on stdout and exit 0 (cli_parse) or return CLI_HELP.
 *
 * Arguments that are not options (spec->args):
 *   CLI_NO_ARGS  (default) any is an error: "unexpected argument 'x'";
 *   CLI_ARGS     stored in a MULTI-like array (args_at/args_count_at, CLI_ARGS_OF), at most
 *                max_args, at least min_args; "--" ends the options;
 *   CLI_COMMAND  a command to run follows: options end at "--" or at the first argument
 *                that is not an option; cli_parse returns the command's index in argv.
 *
 * The one wording (tests/test_cli.py holds every command to it):
 *   unknown option '--bogus'          --root needs a value (DIR)
 *   --threads: 'two' is not a whole number        --threads: 0 is out of range (1 to 8)
 *   --seconds: 'x' is not a duration in seconds   --seconds: 0.01 s is out of range (0.05 to 3600)
 *   --arch: 'mips' is not one of x86_64, aarch64, riscv64
 *   --root given more than once       --json takes no value       unexpected argument 'x'
 *   --arch is required                --force goes only with --save
 *   --file and --dump do not go together          no command given (USAGE)
 *
 * Every command's help text is checked against its declarations by cli_help_check (unit
 * test test_cli_help_matches_every_command): each option appears as "--name METAVAR", and
 * every option line of the help ("  --name ...") is declared.
 *
 * A new command: export its spec as <cmd>_cli in commands.h, add it to that unit test, and
 * give it rows in tests/test_cli.py (test_every_command_is_in_the_table fails until then). */
#ifndef CLOCKSCOPE_CLI_H
#define CLOCKSCOPE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cpuset.h"
#include "common/exit_status.h"

enum cli_kind { CLI_FLAG, CLI_STRING, CLI_UINT, CLI_SECONDS, CLI_ENUM, CLI_LIST, CLI_MULTI };

struct cli_option {
    const char *name;          /* the long name, without "--"; NULL ends the table */
    char short_name;           /* 0: none */
    const char *metavar;       /* how the help names the value ("N", "DIR"); valued kinds */
    enum cli_kind kind;
    size_t at;                 /* where the value goes in the options struct */
    size_t count_at;           /* LIST, MULTI: the int count of items stored */
    int max_items;             /* LIST, MULTI: the array's length */
    uint64_t min, max;         /* UINT */
    size_t max_at;             /* UINT: 1 + where the run-time maximum is (CLI_MAX_FROM) */
    const char *max_note;      /* UINT: what the maximum is, for the out-of-range message */
    double min_s, max_s;       /* SECONDS */
    const char *const *values; /* ENUM: the names, NULL-terminated */
    bool required;
    const char *needs, *excludes;
    bool (*check)(void *opts, const char *value, char *err, size_t errlen);
};

enum cli_args { CLI_NO_ARGS, CLI_ARGS, CLI_COMMAND };

struct cli_spec {
    const char *cmd;  /* "bench"; NULL for clockscope's own options (main.c) */
    const char *help; /* the --help text */
    const struct cli_option *options;
    enum cli_args args;
    size_t args_at, args_count_at; /* CLI_ARGS: const char *array[max_args] + int count */
    int min_args, max_args;
    const char *args_usage; /* CLI_ARGS, CLI_COMMAND: e.g. "-- COMMAND [ARG...]" */
    /* CLI_COMMAND: long names of options that stand instead of the command (run's --pid,
     * --undo): with one of them given, no command may follow; NULL-terminated, or NULL. */
    const char *const *command_unless;
    /* The exit statuses the command uses: --help ends with their paragraph, printed from the
     * one table (common/exit_status.h); required of every command (cli_help_check). */
    const struct exit_use *exits;
};

/* The offset of member m of struct S, a compile error unless m has type T. */
#define CLI_AT(S, m, T) (offsetof(S, m) + 0 * sizeof(&((S *)0)->m == (T *)0))
#define CLI_FLAG_OF(S, m) .kind = CLI_FLAG, .at = CLI_AT(S, m, bool)
#define CLI_STRING_OF(S, m) .kind = CLI_STRING, .at = CLI_AT(S, m, const char *)
#define CLI_UINT_OF(S, m, lo, hi) .kind = CLI_UINT, .at = CLI_AT(S, m, int), .min = (lo), .max = (hi)
#define CLI_MAX_FROM(S, m) .max_at = 1 + CLI_AT(S, m, int)
#define CLI_SECONDS_OF(S, m, lo, hi)                                                      \
    .kind = CLI_SECONDS, .at = CLI_AT(S, m, double), .min_s = (lo), .max_s = (hi)
#define CLI_ENUM_OF(S, m, names) .kind = CLI_ENUM, .at = CLI_AT(S, m, int), .values = (names)
#define CLI_ITEMS_OF_(S, arr, count)                                                      \
    .at = CLI_AT(S, arr[0], const char *), .count_at = CLI_AT(S, count, int),            \
    .max_items = (int)(sizeof((S *)0)->arr / sizeof((S *)0)->arr[0])
#define CLI_LIST_OF(S, arr, count) .kind = CLI_LIST, CLI_ITEMS_OF_(S, arr, count)
#define CLI_MULTI_OF(S, arr, count) .kind = CLI_MULTI, CLI_ITEMS_OF_(S, arr, count)
/* For struct cli_spec: where CLI_ARGS arguments go. */
#define CLI_ARGS_OF(S, arr, count)                                                        \
    .args = CLI_ARGS, .args_at = CLI_AT(S, arr[0], const char *),                         \
    .args_count_at = CLI_AT(S, count, int),                                               \
    .max_args = (int)(sizeof((S *)0)->arr / sizeof((S *)0)->arr[0])

enum cli_status { CLI_OK, CLI_HELP, CLI_ERROR };

/* Parses argv[1..argc) into opts.  CLI_OK: *first is the index of the first argument of a
 * CLI_COMMAND spec (argc for the others); CLI_ERROR: err says what was wrong, in the one
 * wording; CLI_HELP: --help was asked for.  Never exits, never prints. */
enum cli_status cli_parse_status(const struct cli_spec *spec, int argc, char **argv, void *opts,
                                 int *first, char *why, size_t whylen);
/* cli_parse_status, then: help printed and exit 0, or usage_error (exit 2).  Returns *first. */
int cli_parse(const struct cli_spec *spec, int argc, char **argv, void *opts);

/* spec's help text, then the paragraph of its exit statuses. */
void cli_print_help(const struct cli_spec *spec, FILE *out);
/* Whether spec's help text and its declarations agree (see above); false fills err. */
bool cli_help_check(const struct cli_spec *spec, char *why, size_t whylen);

/* Prints "clockscope <cmd>: <message>" and the --help hint, then exits with EXIT_USAGE.
 * cmd NULL: clockscope's own usage ("clockscope: ..."). */
_Noreturn void usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "'value' is not one of LIST" into err: the one wording of an unknown name. */
void cli_not_one_of(char *why, size_t whylen, const char *value, const char *list);

/* Parses a whole decimal string into [min, max].  Returns false (and fills err) on
 * empty input, trailing garbage, sign where none allowed, or overflow. */
bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why, size_t whylen);
/* Parses a positive decimal number of seconds ("5", "0.5"), within [min, max]. */
bool parse_seconds(const char *s, double min, double max, double *out, char *why, size_t whylen);

/* Whether s matches any of the n fnmatch(3) globs. */
bool cli_matches_any(const char *const *globs, int n, const char *s);

/* The CPUs this process may use; unreadable affinity is a usage error of `cmd`. */
void cli_cpus_allowed(const char *cmd, struct cpu_list *allowed);
/* A --cpus LIST value, each CPU existing and in `allowed`; otherwise a usage error of `cmd`
 * saying which CPU is wrong. */
void cli_parse_cpus(const char *cmd, const char *arg, const struct cpu_list *allowed,
                    struct cpu_list *out);

/* Transitional, for getopt_long code not yet declared (branches in flight): the usage error
 * for getopt_long's '?', and a comma-list splitter.  New code uses cli_parse. */
_Noreturn void cli_bad_option(const char *cmd, char **argv);
void cli_split_list(const char *cmd, char *s, const char **out, int *count, int max,
                    const char *what);

#endif
