/* SPDX-License-Identifier: MIT */
/* Every command's entry point: argv[0] is the command name, returns the exit status. */
#ifndef CLOCKSCOPE_COMMANDS_H
#define CLOCKSCOPE_COMMANDS_H

int cmd_bench(int argc, char **argv);
int cmd_vdso(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_facts(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_warp(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_ladder(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_runtimes(int argc, char **argv);

/* Each command's declared options and help (common/cli.h), defined beside its cmd_*. */
struct cli_spec;
extern const struct cli_spec bench_cli, warp_cli, vdso_cli, doctor_cli, facts_cli, run_cli, collect_cli,
    vm_cli, metrics_cli, ladder_cli, profile_cli, runtimes_cli;

#endif
