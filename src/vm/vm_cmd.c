/* SPDX-License-Identifier: MIT */
/* clockscope vm: boots a real kernel of any of the three arches under QEMU and runs one
 * clockscope command inside it, as the guest's only program.  This file is the command
 * line and the order of things; each step lives in its own file of src/vm/. */
#include "commands.h"
#include "common/cli.h"
#include "arch/arch.h"
#include "common/message.h"
#include "vm/apply_fix.h"
#include "vm/dtb.h"
#include "vm/guest_binary.h"
#include "vm/guest_files.h"
#include "vm/guest_init.h"
#include "vm/initramfs.h"
#include "vm/kernel_cache.h"
#include "vm/kernel_image.h"
#include "vm/kvm.h"
#include "vm/qemu.h"
#include "vm/scenarios.h"
#include "common/subprocess.h"
#include "vm/vm_arch.h"
#include "vm/vm_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under KVM a Debian kernel reaches /init in 1 to 3 s; far beyond that, KVM is not
 * running the guest (and TCG is tried instead). */
#define KVM_INIT_DEADLINE_S 20.0
/* Under TCG the Debian kernels reach /init in 2.4 to 6.4 s with one CPU of two kept busy
 * (docs/vm.md).  Now and then qemu's emulation stalls before the kernel prints a word
 * (seen: a riscv64 guest silent after OpenSBI's banner for 150 s, the same command booting
 * in 2.3 s the next time): a boot not at /init ten times later than the slowest is tried
 * once more, within --timeout. */
#define TCG_INIT_DEADLINE_S 60.0
#define PATH_LEN 4096

static const char help[] =
    "usage: clockscope vm --arch x86_64|aarch64|riscv64 [options] -- COMMAND [ARGS...]\n"
    "       clockscope vm --scenario NAME [options] -- COMMAND [ARGS...]\n"
    "       clockscope vm --list-scenarios\n"
    "\n"
    "Boots a real Linux kernel of that architecture under qemu-system and runs\n"
    "`clockscope COMMAND ARGS...` inside it as the only program (a static clockscope is\n"
    "the initramfs's /init).  The command's stdout and stderr appear here, separated from\n"
    "the kernel's console messages, and its exit status is ours.  Use it to see another\n"
    "clocksource (--append clocksource=hpet), another arch's vDSO, or your own kernel,\n"
    "without changing this machine.\n"
    "\n"
    "  --arch ARCH      x86_64, aarch64 or riscv64\n"
    "  --scenario NAME  a failure of the lab (docs/lab.md): its arch, machine, kernel\n"
    "                   command line, vCPUs and device tree; --append adds to its command\n"
    "                   line, --vcpus overrides its vCPUs\n"
    "  --list-scenarios what each scenario reproduces and the doctor's verdict there\n"
    "  --machine NAME   the QEMU machine model: x86_64 pc (default) or q35, aarch64 virt,\n"
    "                   riscv64 virt (default) or sifive_u (no time CSR: rdtime traps)\n"
    "  --kernel IMAGE   boot this kernel (bzImage / arm64 Image / riscv Image, or gzipped);\n"
    "                   default: Debian's (bookworm; riscv64: trixie), fetched once into\n"
    "                   $XDG_CACHE_HOME/clockscope (or $CLOCKSCOPE_CACHE_DIR)\n"
    "  --append ARGS    extra kernel command line arguments, e.g. \"clocksource=hpet\"\n"
    "  --vcpus N        virtual CPUs (default 2; bench, warp and ladder's --cpus is a list\n"
    "                   of this machine's CPUs)\n"
    "  --memory MIB     guest memory in MiB (default 512)\n"
    "  --timeout S      give up after S seconds, killing the guest (default 300)\n"
    "  --init-deadline S  under TCG, boot once more (within --timeout) when /init has\n"
    "                   not started S seconds after qemu did: qemu's emulation can stall\n"
    "                   before the kernel runs (default 60; 0: never)\n"
    "  --binary PATH    the static clockscope of ARCH to run inside (default: the first of\n"
    "                   <dir of this binary>/ARCH/clockscope (`make vm-binaries`),\n"
    "                   <dir of this binary>/../libexec/clockscope/ARCH/clockscope\n"
    "                   (`make install`), or this binary when it is a static ARCH one)\n"
    "  --no-kvm         use TCG even where KVM works\n"
    "  --env NAME=VALUE set this in the command's environment (repeatable; PATH defaults\n"
    "                   to " GUEST_DEFAULT_PATH ")\n"
    "  --add HOST[:GUEST]  copy this file into the guest (default GUEST: /bin/<name>);\n"
    "                   a dynamically linked program or library brings its loader and\n"
    "                   libraries (this machine's arch: found with ldd; another arch: from\n"
    "                   /usr/TRIPLET/lib, Debian's libc6-ARCH-cross).  Repeatable; at most\n"
    "                   512 files, 160 MiB.  With COMMAND `run`, the arch's shim (beside\n"
    "                   the guest binary) comes along: vm --arch aarch64 --add PROG --\n"
    "                   run --mode count -- PROG\n"
    "  --quiet          no notes on stderr about the guest (KVM or TCG, times)\n"
    "  --apply-fix      with --scenario: run the doctor in the guest, apply its first\n"
    "                   action the guest allows (reboot with the changed kernel command\n"
    "                   line; a sysfs write before COMMAND; or COMMAND wrapped in that\n"
    "                   `clockscope run`, COMMAND then being a program --add brought), run\n"
    "                   COMMAND, and print before and after: the doctor's verdict, ns per\n"
    "                   clock_gettime call, syscalls per 1000 calls (docs/lab.md)\n"
    "  --json           with --apply-fix: before, action, after and the command's output\n"
    "                   as one JSON document\n"
    "\n"
    "KVM is used when the guest's arch is this machine's and /dev/kvm works; otherwise\n"
    "TCG emulates the CPU, and timings inside are emulation timings, not hardware ones.\n";

