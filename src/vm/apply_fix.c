/* SPDX-License-Identifier: MIT */
/* The order: one boot runs `doctor --json` (before); the doctor's actions are tried in its
 * order, each in a boot of its own that runs the command under it (a cmdline action boots
 * with the changed kernel command line; a sysfs action is written by the guest's init before
 * the command, and a write the guest refuses moves on to the next action; a run action wraps
 * the command in that `clockscope run`); then the figures after: from the command's own
 * output when it is the doctor's JSON, else from one more boot running the doctor under the
 * same fix.  A run action has no "after" from the doctor: it changes only the program it
 * wraps, not the doctor run in another boot, so the command's own output is the
 * measurement. */
#include "vm/apply_fix.h"
#include "vm/initramfs.h"
#include "common/json_read.h"
#include "common/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAPTURE_MAX (4u << 20)
#define FIX_ARGS_MAX 64
#define APPEND_LEN 2048
#define EXIT_VM_FAILED 125
#define EXIT_NO_FIX 1

/* What the doctor measured: the verdict, libc clock_gettime(CLOCK_MONOTONIC)'s cost, and
 * the syscalls 1000 such calls made (its seccomp proof). */
struct figures {
    bool have;
    char verdict[32];
    double ns_per_call;             /* < 0: not measured */
    double syscalls_per_1000_calls; /* < 0: not counted */
    char why[240];                  /* when !have */
};

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

/* The doctor's JSON (schema clockscope.doctor/...) into f; the tree into *root (or NULL). */
static bool read_doctor(const char *text, size_t n, struct json_node **root, struct figures *f)
{
    memset(f, 0, sizeof *f);
    char why[200];
    *root = json_tree_parse(text, n, why, sizeof why);
    const char *schema = json_str(json_get(*root, "schema"));
    if (!*root || !schema || strncmp(schema, "clockscope.doctor/", 18) != 0) {
        snprintf(f->why, sizeof f->why, "not the doctor's JSON (%s)",
                 *root ? "no clockscope.doctor schema" : why);
        json_tree_free(*root);
        *root = NULL;
        return false;
    }
    const char *verdict = json_str(json_get(*root, "verdict"));
    snprintf(f->verdict, sizeof f->verdict, "%s", verdict ? verdict : "?");
    const struct json_node *proof = json_get(*root, "proof");
    f->ns_per_call = json_num(json_get(find_timing(proof, "libc.clock_gettime.monotonic"),
                                       "ns_per_call"), -1);
    const struct json_node *sc = json_get(proof, "syscall_count");
    double calls = json_num(json_get(sc, "calls"), 0);
    double sys = json_num(json_get(json_get(sc, "syscalls"), "clock_gettime_monotonic"), -1);
    const struct json_node *counted = json_get(sc, "counted");
    f->syscalls_per_1000_calls = counted && counted->boolean && calls > 0 && sys >= 0
                                     ? sys * 1000.0 / calls : -1;
    f->have = true;
    return true;
}

/* Boots the guest with `clockscope argv...` as the command, the kernel command line
 * `append`, init's sysfs writes, and the command's stdout captured (and relayed when
 * `relay`).  False when the guest did not end in the command's exit status (reported). */
static bool boot_guest(const struct fix_context *ctx, int argc, char **argv, const char *append,
                       const char *sysfs, size_t sysfs_size, struct vm_capture *cap, bool relay,
                       struct vm_result *r, int *status)
{
    char initrd[4096], why[4096];
    if (!initramfs_build_with_sysfs(ctx->binary, argc, argv, ctx->files, ctx->env,
                                    ctx->env_size, sysfs, sysfs_size, initrd, sizeof initrd,
                                    why, sizeof why)) {
        fprintf(stderr, "clockscope vm: %s\n", why);
        *status = EXIT_VM_FAILED;
        return false;
    }
    struct vm_boot b = ctx->boot;
    b.append = append && *append ? append : NULL;
    b.initrd = initrd;
    cap->len = 0;
    cap->overflow = false;
    cap->relay = relay;
    b.capture = cap;
    ctx->run_boot(&b, r);
    unlink(initrd);
    if (r->fix_refused[0]) { /* the caller says it and tries the next action */
        *status = EXIT_VM_FAILED;
        return false;
    }
    if (r->outcome != VM_DONE) {
        *status = ctx->report_failure(&b, r);
        return false;
    }
    *status = r->exit_code;
    return true;
}

