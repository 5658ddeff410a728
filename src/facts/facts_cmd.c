/* SPDX-License-Identifier: MIT */
/* clockscope facts: what the doctor reads, shown or saved as a facts root. */
#include "commands.h"
#include "common/cli.h"
#include "common/json.h"
#include "facts/facts.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "usage: clockscope facts [--save DIR [--force]] [--root DIR] [--json]\n"
    "\n"
    "Reads the facts `clockscope doctor` reasons from: clocksources, /proc/cpuinfo, the\n"
    "kernel command line and version, the kernel log (/dev/kmsg, syslog(2) or\n"
    "journalctl -k), virtualization (systemd-detect-virt, CPUID, /sys/hypervisor, DMI),\n"
    "CPU counter facts (CPUID, CNTFRQ_EL0, riscv timebase, which counter reads are\n"
    "permitted) and the vDSO's symbols.  Lists them, or saves them as a facts root that\n"
    "`clockscope doctor --root DIR` reads on another machine.\n"
    "\n"
    "  --save DIR   write a facts root to DIR (created; must be empty unless --force)\n"
    "  --force      write into a non-empty DIR, replacing files of the same names (a link\n"
    "               there is replaced itself, never written through)\n"
    "  --root DIR   list the facts of a facts root instead of this machine's\n"
    "  --json       list as JSON (clockscope.facts/1)\n"
    "\n"
    "Exit status: 0 done; 1 the facts root (or the output) could not be written; 2 bad\n"
    "usage, or a --root that is not a readable directory.\n";

struct facts_options {
    const char *save, *root;
    bool force, json;
};

static const struct cli_option facts_decl[] = {
    {.name = "save", .metavar = "DIR", CLI_STRING_OF(struct facts_options, save)},
    {.name = "force", .needs = "save", CLI_FLAG_OF(struct facts_options, force)},
    {.name = "root", .metavar = "DIR", CLI_STRING_OF(struct facts_options, root)},
    {.name = "json", CLI_FLAG_OF(struct facts_options, json)},
    {0},
};

const struct cli_spec facts_cli = {.cmd = "facts", .help = help, .options = facts_decl};

int cmd_facts(int argc, char **argv)
{
    struct facts_options o = {0};
    cli_parse(&facts_cli, argc, argv, &o);
    const char *save = o.save, *root = o.root;
    bool force = o.force, json = o.json;
    static struct facts fs;
    char why[4400];
    if (root) {
        if (!facts_load_root(root, &fs, why, sizeof why))
            usage_error("facts", "%s", why);
    } else {
        facts_load_live(&fs);
    }
    if (save) {
        if (!facts_save(&fs, save, force, why, sizeof why)) {
            fprintf(stderr, "clockscope facts: %s\n", why);
            facts_free(&fs);
            return strstr(why, "not empty") || strstr(why, "not a directory") ? 2 : 1;
        }
        if (!json)
            printf("facts saved to %s: read them with clockscope doctor --root %s\n", save, save);
    }
    if (json) {
        struct json j;
        json_init(&j, stdout, 2);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.facts/1");
        json_kv_string(&j, "origin", fs.live ? "live" : fs.origin);
        if (save)
            json_kv_string(&j, "saved_to", save);
        json_key(&j, "facts");
        json_begin_array(&j);
        for (int i = 0; i < F_COUNT; i++) {
            const struct fact *f = &fs.f[i];
            json_begin_object(&j);
            json_kv_string(&j, "path", fact_path(i));
            json_kv_string(&j, "status", f->status == FACT_OK ? "ok"
                                         : f->status == FACT_MISSING ? "missing" : "unreadable");
            if (f->status != FACT_MISSING)
                json_kv_string(&j, "source", f->source);
            if (f->status == FACT_OK) {
                json_kv_uint(&j, "bytes", f->len);
                json_kv_bool(&j, "truncated", f->truncated);
            }
            if (f->status == FACT_UNREADABLE)
                json_kv_string(&j, "why", f->why);
            json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "notes");
        json_begin_array(&j);
        for (int i = 0; i < fs.nnotes; i++)
            json_string(&j, fs.notes[i]);
        json_end_array(&j);
        json_end_object(&j);
        json_finish(&j);
    } else if (!save) {
        printf("facts from %s:\n", fs.live ? "this machine" : fs.origin);
        for (int i = 0; i < F_COUNT; i++) {
            const struct fact *f = &fs.f[i];
            if (f->status == FACT_OK)
                printf("  %-66s %8zu bytes%s  (%s)\n", fact_path(i), f->len,
                       f->truncated ? ", truncated" : "", f->source);
            else if (f->status == FACT_MISSING)
                printf("  %-66s not known\n", fact_path(i));
            else
                printf("  %-66s unreadable: %s\n", fact_path(i), f->why);
        }
        for (int i = 0; i < fs.nnotes; i++)
            printf("  note: %s\n", fs.notes[i]);
    }
    facts_free(&fs);
    return 0;
}