static const struct exit_use vm_exits[] = {
    {EXIT_COMMANDS_OWN, NULL},
    {EXIT_FAILED, "with --apply-fix: no action of the doctor applies in the guest"},
    {EXIT_USAGE, "also a missing or wrong kernel file or --binary"},
    {EXIT_WRAPPER_FAILED, "the VM failed: no qemu, no kernel, a panic, a timeout (the console\n"
                          "tail is shown), or no static guest binary (build them: make vm-binaries)"},
    {EXIT_SIGNAL_BASE, "vm was stopped by signal N (the guest killed first): 130 SIGINT,\n"
                       "143 SIGTERM, 129 SIGHUP"},
    {EXIT_USES_END, NULL},
};

/* The signal itself is kept: the exit status says which (128 + it, as a shell reports). */
static void on_signal(int sig)
{
    if (!vm_stop_requested)
        vm_stop_requested = sig;
}

struct vm_options {
    const char *arch_arg, *kernel, *append, *binary, *scenario_arg, *machine_arg;
    const struct vm_arch *arch;
    const struct vm_scenario *scenario;
    bool list_scenarios;
    int vcpus, memory;
    double timeout, init_deadline;
    bool no_kvm, quiet, apply_fix, json;
    const char *envs[GUEST_ENV_MAX], *adds[GUEST_FILES_MAX];
    int n_env, n_add;
};

/* --arch ARCH: one vm_arch_find knows, kept in vm_options.arch. */
static bool arch_known(void *opts, const char *value, char *why, size_t whylen)
{
    struct vm_options *o = opts;
    o->arch = vm_arch_find(value);
    if (!o->arch)
        cli_not_one_of(why, whylen, value, vm_arch_names());
    return o->arch != NULL;
}

/* --scenario NAME: one of the table's. */
static bool scenario_known(void *opts, const char *value, char *why, size_t whylen)
{
    struct vm_options *o = opts;
    o->scenario = vm_scenario_find(value);
    if (!o->scenario)
        cli_not_one_of(why, whylen, value, vm_scenario_names());
    return o->scenario != NULL;
}

/* --env NAME=VALUE: a valid assignment, each NAME once, all within the guest's budget. */
static bool env_fits(void *opts, const char *value, char *why, size_t whylen)
{
    const struct vm_options *o = opts;
    if (!guest_env_check(value, why, whylen))
        return false;
    size_t name_len = strcspn(value, "="), bytes = strlen(value) + 1;
    for (int i = 0; i < o->n_env; i++) {
        if (strcspn(o->envs[i], "=") == name_len && strncmp(o->envs[i], value, name_len) == 0) {
            snprintf(why, whylen, "%.*s given twice", (int)name_len, value);
            return false;
        }
        bytes += strlen(o->envs[i]) + 1;
    }
    if (bytes > GUEST_ENV_MAX_BYTES) {
        snprintf(why, whylen, "more than %d bytes of variables", GUEST_ENV_MAX_BYTES);
        return false;
    }
    return true;
}