bool apply_fix_cmdline(const char *base, const char *const *remove, size_t n_remove,
                       const char *const *add, size_t n_add, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    char *copy = strdup(base ? base : "");
    if (!copy)
        return false;
    bool ok = true;
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w && ok;
         w = strtok_r(NULL, " \t", &save)) {
        bool drop = false;
        for (size_t i = 0; i < n_remove && !drop; i++)
            drop = strcmp(w, remove[i]) == 0;
        for (size_t i = 0; i < n_add && !drop; i++)
            drop = strcmp(w, add[i]) == 0; /* added once, at the end */
        if (drop)
            continue;
        int n = snprintf(out + used, len - used, "%s%s", used ? " " : "", w);
        ok = n >= 0 && (size_t)n < len - used;
        used += ok ? (size_t)n : 0;
    }
    for (size_t i = 0; i < n_add && ok; i++) {
        int n = snprintf(out + used, len - used, "%s%s", used ? " " : "", add[i]);
        ok = n >= 0 && (size_t)n < len - used;
        used += ok ? (size_t)n : 0;
    }
    free(copy);
    return ok;
}

/* An array of strings into v (at most max); false when it is not one. */
static bool strings_of(const struct json_node *arr, const char **v, size_t max, size_t *n)
{
    *n = 0;
    if (!arr || arr->type != JSON_ARRAY || json_len(arr) > max)
        return false;
    for (size_t i = 0; i < json_len(arr); i++) {
        const char *s = json_str(json_at(arr, i));
        if (!s || !*s || strpbrk(s, " \t\n"))
            return false;
        v[(*n)++] = s;
    }
    return true;
}

static void write_node(struct json *j, const struct json_node *n)
{
    switch (n->type) {
    case JSON_NULL: json_null(j); break;
    case JSON_BOOL: json_bool(j, n->boolean); break;
    case JSON_NUMBER: json_double(j, n->number); break;
    case JSON_STRING: json_string(j, n->string); break;
    case JSON_ARRAY:
        json_begin_array(j);
        for (const struct json_node *c = n->child; c; c = c->next)
            write_node(j, c);
        json_end_array(j);
        break;
    case JSON_OBJECT:
        json_begin_object(j);
        for (const struct json_node *c = n->child; c; c = c->next) {
            json_key(j, c->key);
            write_node(j, c);
        }
        json_end_object(j);
        break;
    }
}

static void write_figures(struct json *j, const char *key, const struct figures *f)
{
    json_key(j, key);
    if (!f->have) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_string(j, "verdict", f->verdict);
    json_key(j, "ns_per_call");
    if (f->ns_per_call >= 0)
        json_double(j, f->ns_per_call);
    else
        json_null(j);
    json_key(j, "syscalls_per_1000_calls");
    if (f->syscalls_per_1000_calls >= 0)
        json_double(j, f->syscalls_per_1000_calls);
    else
        json_null(j);
    json_end_object(j);
}

static void print_figures(const char *label, const struct figures *f)
{
    if (!f->have) {
        printf("  %-7s %s\n", label, f->why);
        return;
    }
    char ns[32] = "-", sys[32] = "-";
    if (f->ns_per_call >= 0)
        snprintf(ns, sizeof ns, "%.1f", f->ns_per_call);
    if (f->syscalls_per_1000_calls >= 0)
        snprintf(sys, sizeof sys, "%.0f", f->syscalls_per_1000_calls);
    printf("  %-7s %-9s %12s %26s\n", label, f->verdict, ns, sys);
}

