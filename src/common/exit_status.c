/* SPDX-License-Identifier: MIT */
/* The table of exit statuses and the "Exit status:" paragraph printed from it. */
#include "common/exit_status.h"

#include <string.h>

struct exit_row {
    int code;
    const char *label; /* how the code column shows it */
    const char *name;
    const char *meaning;
};

/* The same rows, in the same words, as report/clockscope_report/exit_status.py and the
 * README's table (tests/test_exit_status.py compares them). */
static const struct exit_row table[] = {
    {EXIT_OK, "0", "ok", NULL},
    {EXIT_FAILED, "1", "failed", "nothing useful was produced (cannot measure, cannot write)"},
    {EXIT_USAGE, "2", "usage",
     "the command line is wrong, or names a file or directory that cannot be read"},
    {EXIT_SLOW, "3", "slow", "the verdict"},
    {EXIT_BROKEN, "4", "broken", "the verdict"},
    {EXIT_UNKNOWN, "5", "unknown", "the facts do not decide the verdict"},
    {EXIT_PARTIAL, "6", "partial", "output was written, but a part or an input was skipped"},
    {EXIT_MISSING_DEPENDENCY, "7", "missing dependency",
     "a program or module the command needs is not there"},
    {EXIT_BAD_INPUT, "8", "bad input", "a file given was read, but is not what the command needs"},
    {EXIT_COMMANDS_OWN, "CMD", "command's own", "the status of the command run, when it ran"},
    {EXIT_WRAPPER_FAILED, "125", "wrapper failed", "clockscope failed before the command ran"},
    {EXIT_NOT_EXECUTABLE, "126", "not executable", "the command was found but cannot be run"},
    {EXIT_NOT_FOUND, "127", "not found", "the command was not found"},
    {EXIT_SIGNAL_BASE, "128+N", "signal", "stopped by signal N (as a shell reports it)"},
};

static const struct exit_row *row_of(int code)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}

const char *exit_status_name(int code)
{
    const struct exit_row *r = row_of(code);
    return r ? r->name : NULL;
}

void exit_status_help(FILE *out, const struct exit_use *uses)
{
    fputs("\nExit status (one table for every command, README.md):\n", out);
    for (const struct exit_use *u = uses; u->code != EXIT_USES_END; u++) {
        const struct exit_row *r = row_of(u->code);
        if (!r)
            continue;
        fprintf(out, "  %-6s %s%s%s\n", r->label, r->name, r->meaning ? ": " : "",
                r->meaning ? r->meaning : "");
        /* the detail, each of its lines under the name */
        for (const char *d = u->detail; d && *d;) {
            size_t n = strcspn(d, "\n");
            fprintf(out, "         %.*s\n", (int)n, d);
            d += n + (d[n] == '\n');
        }
    }
}
