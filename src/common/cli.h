/* Strict argument parsing shared by every command.  Bad usage always ends the same way:
 * "clockscope CMD: what was wrong" on stderr, a pointer to --help, exit status 2. */
#ifndef CLOCKSCOPE_CLI_H
#define CLOCKSCOPE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_USAGE 2

/* Prints "clockscope <cmd>: <message>" and the --help hint, then exits with EXIT_USAGE. */
_Noreturn void usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal string into [min, max].  Returns false (and fills err) on
 * empty input, trailing garbage, sign where none allowed, or overflow. */
bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);
/* Parses a positive decimal number of seconds ("5", "0.5"), within [min, max]. */
bool parse_seconds(const char *s, double min, double max, double *out, char *err, size_t errlen);

/* The argv convention of all commands: argv[0] is the command name. */
struct cli_args {
    int argc;
    char **argv;
};

#endif
