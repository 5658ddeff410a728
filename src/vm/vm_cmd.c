/* clockscope vm: boots a real kernel of any of the three arches under QEMU and runs one
 * clockscope command inside it, as the guest's only program.  This file is the command
 * line and the order of things; each step lives in its own file of src/vm/. */
#include "commands.h"
#include "common/cli.h"
#include "arch/arch.h"
#include "vm/guest_binary.h"
#include "vm/guest_files.h"
#include "vm/guest_init.h"
#include "vm/initramfs.h"
#include "vm/kernel_cache.h"
#include "vm/kernel_image.h"
#include "vm/kvm.h"
#include "vm/qemu.h"
#include "common/subprocess.h"
#include "vm/vm_arch.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_VM_FAILED 125
/* Under KVM a Debian kernel reaches /init in 1 to 3 s; far beyond that, KVM is not
 * running the guest (and TCG is tried instead). */
#define KVM_INIT_DEADLINE_S 20.0
#define PATH_LEN 4096

static const char help[] =
    "usage: clockscope vm --arch x86_64|aarch64|riscv64 [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Boots a real Linux kernel of that architecture under qemu-system and runs\n"
    "`clockscope COMMAND ARGS...` inside it as the only program (a static clockscope is\n"
    "the initramfs's /init).  The command's stdout and stderr appear here, separated from\n"
    "the kernel's console messages, and its exit status is ours.  Use it to see another\n"
    "clocksource (--append clocksource=hpet), another arch's vDSO, or your own kernel,\n"
    "without changing this machine.\n"
    "\n"
    "  --arch ARCH      x86_64, aarch64 or riscv64\n"
    "  --kernel IMAGE   boot this kernel (bzImage / arm64 Image / riscv Image, or gzipped);\n"
    "                   default: Debian's (bookworm; riscv64: trixie), fetched once into\n"
    "                   $XDG_CACHE_HOME/clockscope (or $CLOCKSCOPE_CACHE_DIR)\n"
    "  --append ARGS    extra kernel command line arguments, e.g. \"clocksource=hpet\"\n"
    "  --cpus N         virtual CPUs (default 2)\n"
    "  --memory MIB     guest memory in MiB (default 512)\n"
    "  --timeout S      give up after S seconds, killing the guest (default 300)\n"
    "  --binary PATH    the static clockscope of ARCH to run inside (default: the first of\n"
    "                   <dir of this binary>/ARCH/clockscope (`make vm-binaries`),\n"
    "                   <dir of this binary>/../libexec/clockscope/ARCH/clockscope\n"
    "                   (`make install`), or this binary when it is a static ARCH one)\n"
    "  --no-kvm         use TCG even where KVM works\n"
    "  --env NAME=VALUE set this in the command's environment (repeatable; PATH defaults\n"
    "                   to " GUEST_DEFAULT_PATH ")\n"
    "  --add HOST[:GUEST]  copy this file into the guest (default GUEST: /bin/<name>);\n"
    "                   a dynamically linked program or library brings its loader and\n"
    "                   libraries (found with ldd; host arch only).  Repeatable; at most\n"
    "                   512 files, 160 MiB.  E.g. --add build/libclockscope-shim.so:/lib/\n"
    "                   clockscope/libclockscope-shim.so --env CLOCKSCOPE_SHIM=/lib/...\n"
    "  --quiet          no notes on stderr about the guest (KVM or TCG, times)\n"
    "\n"
    "KVM is used when the guest's arch is this machine's and /dev/kvm works; otherwise\n"
    "TCG emulates the CPU, and timings inside are emulation timings, not hardware ones.\n"
    "\n"
    "Exit status: the command's own; 2 bad usage (also a missing or wrong kernel file);\n"
    "125 the VM failed (no qemu, no kernel, panic, timeout: the console tail is shown);\n"
    "130 interrupted.\n";

static void on_signal(int sig)
{
    (void)sig;
    vm_stop_requested = 1;
}

