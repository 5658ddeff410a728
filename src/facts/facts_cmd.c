/* SPDX-License-Identifier: MIT */
/* clockscope facts: what the doctor reads, shown or saved as a facts root. */
#include "commands.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/message.h"
#include "common/text_wrap.h"
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
    "  --json       list as JSON (clockscope.facts/1)\n";

static const struct exit_use facts_exits[] = {
    {EXIT_OK, NULL},
    {EXIT_FAILED, "the facts root (or the output) could not be written"},
    {EXIT_USAGE, "also a --root that is not a readable directory, a --save DIR that is not\n"
                 "an empty directory (without --force)"},
    {EXIT_USES_END, NULL},
};

struct facts_options {
    const char *save, *root;
    bool force, json;
};

/* What a fact says, in one line: its value (a clocksource, the command line, the
 * virtualization), or for a long text what it holds (the CPUs and their model; the kernel
 * log's lines; short key=value or symbol lists joined).  Sizes say nothing to a reader. */
static void fact_summary(const struct fact *f, char *out, size_t len)
{
    const char *t = f->text;
    size_t lines = 0, cpus = 0;
    const char *model = NULL;
    for (const char *p = t; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (*p == '\n')
            continue;
        lines++;
        if (strncmp(p, "processor", 9) == 0 && strchr(" \t:", p[9]))
            cpus++;
        if (!model && (strncmp(p, "model name", 10) == 0 || strncmp(p, "uarch", 5) == 0 ||
                       strncmp(p, "CPU part", 8) == 0)) {
            const char *colon = strchr(p, ':');
            model = colon ? colon + 1 + strspn(colon + 1, " \t") : NULL;
        }
    }
    char body[MSG_WITH_PATH] = "";
    size_t k = 0;
    if (cpus > 0) {
        k = (size_t)snprintf(body, sizeof body, "%zu CPU%s%s", cpus, cpus == 1 ? "" : "s",
                             model ? ": " : "");
        for (const char *p = model; p && *p && *p != '\n' && k < sizeof body - 1; p++)
            body[k++] = *p;
        body[k] = 0;
    } else if (lines > 12) {
        k = (size_t)snprintf(body, sizeof body, "%zu lines, from: ", lines);
        for (const char *p = t + strspn(t, "\n"); *p && *p != '\n' && k < sizeof body - 1; p++)
            body[k++] = *p;
        body[k] = 0;
    } else {
        /* One line, or a few short ones joined with ", ". */
        for (const char *p = t; *p && k < sizeof body - 3; p++) {
            if (*p != '\n')
                body[k++] = *p;
            else if (p[1] && p[1] != '\n' && k > 0) {
                body[k++] = ',';
                body[k++] = ' ';
            }
        }
        body[k] = 0;
        while (k > 0 && (body[k - 1] == ' ' || body[k - 1] == ','))
            body[--k] = 0;
    }
    /* A one-line value is shown whole (a command line is read for one parameter); a
     * summary of many lines is cut. */
    const size_t width = 100;
    if (lines > 1 && strlen(body) > width)
        snprintf(body + width - 3, sizeof body - width + 3, "...");
    snprintf(out, len, "%s%s", body[0] ? body : "(empty)", f->truncated ? " (truncated)" : "");
}

static const struct cli_option facts_decl[] = {
    {.name = "save", .metavar = "DIR", CLI_STRING_OF(struct facts_options, save)},
    {.name = "force", .needs = "save", CLI_FLAG_OF(struct facts_options, force)},
    {.name = "root", .metavar = "DIR", CLI_STRING_OF(struct facts_options, root)},
    {.name = "json", CLI_FLAG_OF(struct facts_options, json)},
    {0},
};

const struct cli_spec facts_cli = {.cmd = "facts", .help = help, .options = facts_decl,
                                   .exits = facts_exits};

/* The facts as a clockscope.facts/1 document on stdout. */
static void facts_json(const struct facts *fs, const char *save)
{
    struct json j;
    json_init(&j, stdout, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.facts/1");
    json_kv_string(&j, "origin", fs->live ? "live" : fs->origin);
    if (save)
        json_kv_string(&j, "saved_to", save);
    json_key(&j, "facts");
    json_begin_array(&j);
    for (int i = 0; i < F_COUNT; i++) {
        const struct fact *f = &fs->f[i];
        json_begin_object(&j);
        json_kv_string(&j, "path", fact_path(i));
        json_kv_string(&j, "status", f->status == FACT_OK ? "ok"
                                     : f->status == FACT_MISSING ? "missing" : "unreadable");
        if (f->status != FACT_MISSING)
            json_kv_string(&j, "source", f->source);
        if (f->status == FACT_OK) {
            char summary[MSG_WITH_PATH];
            fact_summary(f, summary, sizeof summary);
            json_kv_string(&j, "summary", summary);
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
    for (int i = 0; i < fs->nnotes; i++)
        json_string(&j, fs->notes[i]);
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

/* The facts as text on stdout. */
static void facts_text(const struct facts *fs)
{
    printf("facts from %s:\n", fs->live ? "this machine" : fs->origin);
    for (int i = 0; i < F_COUNT; i++) {
        const struct fact *f = &fs->f[i];
        /* The path, then on the next line what it says (and where it came from when that
         * is not simply the path). */
        printf("  %s\n", fact_path(i));
        if (f->status == FACT_OK) {
            char summary[MSG_WITH_PATH];
            fact_summary(f, summary, sizeof summary);
            size_t sl = strlen(f->source), pl = strlen(fact_path(i));
            bool plain = sl > pl && f->source[sl - pl - 1] == '/' &&
                         strcmp(f->source + sl - pl, fact_path(i)) == 0;
            char line[MSG_WITH_PATH * 2];
            snprintf(line, sizeof line, "%s%s%s%s", summary, plain ? "" : "  (",
                     plain ? "" : f->source, plain ? "" : ")");
            text_wrap(stdout, "", line, 6, 8, TEXT_WIDTH, TEXT_PLAIN);
        } else if (f->status == FACT_MISSING) {
            printf("      not known\n");
        } else {
            text_wrap(stdout, "unreadable: ", f->why, 6, 8, TEXT_WIDTH, TEXT_PLAIN);
        }
    }
    for (int i = 0; i < fs->nnotes; i++)
        text_wrap(stdout, "note: ", fs->notes[i], 2, 8, TEXT_WIDTH, TEXT_PLAIN);
}

int cmd_facts(int argc, char **argv)
{
    struct facts_options o = {0};
    cli_parse(&facts_cli, argc, argv, &o);
    const char *save = o.save, *root = o.root;
    bool force = o.force, json = o.json;
    static struct facts fs;
    char why[MSG_WITH_PATH];
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
            return strstr(why, "not empty") || strstr(why, "not a directory") ? EXIT_USAGE
                                                                               : EXIT_FAILED;
        }
        if (!json)
            printf("facts saved to %s: read them with clockscope doctor --root %s\n", save, save);
    }
    if (json)
        facts_json(&fs, save);
    else if (!save)
        facts_text(&fs);
    facts_free(&fs);
    return EXIT_OK;
}