static const struct cli_option vm_decl[] = {
    {.name = "arch", .metavar = "ARCH", .check = arch_known, .excludes = "scenario",
     CLI_STRING_OF(struct vm_options, arch_arg)},
    {.name = "scenario", .metavar = "NAME", .check = scenario_known,
     CLI_STRING_OF(struct vm_options, scenario_arg)},
    {.name = "list-scenarios", CLI_FLAG_OF(struct vm_options, list_scenarios)},
    {.name = "machine", .metavar = "NAME", .excludes = "scenario",
     CLI_STRING_OF(struct vm_options, machine_arg)},
    {.name = "kernel", .metavar = "IMAGE", CLI_STRING_OF(struct vm_options, kernel)},
    {.name = "append", .metavar = "ARGS", CLI_STRING_OF(struct vm_options, append)},
    {.name = "vcpus", .metavar = "N", CLI_UINT_OF(struct vm_options, vcpus, 1, 64)},
    /* A Debian kernel needs at least 128 MiB. */
    {.name = "memory", .metavar = "MIB", CLI_UINT_OF(struct vm_options, memory, 128, 1u << 20)},
    {.name = "timeout", .metavar = "S", CLI_SECONDS_OF(struct vm_options, timeout, 1, 86400)},
    {.name = "init-deadline", .metavar = "S",
     CLI_SECONDS_OF(struct vm_options, init_deadline, 0, 86400)},
    {.name = "binary", .metavar = "PATH", CLI_STRING_OF(struct vm_options, binary)},
    {.name = "no-kvm", CLI_FLAG_OF(struct vm_options, no_kvm)},
    {.name = "env", .metavar = "NAME=VALUE", .check = env_fits,
     CLI_MULTI_OF(struct vm_options, envs, n_env)},
    {.name = "add", .metavar = "HOST[:GUEST]", CLI_MULTI_OF(struct vm_options, adds, n_add)},
    {.name = "quiet", CLI_FLAG_OF(struct vm_options, quiet)},
    {.name = "apply-fix", CLI_FLAG_OF(struct vm_options, apply_fix)},
    {.name = "json", CLI_FLAG_OF(struct vm_options, json)},
    {0},
};

static const char *const vm_instead_of_command[] = {"list-scenarios", NULL};
const struct cli_spec vm_cli = {.cmd = "vm", .help = help, .options = vm_decl,
                                .args = CLI_COMMAND, .args_usage = "-- COMMAND [ARGS...]",
                                .command_unless = vm_instead_of_command, .exits = vm_exits};

/* The options, and the index of the command to run inside.  --list-scenarios needs no
 * command; without --scenario, --arch is required. */
static int parse_args(int argc, char **argv, struct vm_options *o)
{
    memset(o, 0, sizeof *o);
    o->memory = 512;
    o->timeout = 300;
    o->init_deadline = TCG_INIT_DEADLINE_S;
    char err[MSG_REASON];
    int first = argc;
    enum cli_status st = cli_parse_status(&vm_cli, argc, argv, o, &first, err, sizeof err);
    if (st == CLI_HELP) {
        cli_print_help(&vm_cli, stdout);
        exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
    }
    if (st != CLI_OK)
        usage_error("vm", "%s", err);
    if (o->list_scenarios) {
        vm_scenarios_list(stdout);
        exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
    }
    if (!o->arch && !o->scenario)
        usage_error("vm", "--arch or --scenario is required");
    if (o->apply_fix && !o->scenario)
        usage_error("vm", "--apply-fix needs --scenario NAME");
    if (o->json && !o->apply_fix)
        usage_error("vm", "--json goes with --apply-fix (the command's own --json is given "
                          "after --)");
    if (o->scenario) {
        o->arch = vm_arch_find(o->scenario->arch);
        if (!o->vcpus)
            o->vcpus = (int)o->scenario->cpus;
    }
    if (!o->vcpus)
        o->vcpus = 2;
    const char *machine = o->scenario ? o->scenario->machine : o->machine_arg;
    if (!vm_machine_find(o->arch, machine)) {
        char names[MSG_LINE];
        vm_machine_names(o->arch, names, sizeof names);
        usage_error("vm", "--machine: '%s' is not one of %s (the %s machine models)", machine,
                    names, o->arch->name);
    }
    size_t arg_bytes = 0;
    for (int i = first; i < argc; i++)
        arg_bytes += strlen(argv[i]) + 1;
    if (argc - first > GUEST_MAX_ARGS || arg_bytes > GUEST_MAX_ARGV_BYTES)
        usage_error("vm", "the command inside has more than %d arguments or %d bytes of them",
                    GUEST_MAX_ARGS, GUEST_MAX_ARGV_BYTES);
    return first;
}

