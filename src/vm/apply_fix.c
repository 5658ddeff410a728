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
#include "common/exit_status.h"
#include "vm/guest_init.h"
#include "common/environment.h"
#include "vm/fix_figures.h"
#include "vm/initramfs.h"
#include "common/json_read.h"
#include "common/json.h"
#include "common/message.h"
#include "vm/vm_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAPTURE_MAX (4u << 20)
#define FIX_ARGS_MAX 64
#define APPEND_LEN 2048

/* Boots the guest with `clockscope argv...` as the command, the kernel command line
 * `append`, init's sysfs writes, and the command's stdout captured (and relayed when
 * `relay`).  False when the guest did not end in the command's exit status (reported). */
static bool boot_guest(const struct fix_context *ctx, int argc, char **argv, const char *append,
                       const char *sysfs, size_t sysfs_size, struct vm_capture *cap, bool relay,
                       struct vm_result *r, int *status)
{
    char initrd[4096], why[MSG_WITH_PATH];
    if (!initramfs_build_with_sysfs(ctx->binary, argc, argv, ctx->files, ctx->env,
                                    ctx->env_size, sysfs, sysfs_size, initrd, sizeof initrd,
                                    why, sizeof why)) {
        vm_note("%s", why);
        *status = EXIT_WRAPPER_FAILED;
        return false;
    }
    struct vm_boot b = ctx->boot;
    b.append = append && *append ? append : NULL;
    b.initrd = initrd;
    cap->len = 0;
    cap->overflow = false;
    cap->relay = relay;
    b.capture = cap;
    ctx->run_boot(ctx->policy, &b, r);
    unlink(initrd);
    if (r->fix_refused[0]) { /* the caller says it and tries the next action */
        *status = EXIT_WRAPPER_FAILED;
        return false;
    }
    if (r->outcome != VM_DONE) {
        *status = ctx->report_failure(ctx->policy, &b, r);
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

/* The kinds of action clockscope applies in a guest; FIX_OTHER is any other. */
enum fix_kind { FIX_SYSFS, FIX_CMDLINE, FIX_RUN, FIX_OTHER };

static const struct {
    const char *name;
    enum fix_kind kind;
} fix_kinds[] = {{"sysfs", FIX_SYSFS}, {"cmdline", FIX_CMDLINE}, {"run", FIX_RUN}};

/* One of the doctor's actions, decoded once: its kind, the line the report gives it, and
 * what its boots need (kernel command line, init's sysfs write, run wrapper), or why
 * clockscope cannot apply it in a guest. */
struct fix_action {
    enum fix_kind kind;
    const struct json_node *node;   /* the doctor's own object (--json shows it) */
    char what[MSG_PARAGRAPH];       /* what it does, for the report */
    char why[MSG_REASON];           /* "" when it can be applied; else why not */
    char append[APPEND_LEN];        /* the kernel command line of its boots */
    char sysfs[1024];               /* FIX_SYSFS: "path\0value\0" for init */
    size_t sysfs_size;              /* 0: no sysfs write */
    const char *wrap[FIX_ARGS_MAX]; /* FIX_RUN: the argv after "clockscope" (run ...) */
    size_t n_wrap;
};

/* what[used..] gets " PREFIXword" for each word of arr, when arr is a list of words; the
 * length what would have then (at least size when it was cut). */
static size_t add_words(char *what, size_t size, size_t used, const struct json_node *arr,
                        const char *prefix)
{
    const char *words[FIX_ARGS_MAX];
    size_t n;
    if (strings_of(arr, words, FIX_ARGS_MAX, &n))
        for (size_t i = 0; i < n && used < size; i++)
            used += (size_t)snprintf(what + used, size - used, " %s%s", prefix, words[i]);
    return used;
}

/* fa->what: one line saying what the action does, for the report; name is its "kind". */
static void describe(struct fix_action *fa, const char *name)
{
    const struct json_node *a = fa->node;
    const char *risk = json_str(json_get(a, "risk"));
    const char *finding = json_str(json_get(a, "finding"));
    char what[MSG_PARAGRAPH] = "";
    size_t used;
    switch (fa->kind) {
    case FIX_SYSFS:
        snprintf(what, sizeof what, "write '%s' to %s in the guest, no reboot",
                 json_str(json_get(a, "value")), json_str(json_get(a, "path")));
        break;
    case FIX_CMDLINE:
        used = (size_t)snprintf(what, sizeof what, "reboot with the kernel command line");
        used = add_words(what, sizeof what, used, json_get(a, "add"), "+");
        add_words(what, sizeof what, used, json_get(a, "remove"), "-");
        break;
    case FIX_RUN:
        used = (size_t)snprintf(what, sizeof what, "run the command as:");
        used = add_words(what, sizeof what, used, json_get(a, "argv"), "");
        if (used < sizeof what)
            snprintf(what + used, sizeof what - used, " COMMAND");
        break;
    case FIX_OTHER:
        snprintf(what, sizeof what, "%s", name ? name : "?");
        break;
    }
    snprintf(fa->what, sizeof fa->what, "%s (%s%s%s%s)", what, finding ? "finding " : "",
             finding ? finding : "", finding ? ", " : "", risk ? risk : "risk not stated");
}

/* A sysfs action: init's write, a /sys path and its value. */
static void decode_sysfs(struct fix_action *fa)
{
    const char *path = json_str(json_get(fa->node, "path"));
    const char *value = json_str(json_get(fa->node, "value"));
    if (!path || !value || strncmp(path, "/sys/", 5) != 0 || strstr(path, "/..") ||
        strlen(path) + strlen(value) + 2 > sizeof fa->sysfs) {
        snprintf(fa->why, sizeof fa->why, "a sysfs action without a /sys path and a value");
        return;
    }
    memcpy(fa->sysfs, path, strlen(path) + 1);
    memcpy(fa->sysfs + strlen(path) + 1, value, strlen(value) + 1);
    fa->sysfs_size = strlen(path) + strlen(value) + 2;
}

/* A cmdline action: base's words changed by its "remove" and "add" lists. */
static void decode_cmdline(struct fix_action *fa, const char *base)
{
    const char *add[FIX_ARGS_MAX], *remove[FIX_ARGS_MAX];
    size_t n_add = 0, n_remove = 0;
    const struct json_node *rm = json_get(fa->node, "remove");
    if (!strings_of(json_get(fa->node, "add"), add, FIX_ARGS_MAX, &n_add) ||
        (rm && !strings_of(rm, remove, FIX_ARGS_MAX, &n_remove)))
        snprintf(fa->why, sizeof fa->why, "a cmdline action without lists of words");
    else if (!apply_fix_cmdline(base, remove, n_remove, add, n_add, fa->append,
                                sizeof fa->append))
        snprintf(fa->why, sizeof fa->why, "the changed command line would be too long");
}

/* A run action: its argv is `clockscope run ...`, which wraps the command. */
static void decode_run(struct fix_action *fa)
{
    const char *words[FIX_ARGS_MAX];
    size_t n = 0;
    if (!strings_of(json_get(fa->node, "argv"), words, FIX_ARGS_MAX, &n) || n < 2 ||
        strcmp(words[0], "clockscope") != 0 || strcmp(words[1], "run") != 0)
        snprintf(fa->why, sizeof fa->why, "a run action whose argv is not `clockscope run ...`");
    else
        for (size_t k = 1; k < n; k++)
            fa->wrap[fa->n_wrap++] = words[k];
}

/* The doctor's action a into fa; base is the kernel command line without any fix. */
static void decode_action(const struct json_node *a, const char *base, struct fix_action *fa)
{
    const char *name = json_str(json_get(a, "kind"));
    fa->kind = FIX_OTHER;
    for (size_t i = 0; i < sizeof fix_kinds / sizeof fix_kinds[0]; i++)
        if (name && strcmp(name, fix_kinds[i].name) == 0)
            fa->kind = fix_kinds[i].kind;
    fa->node = a;
    fa->why[0] = 0;
    fa->sysfs_size = 0;
    fa->n_wrap = 0;
    describe(fa, name);
    snprintf(fa->append, sizeof fa->append, "%s", base);
    switch (fa->kind) {
    case FIX_SYSFS: decode_sysfs(fa); break;
    case FIX_CMDLINE: decode_cmdline(fa, base); break;
    case FIX_RUN: decode_run(fa); break;
    case FIX_OTHER:
        snprintf(fa->why, sizeof fa->why, "not one clockscope can apply in a guest");
        break;
    }
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

#define SKIPPED_MAX 8

/* One --apply-fix sequence: what each step finds, for the next step and the report. */
struct fix_run {
    const struct fix_context *ctx;
    int argc;              /* the command, argv[0..argc) */
    char **argv;
    const char *base;      /* the kernel command line without any fix */
    struct vm_capture *cap; /* the last boot's stdout */
    struct vm_result *r;   /* the last boot's result */
    struct json_node *before_root, *after_root;
    struct fix_figures before, after;
    struct fix_action action; /* the one tried last: the one applied when `applied` */
    bool applied;
    char skipped[SKIPPED_MAX][400]; /* the actions not applied, and why */
    int n_skipped;
    int status;            /* the command's exit status; vm's when a boot failed */
    char *command_out;     /* the command's stdout as text; NULL: out of memory */
    size_t command_len;
};

/* Before: the doctor in the unfixed guest, or (test hook) its JSON from a file, with its
 * "actions" list.  False when there is none (said on stderr; f->status says how). */
static bool fix_before(struct fix_run *f)
{
    struct vm_capture *cap = f->cap;
    const char *hook = getenv(ENV_APPLY_FIX_DOCTOR_JSON);
    f->status = EXIT_WRAPPER_FAILED;
    if (hook && *hook) {
        FILE *file = fopen(hook, "rb");
        cap->len = file ? fread(cap->buf, 1, cap->cap, file) : 0;
        if (file)
            fclose(file);
        if (!file) {
            vm_note("CLOCKSCOPE_APPLY_FIX_DOCTOR_JSON: cannot read %s",
                    hook);
            return false;
        }
    } else {
        char *doctor[] = {"doctor", "--json", NULL};
        if (!boot_guest(f->ctx, 2, doctor, f->base, NULL, 0, cap, false, f->r, &f->status))
            return false;
    }
    if (!fix_figures_read(cap->buf, cap->len, &f->before_root, &f->before)) {
        vm_note("--apply-fix: the guest's doctor printed %s",
                f->before.why);
        return false;
    }
    const struct json_node *actions = json_get(f->before_root, "actions");
    if (!actions || actions->type != JSON_ARRAY) {
        vm_note("--apply-fix: the doctor's JSON has no \"actions\" list "
                        "(the guest's clockscope predates fixes as data: rebuild it with `make "
                        "vm-binaries`)");
        return false;
    }
    return true;
}

/* Apply: the actions in the doctor's order, each decoded once; the first the guest allows
 * is applied (f->action) with the command running under it.  False when a boot failed
 * (f->status says how). */
static bool fix_apply(struct fix_run *f)
{
    const struct fix_context *ctx = f->ctx;
    const struct json_node *actions = json_get(f->before_root, "actions");
    struct fix_action *fa = &f->action;
    for (size_t i = 0; i < json_len(actions) && !f->applied; i++) {
        decode_action(json_at(actions, i), f->base, fa);
        if (fa->why[0]) {
            if (f->n_skipped < SKIPPED_MAX)
                snprintf(f->skipped[f->n_skipped++], sizeof f->skipped[0], "%.200s: %.190s",
                         fa->what, fa->why);
            continue;
        }
        /* The wrapper's words, the command's (vm refuses more than GUEST_MAX_ARGS) and NULL. */
        char *gargv[FIX_ARGS_MAX + GUEST_MAX_ARGS + 1];
        int gargc = 0;
        for (size_t k = 0; k < fa->n_wrap; k++)
            gargv[gargc++] = (char *)fa->wrap[k];
        for (int k = 0; k < f->argc; k++)
            gargv[gargc++] = f->argv[k];
        gargv[gargc] = NULL;
        /* vm's own lines go to stderr, as its other notes do: stdout carries the command's
         * output alone (or, with --json, the one document). */
        if (!ctx->json)
            fprintf(stderr, "clockscope vm --apply-fix: scenario %s: applying %s\n",
                    ctx->scenario, fa->what);
        fflush(stdout);
        f->applied = boot_guest(ctx, gargc, gargv, fa->append, fa->sysfs, fa->sysfs_size,
                                f->cap, !ctx->json, f->r, &f->status);
        if (f->applied)
            break;
        if (!f->r->fix_refused[0] || f->n_skipped >= SKIPPED_MAX)
            return false;
        snprintf(f->skipped[f->n_skipped++], sizeof f->skipped[0], "%.200s: the guest refused "
                 "it (%.170s)", fa->what, f->r->fix_refused);
        f->status = EXIT_WRAPPER_FAILED;
    }
    return true;
}

/* After: the command's own output when it is the doctor's JSON; else the doctor under
 * the same fix, except for a run action (the doctor cannot be served by run). */
static void fix_after(struct fix_run *f)
{
    struct vm_capture *cap = f->cap;
    f->command_len = cap->len;
    f->command_out = malloc(cap->len + 1);
    if (f->command_out) {
        memcpy(f->command_out, cap->buf, cap->len);
        f->command_out[cap->len] = 0;
    } else {
        f->command_len = 0;
    }
    if (!f->applied) {
        snprintf(f->after.why, sizeof f->after.why, "no fix applied");
        return;
    }
    if (fix_figures_read(cap->buf, cap->len, &f->after_root, &f->after))
        return;
    if (f->action.kind == FIX_RUN) {
        apply_fix_run_after_why(f->status, f->argc ? f->argv[0] : "", f->after.why,
                                sizeof f->after.why);
        return;
    }
    char *doctor[] = {"doctor", "--json", NULL};
    const struct fix_action *fa = &f->action;
    int st;
    if (boot_guest(f->ctx, 2, doctor, fa->append, fa->sysfs, fa->sysfs_size, cap, false, f->r,
                   &st))
        fix_figures_read(cap->buf, cap->len, &f->after_root, &f->after);
    else if (f->r->fix_refused[0]) /* the fix held in the command's boot, not here */
        snprintf(f->after.why, sizeof f->after.why, "the doctor's boot after the fix "
                 "failed: the guest refused the fix then (%.150s)", f->r->fix_refused);
    else /* the cause is on stderr (report_failure) */
        snprintf(f->after.why, sizeof f->after.why, "the doctor's boot after the fix failed");
}

/* The report as one JSON document (--json). */
static void print_json(const struct fix_run *f)
{
    struct json j;
    json_init(&j, stdout, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.vm-apply-fix/2");
    json_kv_string(&j, "scenario", f->ctx->scenario);
    fix_figures_json(&j, "before", &f->before);
    json_key(&j, "action");
    if (f->applied)
        write_node(&j, f->action.node);
    else
        json_null(&j);
    json_key(&j, "skipped");
    json_begin_array(&j);
    for (int i = 0; i < f->n_skipped; i++)
        json_string(&j, f->skipped[i]);
    json_end_array(&j);
    fix_figures_json(&j, "after", &f->after);
    if (!f->after.have)
        json_kv_string(&j, "after_why", f->after.why);
    json_key(&j, "command");
    json_begin_object(&j);
    json_key(&j, "argv");
    json_begin_array(&j);
    for (int i = 0; i < f->argc; i++)
        json_string(&j, f->argv[i]);
    json_end_array(&j);
    json_key(&j, "exit_status");
    if (f->applied)
        json_int(&j, f->status);
    else
        json_null(&j);
    json_key(&j, "stdout");
    if (f->applied && f->command_out) {
        /* The bytes as text: a NUL would end it early, so it is cut there. */
        json_string(&j, f->command_out);
    } else {
        json_null(&j);
    }
    json_end_object(&j);
    json_end_object(&j);
    fputc('\n', stdout);
}

/* The report as text, on stderr after the command's own output (stdout): a command's
 * --json stays one document a pipe can read. */
static void print_text(const struct fix_run *f)
{
    fflush(stdout);
    fprintf(stderr, "clockscope vm --apply-fix: scenario %s\n", f->ctx->scenario);
    for (int i = 0; i < f->n_skipped; i++)
        fprintf(stderr, "  not applied: %s\n", f->skipped[i]);
    fprintf(stderr, "  applied: %s\n",
            f->applied ? f->action.what : "nothing: no action the guest allows");
    fprintf(stderr, "  %-7s %-9s %12s %26s\n", "", "verdict", "ns per call",
            "syscalls per 1000 calls");
    fix_figures_print(stderr, "before", &f->before);
    fix_figures_print(stderr, "after", &f->after);
}

/* Print: before, the action applied (or none) and the actions skipped, after. */
static void fix_print(const struct fix_run *f)
{
    if (f->ctx->json)
        print_json(f);
    else
        print_text(f);
}

int apply_fix_run(const struct fix_context *ctx, int argc, char **argv)
{
    static struct vm_capture cap;
    if (!cap.buf) {
        cap.buf = malloc(CAPTURE_MAX);
        cap.cap = cap.buf ? CAPTURE_MAX : 0;
    }
    static struct vm_result r;
    static struct fix_run f;
    memset(&f, 0, sizeof f);
    f.ctx = ctx;
    f.argc = argc;
    f.argv = argv;
    f.base = ctx->boot.append ? ctx->boot.append : "";
    f.cap = &cap;
    f.r = &r;
    if (fix_before(&f) && fix_apply(&f)) {
        fix_after(&f);
        fix_print(&f);
        if (!f.applied)
            f.status = EXIT_FAILED;
    }
    json_tree_free(f.before_root);
    json_tree_free(f.after_root);
    free(f.command_out);
    return f.status;
}