/* One line saying what an action does, for the report. */
static void describe(const struct json_node *a, char *out, size_t len)
{
    const char *kind = json_str(json_get(a, "kind"));
    const char *risk = json_str(json_get(a, "risk"));
    const char *finding = json_str(json_get(a, "finding"));
    char what[1024] = "";
    if (kind && strcmp(kind, "sysfs") == 0) {
        snprintf(what, sizeof what, "write '%s' to %s in the guest, no reboot",
                 json_str(json_get(a, "value")), json_str(json_get(a, "path")));
    } else if (kind && strcmp(kind, "cmdline") == 0) {
        size_t used = (size_t)snprintf(what, sizeof what, "reboot with the kernel command line");
        const char *words[FIX_ARGS_MAX];
        size_t n;
        if (strings_of(json_get(a, "add"), words, FIX_ARGS_MAX, &n))
            for (size_t i = 0; i < n && used < sizeof what; i++)
                used += (size_t)snprintf(what + used, sizeof what - used, " +%s", words[i]);
        if (strings_of(json_get(a, "remove"), words, FIX_ARGS_MAX, &n))
            for (size_t i = 0; i < n && used < sizeof what; i++)
                used += (size_t)snprintf(what + used, sizeof what - used, " -%s", words[i]);
    } else if (kind && strcmp(kind, "run") == 0) {
        const char *words[FIX_ARGS_MAX];
        size_t n, used = (size_t)snprintf(what, sizeof what, "run the command as:");
        if (strings_of(json_get(a, "argv"), words, FIX_ARGS_MAX, &n))
            for (size_t i = 0; i < n && used < sizeof what; i++)
                used += (size_t)snprintf(what + used, sizeof what - used, " %s", words[i]);
        if (used < sizeof what)
            snprintf(what + used, sizeof what - used, " COMMAND");
    } else {
        snprintf(what, sizeof what, "%s", kind ? kind : "?");
    }
    snprintf(out, len, "%s (%s%s%s%s)", what, finding ? "finding " : "", finding ? finding : "",
             finding ? ", " : "", risk ? risk : "risk not stated");
}

void apply_fix_run_after_why(int command_status, const char *command, char *out, size_t len)
{
    if (command_status == 127)
        snprintf(out, len, "not measured: `run` found no command `%.80s` in the guest (exit "
                 "127); name a program the guest has, or bring one with --add", command);
    else if (command_status == 126)
        snprintf(out, len, "not measured: `run` could not execute `%.80s` in the guest (exit "
                 "126)", command);
    else
        snprintf(out, len, "not measured by the doctor: a run action changes only the program "
                 "it wraps (`%.80s`, exit %d); its output shows the change", command,
                 command_status);
}