/* The kernel command line: the scenario's, then the user's (later arguments win).  It
 * must fit, after vm's own console/quiet/panic/rdinit arguments, in the line qemu gets:
 * never cut short without a word. */
#define APPEND_MAX 1900
static const char *command_line(const struct vm_options *o)
{
    static char line[APPEND_MAX + 1];
    const char *mine = o->scenario ? o->scenario->append : NULL;
    int n = snprintf(line, sizeof line, "%s%s%s", mine ? mine : "", mine && o->append ? " " : "",
                     o->append ? o->append : "");
    if (n < 0 || n >= (int)sizeof line)
        usage_error("vm", "--append: the kernel command line would be %d bytes (at most %d)", n,
                    APPEND_MAX);
    return line[0] ? line : NULL;
}

/* How vm boots a guest and what it says of it, the same for every boot of one run
 * (--apply-fix's too). */
struct vm_boot_policy {
    const char *desc;           /* the kernel, for the notes */
    bool no_kvm, quiet;
    double tcg_init_deadline_s; /* the TCG boot's deadline for /init (--init-deadline; 0: none) */
};

/* Boots b, under KVM where it works, and again under TCG where KVM turns out not to; a TCG
 * boot that has not reached /init by p->tcg_init_deadline_s once more.  Every attempt
 * shares b->timeout_s: --timeout bounds the whole. */
static void boot(const struct vm_boot_policy *p, struct vm_boot *b, struct vm_result *r)
{
    const double timeout_s = b->timeout_s, t0 = vm_now_s(), tcg_deadline = p->tcg_init_deadline_s;
    bool tcg_retried = false;
    char kvm_why[MSG_REASON] = ""; /* kvm_usable quotes a recorded reason and a path */
    if (p->no_kvm)
        snprintf(kvm_why, sizeof kvm_why, "--no-kvm");
    else if (strcmp(b->arch->name, arch_name()) != 0)
        snprintf(kvm_why, sizeof kvm_why, "the guest is not this machine's arch (%s)", arch_name());
    else
        b->kvm = kvm_usable(b->arch->name, kvm_why, sizeof kvm_why);
    for (;;) {
        /* Under TCG the deadline only makes sense when the retry has time left to boot:
         * at least as long again as the deadline. */
        double left = timeout_s - (vm_now_s() - t0);
        b->init_deadline_s = b->kvm ? KVM_INIT_DEADLINE_S
                             : !tcg_retried && tcg_deadline > 0 &&
                                       2 * tcg_deadline <= left ? tcg_deadline : 0;
        b->timeout_s = left > 1 ? left : 1;
        if (!p->quiet)
            vm_note_boot(b, p->desc, !b->kvm && !tcg_retried, kvm_why);
        vm_boot_run(b, r);
        /* KVM that opens but cannot run this guest (nested virtualization limits): once
         * more under TCG. */
        if (b->kvm && r->outcome == VM_QEMU_FAILED && !r->console_output) {
            vm_note("qemu could not start with KVM (%s); retrying with "
                            "TCG", r->qemu_stderr);
            b->kvm = false;
            snprintf(kvm_why, sizeof kvm_why, "qemu failed with KVM");
            continue;
        }
        if (b->kvm && r->outcome == VM_INIT_LATE) {
            char what[MSG_LINE];
            snprintf(what, sizeof what, "under KVM the guest did not reach /init in %.0f s",
                     b->init_deadline_s);
            vm_note("%s (nested virtualization that cannot run guests?); "
                            "retrying with TCG, and using TCG until this host reboots", what);
            kvm_mark_broken(b->arch->name, what);
            b->kvm = false;
            snprintf(kvm_why, sizeof kvm_why, "%s", what);
            continue;
        }
        if (!b->kvm && r->outcome == VM_INIT_LATE) {
            vm_note("under TCG the guest did not reach /init in %.0f s "
                            "(%s); booting it once more", b->init_deadline_s,
                    r->console_output ? "its console stopped before the kernel's /init"
                                      : "it printed nothing");
            tcg_retried = true;
            continue;
        }
        break;
    }
    b->timeout_s = timeout_s; /* what vm_report() says the limit was */
}

