/* SPDX-License-Identifier: MIT */
/* clockscope: what reading the time costs on this machine, why, and what to do about it. */
#include "commands.h"
#include "common/stdout_check.h"
#include "common/cli.h"
#include "common/message.h"
#include "common/version.h"
#include "vm/guest_init.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>


struct command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
    {"bench", "what every way of reading the time costs here", cmd_bench},
    {"warp", "does time go backwards between CPUs; counter rate, drift, resolution", cmd_warp},
    {"doctor", "why reading the time is slow here, the proof, and the fix", cmd_doctor},
    {"profile", "how much of a program's CPU goes to reading the time, by which path", cmd_profile},
    {"runtimes", "what reading the time costs in Python, Go, Java, Node, Rust, C", cmd_runtimes},
    {"ladder", "the cost of crossing into the kernel and between CPUs, side by side", cmd_ladder},
    {"vdso", "the vDSO's symbols, from this process or an image file", cmd_vdso},
    {"facts", "the facts doctor reads; --save DIR writes them as a facts root", cmd_facts},
    {"run", "run a program with cheaper (or counted) clock reads", cmd_run},
    {"vm", "run a clockscope command inside a VM of any arch", cmd_vm},
    {"collect", "run every part here and write one bundle for `report`", cmd_collect},
    {"report", "compare bundles from many machines: tables, charts, HTML (Python)", cmd_report},
    {"metrics", "Prometheus metrics for node_exporter's textfile collector", cmd_metrics},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: clockscope <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'clockscope <command> --help' describes each, and the exit statuses it uses:\n"
                 "0 ok, 1 failed, 2 usage, 6 partial, 7 missing dependency, 8 bad input; doctor's\n"
                 "verdicts 3 slow, 4 broken, 5 unknown; run and vm return the command's own, or\n"
                 "125 wrapper failed, 126 not executable, 127 not found, 128+N signal (README.md).\n");
}

/* clockscope's own options, before the command: the help is usage(), built from commands[]. */
struct main_options {
    bool version;
};

static const struct cli_option main_decl[] = {
    {.name = "version", CLI_FLAG_OF(struct main_options, version)},
    {0},
};

static const struct cli_spec main_cli = {.cmd = NULL, .options = main_decl, .args = CLI_COMMAND,
                                         .args_usage = "<command> [options]"};

int main(int argc, char **argv)
{
    /* As a VM's /init (clockscope vm), this binary is PID 1. */
    if (getpid() == 1)
        guest_init_main();
    stdout_check_at_exit();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    struct main_options o = {0};
    int first = 1;
    char err[MSG_LINE];
    switch (cli_parse_status(&main_cli, argc, argv, &o, &first, err, sizeof err)) {
    case CLI_HELP:
        usage(stdout);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    case CLI_ERROR:
        if (o.version && first >= argc)
            break; /* "clockscope --version" has no command */
        fprintf(stderr, "clockscope: %s\n", err);
        usage(stderr);
        return EXIT_USAGE;
    case CLI_OK:
        break;
    }
    if (o.version) {
        printf("clockscope %s\n", clockscope_version());
        return 0;
    }
    if (strcmp(argv[first], "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[first], commands[i].name) == 0)
            return commands[i].run(argc - first, argv + first);
    fprintf(stderr, "clockscope: unknown command '%s'\n", argv[first]);
    usage(stderr);
    return EXIT_USAGE;
}