int apply_fix_run(const struct fix_context *ctx, int argc, char **argv)
{
    static struct vm_capture cap;
    if (!cap.buf) {
        cap.buf = malloc(CAPTURE_MAX);
        cap.cap = cap.buf ? CAPTURE_MAX : 0;
    }
    static struct vm_result r;
    int status = EXIT_VM_FAILED;
    const char *base_append = ctx->boot.append ? ctx->boot.append : "";

    /* Before: the doctor in the unfixed guest, or (test hook) its JSON from a file. */
    struct json_node *before_root = NULL;
    struct figures before, after;
    memset(&after, 0, sizeof after);
    const char *hook = getenv("CLOCKSCOPE_APPLY_FIX_DOCTOR_JSON");
    if (hook && *hook) {
        FILE *f = fopen(hook, "rb");
        cap.len = f ? fread(cap.buf, 1, cap.cap, f) : 0;
        if (f)
            fclose(f);
        if (!f) {
            fprintf(stderr, "clockscope vm: CLOCKSCOPE_APPLY_FIX_DOCTOR_JSON: cannot read %s\n",
                    hook);
            return EXIT_VM_FAILED;
        }
    } else {
        char *doctor[] = {"doctor", "--json", NULL};
        if (!boot_guest(ctx, 2, doctor, base_append, NULL, 0, &cap, false, &r, &status))
            return status;
    }
    if (!read_doctor(cap.buf, cap.len, &before_root, &before)) {
        fprintf(stderr, "clockscope vm: --apply-fix: the guest's doctor printed %s\n", before.why);
        return EXIT_VM_FAILED;
    }
    const struct json_node *actions = json_get(before_root, "actions");
    if (!actions || actions->type != JSON_ARRAY) {
        fprintf(stderr, "clockscope vm: --apply-fix: the doctor's JSON has no \"actions\" list "
                        "(the guest's clockscope predates fixes as data: rebuild it with `make "
                        "vm-binaries`)\n");
        json_tree_free(before_root);
        return EXIT_VM_FAILED;
    }

    /* The actions in the doctor's order: the first the guest allows is applied. */
    char skipped[8][400];
    int n_skipped = 0;
    const struct json_node *applied = NULL;
    char applied_what[1400] = "", append[APPEND_LEN] = "";
    char sysfs[1024];
    size_t sysfs_size = 0;
    bool failed = false;
    for (size_t i = 0; i < json_len(actions) && !applied && !failed; i++) {
        const struct json_node *a = json_at(actions, i);
        const char *kind = json_str(json_get(a, "kind"));
        char what[1400], why[400] = "";
        describe(a, what, sizeof what);
        char *gargv[FIX_ARGS_MAX + 260];
        int gargc = 0;
        snprintf(append, sizeof append, "%s", base_append);
        sysfs_size = 0;
        if (kind && strcmp(kind, "sysfs") == 0) {
            const char *path = json_str(json_get(a, "path")), *value = json_str(json_get(a, "value"));
            if (!path || !value || strncmp(path, "/sys/", 5) != 0 || strstr(path, "/..") ||
                strlen(path) + strlen(value) + 2 > sizeof sysfs)
                snprintf(why, sizeof why, "a sysfs action without a /sys path and a value");
            else {
                memcpy(sysfs, path, strlen(path) + 1);
                memcpy(sysfs + strlen(path) + 1, value, strlen(value) + 1);
                sysfs_size = strlen(path) + strlen(value) + 2;
            }
        } else if (kind && strcmp(kind, "cmdline") == 0) {
            const char *add[FIX_ARGS_MAX], *remove[FIX_ARGS_MAX];
            size_t n_add = 0, n_remove = 0;
            const struct json_node *rm = json_get(a, "remove");
            if (!strings_of(json_get(a, "add"), add, FIX_ARGS_MAX, &n_add) ||
                (rm && !strings_of(rm, remove, FIX_ARGS_MAX, &n_remove)))
                snprintf(why, sizeof why, "a cmdline action without lists of words");
            else if (!apply_fix_cmdline(base_append, remove, n_remove, add, n_add, append,
                                        sizeof append))
                snprintf(why, sizeof why, "the changed command line would be too long");
        } else if (kind && strcmp(kind, "run") == 0) {
            const char *words[FIX_ARGS_MAX];
            size_t n = 0;
            if (!strings_of(json_get(a, "argv"), words, FIX_ARGS_MAX, &n) || n < 2 ||
                strcmp(words[0], "clockscope") != 0 || strcmp(words[1], "run") != 0)
                snprintf(why, sizeof why, "a run action whose argv is not `clockscope run ...`");
            else
                for (size_t k = 1; k < n; k++)
                    gargv[gargc++] = (char *)words[k];
        } else {
            snprintf(why, sizeof why, "not one clockscope can apply in a guest");
        }
        if (why[0]) {
            if (n_skipped < 8)
                snprintf(skipped[n_skipped++], sizeof skipped[0], "%.200s: %.190s", what, why);
            continue;
        }
        for (int k = 0; k < argc; k++)
            gargv[gargc++] = argv[k];
        gargv[gargc] = NULL;
        if (!ctx->json)
            printf("clockscope vm --apply-fix: scenario %s: applying %s\n", ctx->scenario, what);
        fflush(stdout);
        if (!boot_guest(ctx, gargc, gargv, append, sysfs, sysfs_size, &cap, !ctx->json, &r,
                        &status)) {
            if (r.fix_refused[0] && n_skipped < 8) {
                snprintf(skipped[n_skipped++], sizeof skipped[0], "%.200s: the guest refused "
                         "it (%.170s)", what, r.fix_refused);
                status = EXIT_VM_FAILED;
                continue;
            }
            failed = true;
            break;
        }
        applied = a;
        snprintf(applied_what, sizeof applied_what, "%s", what);
    }
    if (failed) {
        json_tree_free(before_root);
        return status;
    }

    /* After: the command's own output when it is the doctor's JSON; else the doctor under
     * the same fix, except for a run action (the doctor cannot be served by run). */
    struct json_node *after_root = NULL;
    const char *kind = applied ? json_str(json_get(applied, "kind")) : NULL;
    int command_status = status;
    static char *command_out;
    size_t command_len = cap.len;
    free(command_out);
    command_out = malloc(cap.len + 1);
    if (command_out) {
        memcpy(command_out, cap.buf, cap.len);
        command_out[cap.len] = 0;
    } else {
        command_len = 0;
    }
    if (applied && !read_doctor(cap.buf, cap.len, &after_root, &after)) {
        if (strcmp(kind, "run") == 0) {
            apply_fix_run_after_why(command_status, argc ? argv[0] : "", after.why,
                                    sizeof after.why);
        } else {
            char *doctor[] = {"doctor", "--json", NULL};
            int st;
            if (boot_guest(ctx, 2, doctor, append, sysfs, sysfs_size, &cap, false, &r, &st))
                read_doctor(cap.buf, cap.len, &after_root, &after);
            else if (r.fix_refused[0]) /* the fix held in the command's boot, not here */
                snprintf(after.why, sizeof after.why, "the doctor's boot after the fix "
                         "failed: the guest refused the fix then (%.150s)", r.fix_refused);
            else /* the cause is on stderr (report_failure) */
                snprintf(after.why, sizeof after.why, "the doctor's boot after the fix failed");
        }
    }
    if (!applied)
        snprintf(after.why, sizeof after.why, "no fix applied");

    if (ctx->json) {
        struct json j;
        json_init(&j, stdout, 2);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.vm-apply-fix/1");
        json_kv_string(&j, "scenario", ctx->scenario);
        write_figures(&j, "before", &before);
        json_key(&j, "action");
        if (applied)
            write_node(&j, applied);
        else
            json_null(&j);
        json_key(&j, "skipped");
        json_begin_array(&j);
        for (int i = 0; i < n_skipped; i++)
            json_string(&j, skipped[i]);
        json_end_array(&j);
        write_figures(&j, "after", &after);
        if (!after.have)
            json_kv_string(&j, "after_why", after.why);
        json_key(&j, "command");
        json_begin_object(&j);
        json_key(&j, "argv");
        json_begin_array(&j);
        for (int i = 0; i < argc; i++)
            json_string(&j, argv[i]);
        json_end_array(&j);
        json_key(&j, "exit_status");
        if (applied)
            json_int(&j, command_status);
        else
            json_null(&j);
        json_key(&j, "stdout");
        if (applied && command_out) {
            /* The bytes as text: a NUL would end it early, so it is cut there. */
            json_string(&j, command_out);
        } else {
            json_null(&j);
        }
        json_end_object(&j);
        json_end_object(&j);
        fputc('\n', stdout);
    } else {
        if (command_len && command_out[command_len - 1] != '\n')
            putchar('\n');
        printf("clockscope vm --apply-fix: scenario %s\n", ctx->scenario);
        for (int i = 0; i < n_skipped; i++)
            printf("  not applied: %s\n", skipped[i]);
        printf("  applied: %s\n", applied ? applied_what : "nothing: no action the guest allows");
        printf("  %-7s %-9s %12s %26s\n", "", "verdict", "ns per call", "syscalls per 1000 calls");
        print_figures("before", &before);
        print_figures("after", &after);
    }
    json_tree_free(before_root);
    json_tree_free(after_root);
    if (!applied)
        return EXIT_NO_FIX;
    return command_status;
}