/* --apply-fix's boots report through this: vm's own message for a failed boot. */
static int fix_report(const struct vm_boot_policy *p, const struct vm_boot *b,
                      const struct vm_result *r)
{
    return vm_report(b, r, p->quiet);
}

/* `clockscope run` inside the guest finds its shim at /lib/clockscope/ (../lib/clockscope
 * from /init): the guest's arch's shim, built and installed beside the static guest binary
 * (`make vm-binaries`, `make install`), goes there with its loader and libc, unless the
 * command is not `run` or --add put a file there already. */
#define GUEST_SHIM_PATH "/lib/clockscope/libclockscope-shim.so"
static bool add_run_shim(struct guest_files *files, const struct vm_arch *arch,
                         const char *binary, int argc, char **argv, bool apply_fix, char *why,
                         size_t whylen)
{
    if (!apply_fix && (argc < 1 || strcmp(argv[0], "run") != 0))
        return true;
    for (size_t i = 0; i < files->n; i++)
        if (strcmp(files->v[i].guest, GUEST_SHIM_PATH) == 0)
            return true;
    char spec[PATH_LEN + 64];
    const char *slash = strrchr(binary, '/');
    snprintf(spec, sizeof spec, "%.*slibclockscope-shim.so",
             slash ? (int)(slash - binary + 1) : 0, binary);
    if (access(spec, R_OK) != 0 && apply_fix)
        return true; /* a run action, if the doctor gives one, says what is missing */
    if (access(spec, R_OK) != 0) {
        snprintf(why, whylen, "`run` in the %s guest needs that arch's libclockscope-shim.so, "
                 "which is not beside the guest binary (%s): `make vm-binaries` builds it "
                 "there (and `make install` installs it), or --add SHIM:" GUEST_SHIM_PATH,
                 arch->name, spec);
        return false;
    }
    size_t n = strlen(spec);
    snprintf(spec + n, sizeof spec - n, ":" GUEST_SHIM_PATH);
    return guest_files_add(files, arch, spec, why, whylen);
}

/* What the guest is made of: found, fetched and built before anything boots. */
struct vm_guest {
    struct guest_files files;  /* --add, and the shim `run` needs */
    char env[GUEST_ENV_MAX_BYTES]; /* --env strings, NUL-terminated each */
    size_t env_size;
    char binary[PATH_LEN];     /* the static clockscope that is /init */
    char kernel_path[PATH_LEN], desc[512], boot_path[PATH_LEN];
    char gz_tmp[PATH_LEN];     /* the gunzipped kernel, removed at the end; "" when none */
    char initrd[PATH_LEN];     /* removed at the end; "" when none */
    char dtb_dir[4200], dtb[4200]; /* a scenario's device tree; "" when none */
};

/* --env and --add into g: a file that cannot be added is a usage error. */
static void guest_inputs(const struct vm_options *o, struct vm_guest *g)
{
    for (int i = 0; i < o->n_env; i++) {
        memcpy(g->env + g->env_size, o->envs[i], strlen(o->envs[i]) + 1);
        g->env_size += strlen(o->envs[i]) + 1;
    }
    for (int i = 0; i < o->n_add; i++) {
        char add_why[MSG_PARAGRAPH];
        if (!guest_files_add(&g->files, o->arch, o->adds[i], add_why, sizeof add_why)) {
            guest_files_free(&g->files);
            usage_error("vm", "%s", add_why);
        }
    }
}

/* qemu, the guest binary and the shim `run` needs, the kernel, the initramfs for the
 * command argv[0..argc): checks in the order of their cost, so that nothing is fetched or
 * built for a VM that cannot run.  0, or vm's exit status (said on stderr). */
