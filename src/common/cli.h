/* Strict argument parsing shared by every command.  Bad usage always ends the same way:
 * "clockscope CMD: what was wrong" on stderr, a pointer to --help, exit status 2. */
#ifndef CLOCKSCOPE_CLI_H
#define CLOCKSCOPE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cpuset.h"

#define EXIT_USAGE 2

/* Prints "clockscope <cmd>: <message>" and the --help hint, then exits with EXIT_USAGE. */
_Noreturn void usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal string into [min, max].  Returns false (and fills err) on
 * empty input, trailing garbage, sign where none allowed, or overflow. */
bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);
/* Parses a positive decimal number of seconds ("5", "0.5"), within [min, max]. */
bool parse_seconds(const char *s, double min, double max, double *out, char *err, size_t errlen);

/* The usage error for getopt_long's '?' (unknown option, or a missing value): call it
 * from the default case. */
_Noreturn void cli_bad_option(const char *cmd, char **argv);

/* Splits a comma-separated option value in place into out[*count...]; an empty list or
 * more than max items is a usage error of `cmd` naming `what`. */
void cli_split_list(const char *cmd, char *s, const char **out, int *count, int max,
                    const char *what);
/* Whether s matches any of the n fnmatch(3) globs. */
bool cli_matches_any(const char *const *globs, int n, const char *s);

/* The CPUs this process may use; unreadable affinity is a usage error of `cmd`. */
void cli_cpus_allowed(const char *cmd, struct cpu_list *allowed);
/* A --cpus LIST value, each CPU existing and in `allowed`; otherwise a usage error of `cmd`
 * saying which CPU is wrong. */
void cli_parse_cpus(const char *cmd, const char *arg, const struct cpu_list *allowed,
                    struct cpu_list *out);

#endif
