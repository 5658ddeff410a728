/* clockscope doctor: why reading the time is slow here, the proof, and what to do. */
#include "commands.h"
#include "common/cli.h"
#include "doctor/diagnosis.h"
#include "doctor/proof.h"
#include "doctor/report.h"
#include "facts/facts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: clockscope doctor [--root DIR] [--no-proof] [--json] [--verbose]\n"
    "\n"
    "Finds out whether reading the time (clock_gettime, gettimeofday) is served in user\n"
    "space by the vDSO, proves it by counting the syscalls 1000 calls really make\n"
    "(seccomp, unprivileged) and timing them against the raw syscall and the raw counter,\n"
    "and explains why not: clocksource, TSC demotions and their watchdog, timer errata,\n"
    "trapping counters, command-line traps.  Each finding has its evidence and fix.\n"
    "\n"
    "  --root DIR   reason from a facts root (see `clockscope facts --save`, or an\n"
    "               unpacked sosreport) instead of this machine; nothing is measured\n"
    "  --no-proof   live facts only: no syscall counting, no timing\n"
    "  --json       machine-readable output (docs/json.md: clockscope.doctor/1)\n"
    "  --verbose    every finding in full\n"
    "\n"
    "Exit status: 0 ok, 3 slow, 4 broken, 5 unknown (the facts do not decide it);\n"
    "2 bad usage or a facts root that is not a readable directory; 1 internal failure.\n";

int cmd_doctor(int argc, char **argv)
{
    static const struct option opts[] = {
        {"root", required_argument, 0, 'r'}, {"no-proof", no_argument, 0, 'n'},
        {"json", no_argument, 0, 'j'},       {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0},
    };
    const char *root = NULL;
    bool json = false, verbose = false, proof = true;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            root = optarg;
            break;
        case 'n':
            proof = false;
            break;
        case 'j':
            json = true;
            break;
        case 'v':
            verbose = true;
            break;
        case 'h':
            fputs(help, stdout);
            return 0;
        default:
            usage_error("doctor", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        usage_error("doctor", "unexpected argument '%s'", argv[optind]);
    if (root && !root[0])
        usage_error("doctor", "--root needs a directory");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static struct facts fs;
    static struct proof p;
    static struct diagnosis d;
    if (root) {
        char why[4400];
        if (!facts_load_root(root, &fs, why, sizeof why))
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
