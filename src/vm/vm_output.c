/* SPDX-License-Identifier: MIT */
/* What `clockscope vm` says on stderr: the notes about each boot and scenario, and how a
 * boot ended, with the console tail when it failed. */
#include "vm/vm_output.h"
#include "common/exit_status.h"
#include "common/message.h"
#include "common/text_wrap.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>


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

int vm_report(const struct vm_boot *b, const struct vm_result *r, bool quiet)
{
    switch (r->outcome) {
    case VM_DONE:
        if (!quiet)
            vm_note("/init ran %.1f s after qemu started; the command "
                            "took %.1f s and exited with status %d", r->init_s, r->run_s,
                    r->exit_code);
        return r->exit_code;
    case VM_FRAMING:
        vm_note("the command's output did not arrive intact (%s); its "
                        "exit status was %d", r->framing_error, r->exit_code);
        print_tail(r);
        return EXIT_WRAPPER_FAILED;
    case VM_PANIC:
        vm_note("the guest kernel panicked: %s", r->panic_line);
        print_tail(r);
        return EXIT_WRAPPER_FAILED;
    case VM_TIMEOUT:
        if (!r->console_output)
            vm_note("the guest printed nothing in %.0f s and was killed "
                            "(a kernel that does not start on this machine?)", b->timeout_s);
        else
            vm_note("the guest %s after %.0f s and was killed",
                    r->init_started ? "had not finished the command" : "had not started /init",
                    b->timeout_s);
        print_tail(r);
        return EXIT_WRAPPER_FAILED;
    case VM_QEMU_FAILED:
        vm_note("%s failed to start the guest", b->arch->desc->qemu_system);
        print_tail(r);
        return EXIT_WRAPPER_FAILED;
    case VM_STOPPED:
        vm_note("the guest stopped %s without reporting the command's "
                        "exit status", r->init_started ? "after /init started" : "before /init ran");
        print_tail(r);
        return EXIT_WRAPPER_FAILED;
    case VM_INIT_LATE: /* not reached: vm_cmd.c's boot() retries both (KVM with TCG, TCG
                        * with no deadline) */
        vm_note("the guest did not reach /init in %.0f s",
                b->init_deadline_s);
        print_tail(r);
        return EXIT_WRAPPER_FAILED;
    case VM_INTERRUPTED:
        vm_note("stopped by signal %d (%s); the guest was killed",
                (int)vm_stop_requested, strsignal((int)vm_stop_requested));
        return EXIT_SIGNAL_BASE + (int)vm_stop_requested;
    }
    return EXIT_WRAPPER_FAILED;
}

void vm_note_boot(const struct vm_boot *b, const char *desc, bool tcg_why, const char *kvm_why)
{
    vm_note("%s guest, kernel %s, %u vCPU%s, %u MiB, %s",
            b->arch->name, desc, b->cpus, b->cpus == 1 ? "" : "s", b->memory_mb,
            b->kvm ? "KVM" : "TCG");
    if (tcg_why)
        vm_note("TCG (no KVM: %s): the CPU is emulated, so timings "
                        "inside are emulation timings, not hardware timings", kvm_why);
}

void vm_note_scenario_tree(const struct vm_scenario *s)
{
    vm_note("scenario %s: device tree with %s in the %s node", s->name,
            s->dt_property, s->dt_compatible);
}

void vm_note_scenario(const struct vm_scenario *s, const char *machine, const char *append)
{
    vm_note("scenario %s (machine %s%s%s): doctor's expected verdict "
                    "%s", s->name, machine, append ? ", append " : "", append ? append : "",
            s->verdict);
}

void vm_note(const char *fmt, ...)
{
    char text[MSG_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* A message of several lines: the first under the label, a line indented 4 (a command
     * to paste) as it is, any other wrapped on its own. */
    char *line = text;
    for (bool first = true; line; first = false) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        if (first)
            text_wrap(stderr, "clockscope vm: ", line, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
        else if (strncmp(line, "    ", 4) == 0)
            fprintf(stderr, "%s\n", line);
        else if (*line)
            text_wrap(stderr, "", line, 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
        line = end ? end + 1 : NULL;
    }
}
