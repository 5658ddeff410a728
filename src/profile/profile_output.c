/* SPDX-License-Identifier: MIT */
/* `clockscope profile` output: the table, or clockscope.profile/2 JSON (docs/json.md). */
#include "profile/profile_view.h"

#include "common/json_cost.h"
#include "common/message.h"
#include "common/printable.h"
#include "common/text_wrap.h"
#include "common/units.h"
#include "profile/counter_cost.h"

#include <stdlib.h>
#include <string.h>

static const char *target_name(enum profile_target k)
{
    return k == TARGET_COMMAND ? "command" : k == TARGET_PID ? "pid"
                              : k == TARGET_CLOCK_LOOP ? "clock-loop" : "all";
}

static void print_names(FILE *out, const struct profile_view *v, const struct tally_name *names,
                        int n, bool with_category)
{
    for (int i = 0; i < n && i < v->top; i++) {
        fprintf(out, "  %6.2f%%  %s", tally_share(v->t, names[i].weight), names[i].name);
        if (names[i].dso[0])
            fprintf(out, "  (%s)", names[i].dso);
        if (with_category)
            fprintf(out, "  [%s]", attr_category_id(names[i].category));
        fputc('\n', out);
    }
}

/* The first line: what was profiled, and how; the command profiled, quoted as a shell needs
 * it, goes to cmd (out itself, or apart so that it is never wrapped). */
static void print_header(FILE *out, FILE *cmd, const struct profile_view *v)
{
    const struct tally *t = v->t;
    fprintf(out, "clockscope profile: ");
    if (t->samples || t->no_samples)
        fprintf(out, "%llu samples", (unsigned long long)t->samples);
    else
        fprintf(out, "samples not stated");
    fprintf(out, " of %s, %s", t->event, v->live ? "perf record -g" : v->source);
    if (v->input)
        fprintf(out, " %s", v->input);
    else if (v->live && v->target == TARGET_COMMAND && v->command) {
        /* Quoted as a shell would need it, so the line can be pasted back. */
        fprintf(out, " --");
        int i = 0;
        for (; v->command[i] && i < 8; i++) {
            char word[MSG_PARAGRAPH];
            fprintf(cmd, "%s%s", i || cmd == out ? " " : "",
                    printable_shell_word(word, sizeof word, v->command[i]));
        }
        if (v->command[i])
            fprintf(cmd, " ...");
    } else if (v->live && v->target == TARGET_PID)
        fprintf(out, " -p %d, %g s", v->pid, v->seconds);
    else if (v->live && v->target == TARGET_CLOCK_LOOP)
        fprintf(out, " --clock-loop (clock_gettime(CLOCK_MONOTONIC) through libc), %g s", v->seconds);
    else if (v->live)
        fprintf(out, " -a, %g s", v->seconds);
}

/* The header on one line when it fits, else wrapped with the command on a line of its own
 * (4 spaces in, whole: it can be pasted back). */
static void print_first_line(FILE *out, const char *header, const char *command)
{
    if (!command[0]) {
        text_wrap(out, "", header, 0, 6, TEXT_WIDTH, TEXT_PLAIN);
    } else if (strlen(header) + 1 + strlen(command) <= TEXT_WIDTH) { /* bytes: >= columns */
        fprintf(out, "%s %s\n", header, command);
    } else {
        text_wrap(out, "", header, 0, 6, TEXT_WIDTH, TEXT_PLAIN);
        fprintf(out, "%*s%s\n", TEXT_COMMAND_INDENT, "", command);
    }
}

