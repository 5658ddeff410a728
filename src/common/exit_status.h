/* SPDX-License-Identifier: MIT */
/* The one table of exit statuses every command keeps (README.md "Exit status";
 * report/clockscope_report/exit_status.py holds the same), and the "Exit status:" paragraph
 * of each command's --help, printed from it so that no command words a status its own way. */
#ifndef CLOCKSCOPE_EXIT_STATUS_H
#define CLOCKSCOPE_EXIT_STATUS_H

#include <stdio.h>

enum exit_status {
    EXIT_OK = 0,
    EXIT_FAILED = 1,              /* nothing useful produced: cannot measure, cannot write */
    EXIT_USAGE = 2,               /* a wrong command line, or a named file that cannot be read */
    EXIT_SLOW = 3,                /* doctor's verdicts */
    EXIT_BROKEN = 4,
    EXIT_UNKNOWN = 5,
    EXIT_PARTIAL = 6,             /* output written, but a part or an input was skipped */
    EXIT_MISSING_DEPENDENCY = 7,  /* a program or module the command needs is not there */
    EXIT_BAD_INPUT = 8,           /* a file given was read, but is not what the command needs */
    /* Commands that run another command (run, vm) return its status; their own: */
    EXIT_WRAPPER_FAILED = 125,    /* failed before the command ran (as env(1), timeout(1)) */
    EXIT_NOT_EXECUTABLE = 126,
    EXIT_NOT_FOUND = 127,
    EXIT_SIGNAL_BASE = 128,       /* + N: the command was killed by signal N */
};

/* Pseudo-codes of an exit_use list: the command run returns its own status; the end. */
#define EXIT_COMMANDS_OWN (-1)
#define EXIT_USES_END (-2)

/* One status a command uses, with what it means there (NULL: the table's words suffice).
 * A command's list ends with {EXIT_USES_END}. */
struct exit_use {
    int code;
    const char *detail;
};

/* The table's short name of a status ("partial"); NULL for a code not in the table. */
const char *exit_status_name(int code);
/* Prints the "Exit status:" paragraph of a --help: one line per status of uses, in the
 * table's words, each detail on the lines below it. */
void exit_status_help(FILE *out, const struct exit_use *uses);

#endif