static bool parse_memory(const char *s, unsigned *mib)
{
    char err[80];
    uint64_t v;
    if (!parse_u64(s, 64, 1u << 20, &v, err, sizeof err))
        return false;
    *mib = (unsigned)v;
    return true;
}

static void print_tail(const struct vm_result *r)
{
    if (r->console_tail[0])
        fprintf(stderr, "--- console (last lines) ---\n%s%s--- end of console ---\n",
                r->console_tail,
                r->console_tail[strlen(r->console_tail) - 1] == '\n' ? "" : "\n");
    else
        fprintf(stderr, "(the guest printed nothing on its console)\n");
    if (r->qemu_stderr[0])
        fprintf(stderr, "--- qemu stderr ---\n%s\n", r->qemu_stderr);
}

static int report(const struct vm_boot *b, const struct vm_result *r, bool quiet)
{
    switch (r->outcome) {
    case VM_DONE:
        if (!quiet)
            fprintf(stderr, "clockscope vm: /init ran %.1f s after qemu started; the command "
                            "took %.1f s and exited with status %d\n", r->init_s, r->run_s,
                    r->exit_code);
        return r->exit_code;
    case VM_FRAMING:
        fprintf(stderr, "clockscope vm: the command's output did not arrive intact (%s); its "
                        "exit status was %d\n", r->framing_error, r->exit_code);
        print_tail(r);
        return EXIT_VM_FAILED;
    case VM_PANIC:
        fprintf(stderr, "clockscope vm: the guest kernel panicked: %s\n", r->panic_line);
        print_tail(r);
        return EXIT_VM_FAILED;
    case VM_TIMEOUT:
        if (!r->console_output)
            fprintf(stderr, "clockscope vm: the guest printed nothing in %.0f s and was killed "
                            "(a kernel that does not start on this machine?)\n", b->timeout_s);
        else
            fprintf(stderr, "clockscope vm: the guest %s after %.0f s and was killed\n",
                    r->init_started ? "had not finished the command" : "had not started /init",
                    b->timeout_s);
        print_tail(r);
        return EXIT_VM_FAILED;
    case VM_QEMU_FAILED:
        fprintf(stderr, "clockscope vm: %s failed to start the guest\n", b->arch->qemu);
        print_tail(r);
        return EXIT_VM_FAILED;
    case VM_STOPPED:
        fprintf(stderr, "clockscope vm: the guest stopped %s without reporting the command's "
                        "exit status\n", r->init_started ? "after /init started" : "before /init ran");
        print_tail(r);
        return EXIT_VM_FAILED;
    case VM_INIT_LATE: /* only under KVM, which is retried with TCG */
        fprintf(stderr, "clockscope vm: the guest did not reach /init in %.0f s\n",
                b->init_deadline_s);
        print_tail(r);
        return EXIT_VM_FAILED;
    case VM_INTERRUPTED:
        fprintf(stderr, "clockscope vm: interrupted; the guest was killed\n");
        return 130;
    }
    return EXIT_VM_FAILED;
}