static int guest_build(const struct vm_options *o, int argc, char **argv, struct vm_guest *g)
{
    const struct vm_arch *arch = o->arch;
    if (!subprocess_on_path(arch->desc->qemu_system)) {
        vm_note("%s is not installed (install it with: apt-get install "
                        "%s)", arch->desc->qemu_system, arch->qemu_package);
        return EXIT_WRAPPER_FAILED;
    }
    char why[MSG_TEXT];
    int status = EXIT_WRAPPER_FAILED;
    if (!guest_binary_find(arch, o->binary, g->binary, sizeof g->binary, why, sizeof why)) {
        status = o->binary ? EXIT_USAGE : EXIT_WRAPPER_FAILED;
        goto fail;
    }
    if (!add_run_shim(&g->files, arch, g->binary, argc, argv, o->apply_fix, why, sizeof why))
        goto fail;
    if (o->kernel) {
        snprintf(g->kernel_path, sizeof g->kernel_path, "%s", o->kernel);
        snprintf(g->desc, sizeof g->desc, "%s", o->kernel);
    } else if (!kernel_default(arch, g->kernel_path, sizeof g->kernel_path, g->desc,
                               sizeof g->desc, why, sizeof why)) {
        goto fail;
    }
    if (!kernel_image_check(arch, g->kernel_path, g->boot_path, sizeof g->boot_path, g->gz_tmp,
                            sizeof g->gz_tmp, why, sizeof why)) {
        status = o->kernel ? EXIT_USAGE : EXIT_WRAPPER_FAILED;
        goto fail;
    }
    /* With --apply-fix each boot builds its own; this one still shapes the device tree. */
    if (initramfs_build(g->binary, argc, argv, &g->files, g->env, g->env_size, g->initrd,
                        sizeof g->initrd, why, sizeof why))
        return 0;
fail:
    guest_files_free(&g->files);
    if (g->gz_tmp[0])
        unlink(g->gz_tmp);
    vm_note("%s", why);
    return status;
}

/* SIGINT, SIGTERM and SIGHUP stop the guest (vm_stop_requested); a closed pipe is an
 * error of the write, not the end of vm. */
static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Scenario s's device tree: that of the machine as it will boot, TCG (a KVM guest's tree
 * names the host's CPU and GIC), the same CPUs and memory, with s's property added.  False
 * when it cannot be made (said on stderr). */
static bool scenario_tree(const struct vm_scenario *s, struct vm_boot *b,
                          struct vm_boot_policy *p, struct vm_guest *g)
{
    char why[MSG_TEXT];
    if (!vm_dtb_patched(b, s->dt_compatible, s->dt_property, g->dtb_dir, sizeof g->dtb_dir,
                        g->dtb, sizeof g->dtb, why, sizeof why)) {
        vm_note("scenario %s: %s", s->name, why);
        return false;
    }
    b->dtb = g->dtb;
    p->no_kvm = true;
    if (!p->quiet)
        vm_note_scenario_tree(s);
    return true;
}

int cmd_vm(int argc, char **argv)
{
    static struct vm_options o;
    int first = parse_args(argc, argv, &o);
    const char *append = command_line(&o);
    static struct vm_guest g;
    guest_inputs(&o, &g);
    int status = guest_build(&o, argc - first, argv + first, &g);
    if (status != 0)
        return status;
    catch_signals();

    const struct vm_scenario *s = o.scenario;
    struct vm_boot b = {o.arch, vm_machine_find(o.arch, s ? s->machine : o.machine_arg), NULL,
                        g.boot_path, g.initrd, append, (unsigned)o.vcpus, (unsigned)o.memory,
                        false, o.timeout, 0, NULL};
    struct vm_boot_policy p = {g.desc, o.no_kvm, o.quiet, o.init_deadline};
    bool ready = !(s && s->dt_property) || scenario_tree(s, &b, &p, &g);
    if (ready && s && !o.quiet)
        vm_note_scenario(s, b.machine->name, append);
    static struct vm_result r;
    if (ready && o.apply_fix) {
        struct fix_context ctx = {.scenario = s->name, .binary = g.binary, .files = &g.files,
                                  .env = g.env, .env_size = g.env_size, .boot = b,
                                  .json = o.json, .policy = &p, .run_boot = boot,
                                  .report_failure = fix_report};
        status = apply_fix_run(&ctx, argc - first, argv + first);
    } else if (ready) {
        boot(&p, &b, &r);
    }
    guest_files_free(&g.files);
    vm_dtb_remove(g.dtb_dir);
    if (g.initrd[0])
        unlink(g.initrd);
    if (g.gz_tmp[0])
        unlink(g.gz_tmp);
    if (!ready)
        return EXIT_WRAPPER_FAILED;
    if (o.apply_fix)
        return status;
    return vm_report(&b, &r, o.quiet);
}