void profile_print_table(FILE *out, const struct profile_view *v)
{
    const struct tally *t = v->t;
    char *header = NULL, *command = NULL;
    size_t header_len = 0, command_len = 0;
    FILE *h = open_memstream(&header, &header_len), *c = open_memstream(&command, &command_len);
    if (h && c)
        print_header(h, c, v);
    bool ok = h && c;
    ok = (h && fclose(h) == 0) && ok;
    ok = (c && fclose(c) == 0) && ok;
    if (ok) {
        print_first_line(out, header, command);
    } else {
        print_header(out, out, v);
        fputc('\n', out);
    }
    free(header);
    free(command);
    if (t->no_samples) {
        fprintf(out, "  0%% reading the time: perf recorded no samples, so what was profiled "
                "used no CPU while perf\n  watched (too brief, or asleep), reading the time "
                "included\n");
        return;
    }
    fprintf(out, "  %.2f%% of all samples were reading the time\n\n", tally_time_percent(t));
    fprintf(out, "  %-12s %8s %10s  %s\n", "category", "share", "samples", "what");
    for (int c = 0; c < CAT_COUNT; c++) {
        fprintf(out, "  %-12s %7.2f%% ", attr_category_id(c), tally_percent(t, c));
        if (t->from_report)
            fprintf(out, "%10s", "-");
        else
            fprintf(out, "%10.0f", t->weight[c]);
        fprintf(out, "  %s\n", attr_category_what(c));
    }
    if (t->nclocksources) {
        fprintf(out, "\nthe kernel's clocksource read:\n");
        print_names(out, v, t->clocksources, t->nclocksources, false);
    }
    if (t->nsymbols) {
        fprintf(out, "\nsymbols reading the time (the innermost time frame of each sample):\n");
        print_names(out, v, t->symbols, t->nsymbols, true);
    }
    if (t->ncall_sites) {
        fprintf(out, "\ncall sites (the caller of the time read):\n");
        print_names(out, v, t->call_sites, t->ncall_sites, false);
    }
    if (v->counts) {
        fprintf(out, "\ncalls (clockscope run --mode count):\n");
        for (int p = 0; p < v->counts->nprocs; p++) {
            const struct count_proc *cp = &v->counts->procs[p];
            fprintf(out, "  pid %d (%s), %.3f s\n", cp->pid, cp->program, cp->seconds);
            for (int c = 0; c < cp->ncalls; c++)
                fprintf(out, "  %14llu  %12s  %s\n", (unsigned long long)cp->calls[c].calls,
                        RATE_TEXT(cp->calls[c].calls_per_sec), cp->calls[c].call);
        }
    }
    if (v->nnotes)
        fputc('\n', out);
    for (int i = 0; i < v->nnotes; i++)
        text_wrap(out, "note: ", v->notes[i], 0, 6, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
}

static void names_json(struct json *j, const struct profile_view *v, const char *key,
                       const struct tally_name *names, int n, bool symbol, bool category)
{
    json_key(j, key);
    json_begin_array(j);
    for (int i = 0; i < n && i < v->top; i++) {
        json_begin_object(j);
        json_kv_string(j, symbol ? "symbol" : "name", names[i].name);
        if (symbol) {
            json_kv_string(j, "object", names[i].dso[0] ? names[i].dso : NULL);
        }
        if (category)
            json_kv_string(j, "category", attr_category_id(names[i].category));
        json_kv_double(j, "percent", tally_share(v->t, names[i].weight));
        json_end_object(j);
    }
    json_end_array(j);
}

/* "target": the live run (null offline). */
static void target_json(struct json *j, const struct profile_view *v)
{
    json_key(j, "target");
    if (v->live) {
        json_begin_object(j);
        json_kv_string(j, "kind", target_name(v->target));
        json_key(j, "command");
        if (v->target == TARGET_COMMAND && v->command) {
            json_begin_array(j);
            for (int i = 0; v->command[i]; i++)
                json_string(j, v->command[i]);
            json_end_array(j);
        } else
            json_null(j);
        if (v->target == TARGET_PID)
            json_kv_int(j, "pid", v->pid);
        else
            json_kv_null(j, "pid");
        if (v->target == TARGET_COMMAND)
            json_kv_null(j, "seconds");
        else
            json_kv_double(j, "seconds", v->seconds);
        if (v->command_status >= 0)
            json_kv_int(j, "exit_status", v->command_status);
        else
            json_kv_null(j, "exit_status");
        json_kv_double(j, "elapsed_s", v->elapsed_s);
        json_kv_string(j, "call_graph", v->dwarf ? "dwarf" : "fp");
        json_key(j, "runtime");
        if (v->runtime.runtime != RUNTIME_NATIVE) {
            json_begin_object(j);
            json_kv_string(j, "name", v->runtime.name);
            json_kv_bool(j, "perf_support", v->runtime.perf_support);
            json_end_object(j);
        } else
            json_null(j);
        json_end_object(j);
    } else
        json_null(j);
}

/* "counts": --count's tables (null without). */
static void counts_json(struct json *j, const struct count_table *counts)
{
    json_key(j, "counts");
    if (counts) {
        json_begin_array(j);
        for (int p = 0; p < counts->nprocs; p++) {
            const struct count_proc *cp = &counts->procs[p];
            json_begin_object(j);
            json_kv_int(j, "pid", cp->pid);
            json_kv_string(j, "program", cp->program);
            json_kv_double(j, "seconds", cp->seconds);
            json_key(j, "calls");
            json_begin_array(j);
            for (int c = 0; c < cp->ncalls; c++) {
                json_begin_object(j);
                json_kv_string(j, "call", cp->calls[c].call);
                json_kv_uint(j, "calls", cp->calls[c].calls);
                json_kv_double(j, "calls_per_sec", cp->calls[c].calls_per_sec);
                json_end_object(j);
            }
            json_end_array(j);
            json_end_object(j);
        }
        json_end_array(j);
    } else
        json_null(j);
}

void profile_print_json(FILE *out, const struct profile_view *v)
{
    const struct tally *t = v->t;
    struct json j;
    json_init(&j, out, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.profile/2");
    json_kv_string(&j, "source", v->source);
    json_kv_string(&j, "input", v->input);
    target_json(&j, v);
    json_key(&j, "machine");
    if (v->machine)
        sysinfo_json(&j, v->machine);
    else
        json_null(&j);
    json_kv_string(&j, "event", t->event);
    json_kv_bool(&j, "kernel_frames", t->kernel_frames);
    if (t->samples || t->no_samples)
        json_kv_uint(&j, "samples", t->samples);
    else
        json_kv_null(&j, "samples");
    json_kv_double(&j, "time_share_percent", tally_time_percent(t));
    json_key(&j, "categories");
    json_begin_array(&j);
    for (int c = 0; c < CAT_COUNT; c++) {
        json_begin_object(&j);
        json_kv_string(&j, "id", attr_category_id(c));
        json_kv_string(&j, "what", attr_category_what(c));
        json_kv_bool(&j, "reads_time", c < PROFILE_TIME_CATEGORIES);
        json_kv_double(&j, "percent", tally_percent(t, c));
        if (t->from_report)
            json_kv_null(&j, "samples");
        else
            json_kv_uint(&j, "samples", (uint64_t)t->weight[c]);
        json_end_object(&j);
    }
    json_end_array(&j);
    names_json(&j, v, "clocksources", t->clocksources, t->nclocksources, false, false);
    names_json(&j, v, "symbols", t->symbols, t->nsymbols, true, true);
    names_json(&j, v, "call_sites", t->call_sites, t->ncall_sites, true, false);
    if (t->from_report)
        json_kv_null(&j, "kernel_entry_unattributed_percent");
    else
        json_kv_double(&j, "kernel_entry_unattributed_percent", tally_share(t, t->entry_weight));
    counts_json(&j, v->counts);
    json_key(&j, "counter_read");
    if (v->counter_ns >= 0) {
        json_begin_object(&j);
        json_kv_string(&j, "method", v->counter_id);
        json_cost_median(&j, "ns_per_call", v->counter_ns);
        json_kv_bool(&j, "traps", v->counter_ns >= COUNTER_TRAP_NS);
        json_end_object(&j);
    } else
        json_null(&j);
    json_key(&j, "arches_named");
    json_begin_array(&j);
    for (int b = 0; tally_arch_name(b); b++)
        if (t->arches & (1u << b))
            json_string(&j, tally_arch_name(b));
    json_end_array(&j);
    json_key(&j, "notes");
    json_begin_array(&j);
    for (int i = 0; i < v->nnotes; i++)
        json_string(&j, v->notes[i]);
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}