int cmd_vm(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"arch", required_argument, 0, 'a'},   {"kernel", required_argument, 0, 'k'},
        {"append", required_argument, 0, 'A'}, {"cpus", required_argument, 0, 'c'},
        {"memory", required_argument, 0, 'm'}, {"timeout", required_argument, 0, 't'},
        {"binary", required_argument, 0, 'b'}, {"no-kvm", no_argument, 0, 'n'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {"env", required_argument, 0, 'e'},   {"add", required_argument, 0, 'F'},
        {0, 0, 0, 0},
    };
    const char *arch_name_opt = NULL, *kernel = NULL, *append = NULL, *binary_opt = NULL;
    unsigned cpus = 2, memory = 512;
    double timeout = 300;
    bool no_kvm = false, quiet = false;
    static const char *envs[GUEST_ENV_MAX], *adds[GUEST_FILES_MAX];
    int n_env = 0, n_add = 0;
    size_t env_bytes = 0;
    char err[160];
    opterr = 0;
    optind = 1;
    int c;
    /* "+": options end at the first non-option, so the command's own options are its. */
    while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': arch_name_opt = optarg; break;
        case 'k': kernel = optarg; break;
        case 'A': append = optarg; break;
        case 'b': binary_opt = optarg; break;
        case 'n': no_kvm = true; break;
        case 'q': quiet = true; break;
        case 'c': {
            uint64_t v;
            if (!parse_u64(optarg, 1, 64, &v, err, sizeof err))
                usage_error("vm", "--cpus: %s", err);
            cpus = (unsigned)v;
            break;
        }
        case 'm':
            if (!parse_memory(optarg, &memory))
                usage_error("vm", "--memory: '%s' is not a size in MiB from 64 to 1048576",
                            optarg);
            break;
        case 't':
            if (!parse_seconds(optarg, 1, 86400, &timeout, err, sizeof err))
                usage_error("vm", "--timeout: %s", err);
            break;
        case 'e':
            if (!guest_env_check(optarg, err, sizeof err))
                usage_error("vm", "%s", err);
            for (int i = 0; i < n_env; i++)
                if (strcspn(envs[i], "=") == strcspn(optarg, "=") &&
                    strncmp(envs[i], optarg, strcspn(optarg, "=")) == 0)
                    usage_error("vm", "--env: %.*s given twice", (int)strcspn(optarg, "="),
                                optarg);
            env_bytes += strlen(optarg) + 1;
            if (n_env == GUEST_ENV_MAX || env_bytes > GUEST_ENV_MAX_BYTES)
                usage_error("vm", "--env: more than %d variables or %d bytes", GUEST_ENV_MAX,
                            GUEST_ENV_MAX_BYTES);
            envs[n_env++] = optarg;
            break;
        case 'F':
            if (n_add == GUEST_FILES_MAX)
                usage_error("vm", "--add: more than %d files", GUEST_FILES_MAX);
            adds[n_add++] = optarg;
            break;
        case 'h': fputs(help, stdout); return 0;
        default: usage_error("vm", "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (!arch_name_opt)
        usage_error("vm", "--arch is required (%s)", vm_arch_names());
    const struct vm_arch *arch = vm_arch_find(arch_name_opt);
    if (!arch)
        usage_error("vm", "unknown --arch '%s' (%s)", arch_name_opt, vm_arch_names());
    if (optind >= argc)
        usage_error("vm", "no command to run inside: `clockscope vm --arch %s -- bench --quick`",
                    arch->name);
    size_t arg_bytes = 0;
    for (int i = optind; i < argc; i++)
        arg_bytes += strlen(argv[i]) + 1;
    if (argc - optind > GUEST_MAX_ARGS || arg_bytes > GUEST_MAX_ARGV_BYTES)
        usage_error("vm", "the command inside has more than %d arguments or %d bytes of them",
                    GUEST_MAX_ARGS, GUEST_MAX_ARGV_BYTES);
    if (memory < 128)
        usage_error("vm", "--memory %u: a Debian kernel needs at least 128 MiB", memory);

    static struct guest_files files;
    static char env_blob[GUEST_ENV_MAX_BYTES];
    size_t env_size = 0;
    for (int i = 0; i < n_env; i++) {
        memcpy(env_blob + env_size, envs[i], strlen(envs[i]) + 1);
        env_size += strlen(envs[i]) + 1;
    }
    for (int i = 0; i < n_add; i++) {
        char add_why[1200];
        if (!guest_files_add(&files, arch, adds[i], add_why, sizeof add_why)) {
            guest_files_free(&files);
            usage_error("vm", "%s", add_why);
        }
    }

    /* Checks in the order of their cost: nothing is fetched or built for a VM that
     * cannot run. */
    if (!program_on_path(arch->qemu)) {
        fprintf(stderr, "clockscope vm: %s is not installed (install it with: apt-get install "
                        "%s)\n", arch->qemu, arch->qemu_package);
        return EXIT_VM_FAILED;
    }
    char binary[PATH_LEN], why[8192];
    if (!guest_binary_find(arch, binary_opt, binary, sizeof binary, why, sizeof why)) {
        fprintf(stderr, "clockscope vm: %s\n", why);
        return binary_opt ? EXIT_USAGE : EXIT_VM_FAILED;
    }
    char kernel_path[PATH_LEN], desc[512], boot_path[PATH_LEN], gz_tmp[PATH_LEN] = "";
    if (kernel) {
        snprintf(kernel_path, sizeof kernel_path, "%s", kernel);
        snprintf(desc, sizeof desc, "%s", kernel);
    } else if (!kernel_default(arch, kernel_path, sizeof kernel_path, desc, sizeof desc, why,
                               sizeof why)) {
        fprintf(stderr, "clockscope vm: %s\n", why);
        return EXIT_VM_FAILED;
    }
    if (!kernel_image_check(arch, kernel_path, boot_path, sizeof boot_path, gz_tmp,
                            sizeof gz_tmp, why, sizeof why)) {
        if (gz_tmp[0])
            unlink(gz_tmp);
        fprintf(stderr, "clockscope vm: %s\n", why);
        return kernel ? EXIT_USAGE : EXIT_VM_FAILED;
    }
    char initrd[PATH_LEN];
    bool built = initramfs_build(binary, argc - optind, argv + optind, &files, env_blob,
                                 env_size, initrd, sizeof initrd, why, sizeof why);
    guest_files_free(&files);
    if (!built) {
        if (gz_tmp[0])
            unlink(gz_tmp);
        fprintf(stderr, "clockscope vm: %s\n", why);
        return EXIT_VM_FAILED;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct vm_boot b = {arch, boot_path, initrd, append, cpus, memory, false, timeout, 0};
    char kvm_why[160] = "";
    if (no_kvm)
        snprintf(kvm_why, sizeof kvm_why, "--no-kvm");
    else if (strcmp(arch->name, arch_name()) != 0)
        snprintf(kvm_why, sizeof kvm_why, "the guest is not this machine's arch (%s)", arch_name());
    else
        b.kvm = kvm_usable(arch->name, kvm_why, sizeof kvm_why);
    if (b.kvm)
        b.init_deadline_s = KVM_INIT_DEADLINE_S;
    static struct vm_result r;
    for (;;) {
        if (!quiet) {
            fprintf(stderr, "clockscope vm: %s guest, kernel %s, %u vCPU%s, %u MiB, %s\n",
                    arch->name, desc, cpus, cpus == 1 ? "" : "s", memory,
                    b.kvm ? "KVM" : "TCG");
            if (!b.kvm)
                fprintf(stderr, "clockscope vm: TCG (no KVM: %s): the CPU is emulated, so "
                                "timings inside are emulation timings, not hardware timings\n",
                        kvm_why);
        }
        vm_boot_run(&b, &r);
        /* KVM that opens but cannot run this guest (nested virtualization limits): once
         * more under TCG. */
        if (b.kvm && r.outcome == VM_QEMU_FAILED && !r.console_output) {
            fprintf(stderr, "clockscope vm: qemu could not start with KVM (%s); retrying with "
                            "TCG\n", r.qemu_stderr);
            b.kvm = false;
            snprintf(kvm_why, sizeof kvm_why, "qemu failed with KVM");
            continue;
        }
        if (b.kvm && r.outcome == VM_INIT_LATE) {
            char what[160];
            snprintf(what, sizeof what, "under KVM the guest did not reach /init in %.0f s",
                     b.init_deadline_s);
            fprintf(stderr, "clockscope vm: %s (nested virtualization that cannot run guests?); "
                            "retrying with TCG, and using TCG until this host reboots\n", what);
            kvm_mark_broken(arch->name, what);
            b.kvm = false;
            b.init_deadline_s = 0;
            snprintf(kvm_why, sizeof kvm_why, "%s", what);
            continue;
        }
        break;
    }
    unlink(initrd);
    if (gz_tmp[0])
        unlink(gz_tmp);
    return report(&b, &r, quiet);
}
