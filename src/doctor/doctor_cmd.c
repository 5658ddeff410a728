/* SPDX-License-Identifier: MIT */
/* clockscope doctor: why reading the time is slow here, the proof, and what to do. */
#include "commands.h"
#include "common/cli.h"
#include "common/message.h"
#include "doctor/diagnosis.h"
#include "doctor/fleet.h"
#include "facts/archive.h"
#include "doctor/proof.h"
#include "doctor/report.h"
#include "doctor/rules.h"
#include "facts/facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: clockscope doctor [--root DIR]... [--roots DIR] [--no-proof] [--json] [--verbose]\n"
    "\n"
    "Finds out whether reading the time (clock_gettime, gettimeofday) is served in user\n"
    "space by the vDSO, proves it by counting the syscalls 1000 calls really make\n"
    "(seccomp, unprivileged) and timing them against the raw syscall and the raw counter,\n"
    "and explains why not: clocksource, TSC demotions and their watchdog, timer errata,\n"
    "trapping counters, command-line traps.  Each finding has its evidence and fix.\n"
    "\n"
    "  --root DIR   reason from a facts root (see `clockscope facts --save`, or an\n"
    "               unpacked sosreport, or a sosreport archive .tar.xz/.tar.gz, unpacked\n"
    "               with tar into a private temporary directory) instead of this machine;\n"
    "               nothing is measured.  Given more than once: one result per root\n"
    "  --roots DIR  every directory and archive in DIR is a root (many machines at once:\n"
    "               with --json one JSON document per line and root, each with a \"root\"\n"
    "               field, then a summary line; a root that cannot be read has its own\n"
    "               error line, and the others still run)\n"
    "  --no-proof   live facts only: no syscall counting, no timing\n"
    "  --json       machine-readable output (docs/json.md: clockscope.doctor/2)\n"
    "  --verbose    every finding in full\n"
    "  --list-findings  every finding id the doctor can give, with its rule, and exit\n";

static const struct exit_use doctor_exits[] = {
    {EXIT_OK, "the verdict (over many roots: every root was judged)"},
    {EXIT_FAILED, NULL},
    {EXIT_USAGE, "also a facts root that is not a readable directory"},
    {EXIT_SLOW, NULL},
    {EXIT_BROKEN, NULL},
    {EXIT_UNKNOWN, NULL},
    {EXIT_PARTIAL, "over many roots: some root could not be read (the others were judged)"},
    {EXIT_USES_END, NULL},
};

#define DOCTOR_MAX_ROOTS 4096

struct doctor_options {
    const char *roots[DOCTOR_MAX_ROOTS];
    int nroots;
    const char *roots_dir;
    bool no_proof, json, verbose, list_findings;
};

static const struct cli_option doctor_decl[] = {
    {.name = "root", .metavar = "DIR", CLI_MULTI_OF(struct doctor_options, roots, nroots)},
    {.name = "roots", .metavar = "DIR", CLI_STRING_OF(struct doctor_options, roots_dir)},
    {.name = "no-proof", CLI_FLAG_OF(struct doctor_options, no_proof)},
    {.name = "json", CLI_FLAG_OF(struct doctor_options, json)},
    {.name = "verbose", CLI_FLAG_OF(struct doctor_options, verbose)},
    {.name = "list-findings", CLI_FLAG_OF(struct doctor_options, list_findings)},
    {0},
};

const struct cli_spec doctor_cli = {.cmd = "doctor", .help = help, .options = doctor_decl,
                                    .exits = doctor_exits};

int cmd_doctor(int argc, char **argv)
{
    static struct doctor_options o;
    cli_parse(&doctor_cli, argc, argv, &o);
    if (o.list_findings) {
        for (size_t i = 0; i < doctor_nrules; i++)
            for (const char *const *id = doctor_rules[i].ids; *id; id++)
                printf("%-36s %s\n", *id, doctor_rules[i].name);
        return EXIT_OK;
    }
    if (o.nroots > 1 || o.roots_dir)
        return fleet_run(o.roots, o.nroots, o.roots_dir, o.json);
    const char *root = o.nroots ? o.roots[0] : NULL;
    bool json = o.json, verbose = o.verbose, proof = !o.no_proof;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static struct facts fs;
    static struct proof p;
    static struct diagnosis d;
    if (root) {
        char why[MSG_WITH_PATH];
        if (!archive_load_root(root, &fs, why, sizeof why))
            usage_error("doctor", "%s", why);
    } else {
        facts_load_live(&fs);
        if (proof)
            proof_run(&p);
    }
    diagnose(&fs, &p, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (json)
        report_json(stdout, &fs, &p, &d, elapsed);
    else
        report_text(stdout, &fs, &p, &d, verbose);
    fflush(stdout);
    facts_free(&fs);
    return verdict_exit_status(d.verdict);
}
