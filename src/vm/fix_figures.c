/* SPDX-License-Identifier: MIT */
/* vm --apply-fix's before and after figures: read from the guest doctor's JSON, written
 * as JSON or as a row of the text report. */
#include "common/json_cost.h"
#include "common/message.h"
#include "common/units.h"
#include "vm/fix_figures.h"

#include <stdio.h>
#include <string.h>

/* The doctor's JSON, any version of its schema. */
#define DOCTOR_SCHEMA "clockscope.doctor/"

/* The doctor's timing with that id in its proof, or NULL. */
static const struct json_node *find_timing(const struct json_node *proof, const char *id)
{
    const struct json_node *t = json_get(proof, "timings");
    for (size_t i = 0; i < json_len(t); i++) {
        const char *tid = json_str(json_get(json_at(t, i), "id"));
        if (tid && strcmp(tid, id) == 0)
            return json_at(t, i);
    }
    return NULL;
}

bool fix_figures_read(const char *text, size_t n, struct json_node **root, struct fix_figures *f)
{
    memset(f, 0, sizeof *f);
    char why[MSG_LINE];
    *root = json_tree_parse(text, n, why, sizeof why);
    const char *schema = json_str(json_get(*root, "schema"));
    if (!*root || !schema || strncmp(schema, DOCTOR_SCHEMA, strlen(DOCTOR_SCHEMA)) != 0) {
        snprintf(f->why, sizeof f->why, "not the doctor's JSON (%s)",
                 *root ? "no clockscope.doctor schema" : why);
        json_tree_free(*root);
        *root = NULL;
        return false;
    }
    const char *verdict = json_str(json_get(*root, "verdict"));
    snprintf(f->verdict, sizeof f->verdict, "%s", verdict ? verdict : "?");
    const struct json_node *proof = json_get(*root, "proof");
    /* doctor/2: a cost object, its median; doctor/1: a number */
    const struct json_node *cost = json_get(find_timing(proof, "libc.clock_gettime.monotonic"),
                                            "ns_per_call");
    const struct json_node *median = json_get(cost, "median");
    f->ns_per_call = json_num(median ? median : cost, -1);
    const struct json_node *sc = json_get(proof, "syscall_count");
    double calls = json_num(json_get(sc, "calls"), 0);
    double sys = json_num(json_get(json_get(sc, "syscalls"), "clock_gettime_monotonic"), -1);
    const struct json_node *counted = json_get(sc, "counted");
    f->syscalls_per_1000_calls = counted && counted->boolean && calls > 0 && sys >= 0
                                     ? sys * 1000.0 / calls : -1;
    f->have = true;
    return true;
}

void fix_figures_json(struct json *j, const char *key, const struct fix_figures *f)
{
    json_key(j, key);
    if (!f->have) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_string(j, "verdict", f->verdict);
    if (f->ns_per_call >= 0)
        json_cost_median(j, "ns_per_call", f->ns_per_call);
    else
        json_kv_null(j, "ns_per_call");
    json_key(j, "syscalls_per_1000_calls");
    if (f->syscalls_per_1000_calls >= 0)
        json_double(j, f->syscalls_per_1000_calls);
    else
        json_null(j);
    json_end_object(j);
}

void fix_figures_print(FILE *out, const char *label, const struct fix_figures *f)
{
    if (!f->have) {
        fprintf(out, "  %-7s %s\n", label, f->why);
        return;
    }
    char ns[32] = "-", sys[32] = "-";
    if (f->ns_per_call >= 0)
        units_format_ns_number(f->ns_per_call, ns, sizeof ns);
    if (f->syscalls_per_1000_calls >= 0)
        snprintf(sys, sizeof sys, "%.0f", f->syscalls_per_1000_calls);
    fprintf(out, "  %-7s %-9s %12s %26s\n", label, f->verdict, ns, sys);
}
