/* SPDX-License-Identifier: MIT */
#include "doctor/report.h"

#include "common/exit_status.h"
#include "common/json_cost.h"
#include "common/message.h"
#include "common/text_wrap.h"
#include "common/units.h"
#include "doctor/findings.h"
#include "facts/sysinfo.h"

#include <string.h>

int verdict_exit_status(enum verdict v)
{
    static const int status[] = {EXIT_OK, EXIT_SLOW, EXIT_BROKEN, EXIT_UNKNOWN};
    return status[v];
}

static const char *headline(enum verdict v)
{
    switch (v) {
    case V_OK:
        return "OK: reading the time does not enter the kernel";
    case V_SLOW:
        return "SLOW: reading the time enters the kernel or traps";
    case V_BROKEN:
        return "BROKEN: time reads fail or go wrong";
    default:
        return "UNKNOWN: the facts do not decide it";
    }
}

/* Prose under a label at indent, continued 4 further in, commands inline and unbroken. */
static void wrap(FILE *out, const char *label, const char *text, int indent)
{
    text_wrap(out, label, text, indent, indent + 4, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
}

static void print_finding(FILE *out, const struct finding *f, bool full)
{
    fprintf(out, "\n[%s] %s\n", severity_name(f->severity), f->title);
    int nev = full ? f->nevidence : (f->nevidence < 2 ? f->nevidence : 2);
    for (int i = 0; i < nev; i++)
        wrap(out, "evidence: ", f->evidence[i], 2);
    if (f->meaning[0] && full) {
        wrap(out, "meaning: ", f->meaning, 2);
    } else if (f->meaning[0] && f->severity >= SEV_WARNING) {
        /* the first sentence only: the screen is for the answer */
        char first[sizeof f->meaning];
        snprintf(first, sizeof first, "%s", f->meaning);
        first[text_first_sentence(first)] = 0;
        wrap(out, "meaning: ", first, 2);
    }
    int nfix = full ? f->nfix : (f->nfix < 2 ? f->nfix : 2);
    for (int i = 0; i < nfix; i++)
        text_wrap(out, "fix: ", f->fix[i], 2, 6, TEXT_WIDTH, TEXT_COMMAND_LINES);
    if (f->gain[0])
        wrap(out, "gain: ", f->gain, 2);
    int more_ev = f->nevidence - nev, more_fix = f->nfix - nfix;
    if (!full && (more_ev > 0 || more_fix > 0))
        fprintf(out, "  (--verbose: %d more evidence, %d more fixes)\n", more_ev, more_fix);
}

/* Whether clock_gettime has its fast path here, and how that is known. */
static void print_fast_path(FILE *out, const struct facts *fs, const struct diagnosis *d)
{
    const char *how = d->decided_by_proof ? "proven live" : d->inferred ? "inferred"
                      : fs->live ? "from live facts" : "from the facts root";
    if (d->fast_path == 1 && d->counter_traps) {
        /* No syscall, but not fast: one line that says both, with one figure. */
        char cost[MSG_WORD] = "not timed here";
        if (d->trap_ns > 0)
            snprintf(cost, sizeof cost, "%s per read", NS_TEXT(d->trap_ns));
        char line[240];
        snprintf(line, sizeof line, "no syscall, but its counter read (%s) traps to %s (%s; %s)",
                 d->trap_counter, strcmp(d->trap_counter, "rdtime") ? "the kernel" : "firmware",
                 cost, how);
        wrap(out, "vDSO path: ", line, 2);
    } else {
        fprintf(out, "  fast path for clock_gettime(CLOCK_MONOTONIC): %s   (%s)\n",
                d->fast_path == 1 ? "yes" : d->fast_path == 0 ? "no" : "not known", how);
    }
}

/* The first action of a diagnosis that is not OK, as the command to run. */
static void print_first_fix(FILE *out, const struct diagnosis *d)
{
    struct ranked_action first[1];
    if (d->verdict == V_OK || diagnosis_actions(d, first, 1) != 1)
        return;
    char cmd[400];
    action_command_line(first[0].action, cmd, sizeof cmd);
    if (!cmd[0])
        return;
    enum action_kind kind = first[0].action->kind;
    char line[MSG_PARAGRAPH];
    snprintf(line, sizeof line, "%s`%s` (risk: %s)", kind == ACT_CMDLINE ? "with grubby (Fedora, "
             "RHEL; elsewhere add it to GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub), "
             "and reboot: " : "", cmd, first[0].action->risk);
    text_wrap(out, kind == ACT_SYSFS ? "to fix now: " : kind == ACT_CMDLINE ? "to fix at the next "
              "boot: " : "to fix for one program: ", line, 2, 6, TEXT_WIDTH, TEXT_COMMAND_LINES);
}

/* The info findings by id alone, on one line. */
static void print_info_ids(FILE *out, const struct diagnosis *d)
{
    int ninfo = 0;
    for (int i = 0; i < d->nfindings; i++)
        if (d->findings[i].severity == SEV_INFO) {
            if (!ninfo++)
                fprintf(out, "\ninfo:");
            fprintf(out, " %s", d->findings[i].id);
        }
    if (ninfo)
        fprintf(out, "\n");
}

/* The proof, in one line, when it is not already shown in full. */
static void print_proof_line(FILE *out, const struct proof *p, const struct diagnosis *d)
{
    if (!(p && p->ran && p->counted && d->verdict == V_OK))
        return;
    const struct proof_timing *m = proof_timing_find(p, "libc.clock_gettime.monotonic");
    const struct proof_timing *r = proof_timing_find(p, "libc.clock_gettime.realtime");
    const struct proof_timing *s = proof_timing_find(p, "syscall.clock_gettime.monotonic");
    char line[400];
    int n = snprintf(line, sizeof line, "%ld calls each of clock_gettime(MONOTONIC) and "
                     "(REALTIME) made %ld and %ld syscalls", p->calls,
                     p->syscalls[PC_MONOTONIC], p->syscalls[PC_REALTIME]);
    if (m && r && s && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "; %s / %s per call, raw "
                 "syscall %s", NS_TEXT(m->ns_per_call), NS_TEXT(r->ns_per_call),
                 NS_TEXT(s->ns_per_call));
    wrap(out, "proof: ", line, 0);
}

void report_text(FILE *out, const struct facts *fs, const struct proof *p,
                 const struct diagnosis *d, bool verbose)
{
    const struct machine *c = &d->machine;
    fprintf(out, "clockscope doctor: %s%s\n", d->inferred ? "inferred (not decided): " : "",
            headline(d->verdict));
    wrap(out, "why: ", d->summary, 2);
    print_fast_path(out, fs, d);
    char line[MSG_PARAGRAPH];
    snprintf(line, sizeof line, "%s, kernel %s, virtualization %s, clocksource %s",
             c->machine[0] ? c->machine : c->family[0] ? c->family : "arch unknown",
             c->kernel.known ? c->kernel.release : "unknown", c->virt[0] ? c->virt : "unknown",
             c->current_cs[0] ? c->current_cs : "unknown");
    wrap(out, "machine: ", line, 2);
    if (c->emulation.kind[0]) { /* every figure measured here is the emulator's */
        snprintf(line, sizeof line, "%s (%s): timings here are the emulator's, not a CPU's",
                 c->emulation.kind, c->emulation.evidence[0]);
        wrap(out, "emulated CPU: ", line, 2);
    }
    print_first_fix(out, d);
    if (!fs->live)
        fprintf(out, "  facts root: %s\n", fs->origin);
    for (int i = 0; i < F_COUNT && !fs->live; i++) /* not known, and why: never "absent" */
        if (fs->f[i].status == FACT_UNREADABLE)
            fprintf(out, "  unreadable: %s (%s)\n", fact_path(i), fs->f[i].why);
    for (int i = 0; i < fs->nnotes; i++)
        wrap(out, "note: ", fs->notes[i], 2);
    for (int sev = SEV_CRITICAL; sev >= SEV_NOTICE; sev--)
        for (int i = 0; i < d->nfindings; i++)
            if ((int)d->findings[i].severity == sev)
                print_finding(out, &d->findings[i], verbose);
    if (verbose) {
        for (int i = 0; i < d->nfindings; i++)
            if (d->findings[i].severity == SEV_INFO)
                print_finding(out, &d->findings[i], true);
    } else {
        print_info_ids(out, d);
        print_proof_line(out, p, d);
    }
    fprintf(out, "\n%sExit status %d (%s).\n",
            verbose ? "" : "--verbose shows every finding in full, --json everything. ",
            verdict_exit_status(d->verdict), verdict_name(d->verdict));
}

/* "key": [the n strings of a char[n][stride] table] */
static void kv_string_rows(struct json *j, const char *k, const char *rows, size_t stride, int n)
{
    json_key(j, k);
    json_begin_array(j);
    for (int i = 0; i < n; i++)
        json_string(j, rows + (size_t)i * stride);
    json_end_array(j);
}

static void json_action(struct json *j, const struct finding_action *a, const char *finding)
{
    json_begin_object(j);
    json_kv_string(j, "kind", action_kind_name(a->kind));
    if (finding)
        json_kv_string(j, "finding", finding);
    json_kv_string(j, "risk", a->risk);
    switch (a->kind) {
    case ACT_SYSFS:
        json_kv_string(j, "path", a->path);
        json_kv_string(j, "value", a->value);
        json_kv_bool(j, "reboot", false);
        break;
    case ACT_CMDLINE:
        kv_string_rows(j, "add", a->add[0], sizeof a->add[0], a->nadd);
        kv_string_rows(j, "remove", a->remove[0], sizeof a->remove[0], a->nremove);
        json_kv_bool(j, "reboot", true);
        break;
    case ACT_RUN:
        json_key(j, "argv");
        json_begin_array(j);
        json_string(j, "clockscope");
        json_string(j, "run");
        json_string(j, "--mode");
        json_string(j, a->mode);
        json_string(j, "--");
        json_end_array(j);
        break;
    case ACT_CODE:
    case ACT_FIRMWARE:
        json_kv_string(j, "text", a->text);
        break;
    }
    json_end_object(j);
}

static void json_facts(struct json *j, const struct facts *fs, const struct diagnosis *d)
{
    const struct machine *c = &d->machine;
    json_key(j, "facts");
    json_begin_object(j);
    json_kv_string(j, "origin", fs->live ? "live" : fs->origin);
    json_kv_string_or_null(j, "arch_family", c->family);
    json_kv_string_or_null(j, "machine", c->machine);
    json_kv_string_or_null(j, "kernel", c->kernel.known ? c->kernel.release : NULL);
    json_kv_string_or_null(j, "clocksource", c->current_cs);
    json_kv_string_or_null(j, "clocksource_source", c->current_cs_source);
    json_kv_string_or_null(j, "available_clocksource", c->available_cs);
    json_kv_string_or_null(j, "virtualization", c->virt);
    json_kv_string_or_null(j, "virtualization_source", c->virt_source);
    emulation_json(j, &c->emulation);
    json_kv_string_or_null(j, "cmdline", c->cmdline);
    json_kv_string_or_null(j, "cpu_model", c->cpu_description);
    json_kv_string_or_null(j, "cpu_flags", c->cpu.flags);
    json_key(j, "kernel_log");
    json_begin_object(j);
    const struct fact *log = &fs->f[F_DMESG];
    json_kv_string_or_null(j, "source", log->status == FACT_OK ? log->source : NULL);
    json_kv_uint(j, "bytes", log->status == FACT_OK ? log->len : 0);
    json_kv_bool(j, "truncated", log->truncated);
    json_kv_uint(j, "lines_last_boot", c->log.lines);
    json_kv_int(j, "boots_seen", c->log.boots);
    json_end_object(j);
    json_key(j, "files");
    json_begin_object(j);
    for (int i = 0; i < F_COUNT; i++) {
        const struct fact *f = &fs->f[i];
        char v[240];
        if (f->status == FACT_OK)
            snprintf(v, sizeof v, "ok%s", f->truncated ? " (truncated)" : "");
        else if (f->status == FACT_MISSING)
            snprintf(v, sizeof v, "missing");
        else
            snprintf(v, sizeof v, "unreadable: %s", f->why);
        json_kv_string(j, fact_path(i), v);
    }
    json_end_object(j);
    json_end_object(j);
}

static void json_proof(struct json *j, const struct proof *p)
{
    json_key(j, "proof");
    if (!p || !p->ran) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_bool(j, "vdso_present", p->vdso_present);
    json_key(j, "syscall_count");
    json_begin_object(j);
    json_kv_bool(j, "counted", p->counted);
    json_kv_string_or_null(j, "why_not", p->counted ? NULL : p->count_why);
    json_kv_int(j, "calls", p->calls);
    static const char *const keys[PC_COUNT] = {"clock_gettime_monotonic", "clock_gettime_realtime",
                                               "gettimeofday", "control_raw_syscall",
                                               "control_cputime_clock"};
    json_key(j, "syscalls");
    json_begin_object(j);
    for (int c = 0; c < PC_COUNT; c++)
        if (p->counted || p->syscalls[c])
            json_kv_int(j, keys[c], p->syscalls[c]);
        else
            json_kv_null(j, keys[c]);
    json_end_object(j);
    json_kv_int(j, "monotonic_backwards", p->backwards);
    json_kv_double(j, "deadline_s", p->count_deadline_s);
    json_end_object(j);
    json_key(j, "timings");
    json_begin_array(j);
    for (int i = 0; i < p->ntimings; i++) {
        const struct proof_timing *t = &p->timing[i];
        json_begin_object(j);
        json_kv_string(j, "id", t->id);
        if (t->ok) {
            if (t->cost.n > 0)
                json_cost(j, "ns_per_call", &t->cost, NULL, 0);
            else
                json_cost_median(j, "ns_per_call", t->ns_per_call);
            json_kv_double(j, "spread", t->spread);
            json_kv_bool(j, "noisy", t->noisy);
        } else {
            json_kv_null(j, "ns_per_call");
            json_kv_string(j, "why", t->why);
        }
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "resolution_ns");
    json_begin_object(j);
    json_kv_int(j, "monotonic", p->res_ns_monotonic);
    json_kv_int(j, "monotonic_coarse", p->res_ns_monotonic_coarse);
    json_kv_int(j, "realtime_coarse", p->res_ns_realtime_coarse);
    json_end_object(j);
    json_kv_double(j, "elapsed_s", p->elapsed_s);
    json_end_object(j);
}

static void json_document(FILE *out, int indent, const char *root, const struct facts *fs,
                          const struct proof *p, const struct diagnosis *d, double elapsed_s)
{
    struct json j;
    json_init(&j, out, indent);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.doctor/2");
    if (root)
        json_kv_string(&j, "root", root);
    json_kv_string(&j, "verdict", verdict_name(d->verdict));
    json_key(&j, "fast_path");
    if (d->fast_path < 0)
        json_null(&j);
    else
        json_bool(&j, d->fast_path == 1);
    json_kv_string(&j, "summary", d->summary);
    json_kv_string(&j, "decided_by", d->decided_by_proof ? "proof" : "facts");
    json_kv_bool(&j, "inferred", d->inferred);
    json_kv_string_or_null(&j, "missing_fact", d->inferred ? d->missing : NULL);
    json_kv_int(&j, "exit_status", verdict_exit_status(d->verdict));
    json_key(&j, "findings");
    json_begin_array(&j);
    for (int i = 0; i < d->nfindings; i++) {
        const struct finding *f = &d->findings[i];
        json_begin_object(&j);
        json_kv_string(&j, "id", f->id);
        json_kv_string(&j, "severity", severity_name(f->severity));
        json_kv_string(&j, "title", f->title);
        kv_string_rows(&j, "evidence", f->evidence[0], sizeof f->evidence[0], f->nevidence);
        json_kv_string_or_null(&j, "meaning", f->meaning);
        kv_string_rows(&j, "fix", f->fix[0], sizeof f->fix[0], f->nfix);
        json_kv_string_or_null(&j, "gain", f->gain);
        json_key(&j, "actions");
        json_begin_array(&j);
        for (int k = 0; k < f->naction; k++)
            json_action(&j, &f->action[k], NULL);
        json_end_array(&j);
        json_end_object(&j);
    }
    json_end_array(&j);
    static struct ranked_action merged[FINDINGS_MAX * FINDING_ACTION_MAX];
    int nmerged = diagnosis_actions(d, merged, FINDINGS_MAX * FINDING_ACTION_MAX);
    json_key(&j, "actions");
    json_begin_array(&j);
    for (int k = 0; k < nmerged; k++)
        json_action(&j, merged[k].action, merged[k].finding->id);
    json_end_array(&j);
    json_facts(&j, fs, d);
    json_proof(&j, p);
    kv_string_rows(&j, "notes", fs->notes[0], sizeof fs->notes[0], fs->nnotes);
    json_kv_double(&j, "elapsed_s", elapsed_s);
    json_end_object(&j);
    json_finish(&j);
}

void report_json(FILE *out, const struct facts *fs, const struct proof *p,
                 const struct diagnosis *d, double elapsed_s)
{
    json_document(out, 2, NULL, fs, p, d, elapsed_s);
}

void report_json_line(FILE *out, const char *root, const struct facts *fs,
                      const struct proof *p, const struct diagnosis *d, double elapsed_s)
{
    json_document(out, 0, root, fs, p, d, elapsed_s);
}
