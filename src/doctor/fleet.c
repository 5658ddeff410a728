/* SPDX-License-Identifier: MIT */
/* The doctor over many facts roots (fleet.h).  One root at a time, the same struct reused:
 * a root costs what `doctor --root` costs, without a process each. */
#include "doctor/fleet.h"
#include "common/clock_ns.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "facts/archive.h"

#include "doctor/report.h"
#include "common/cpuset.h"
#include "common/message.h"
#include "common/printable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

struct tally {
    int roots, errors, verdicts[V_UNKNOWN + 1];
};

static void print_error(bool json, const char *root, const char *why)
{
    if (json) {
        struct json j;
        json_init(&j, stdout, 0);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.doctor.error/1");
        json_kv_string(&j, "root", root);
        json_kv_string(&j, "error", why);
        json_end_object(&j);
        json_finish(&j);
    } else {
        /* A name from a directory listing may hold a newline (forging a result line) or
         * terminal escapes: printed as the doctor prints any fact, controls as '?'. */
        char r[MSG_WITH_PATH], w[MSG_WITH_PATH];
        printf("%s: error: %s\n", printable_copy(r, sizeof r, root),
               printable_copy(w, sizeof w, why));
    }
}

/* Whether any fact was found in the root: one where none was (an empty directory, the
 * wrong directory) holds no facts and is an error, not a machine of unknown verdict. */
static bool holds_facts(const struct facts *fs)
{
    for (int i = 0; i < F_COUNT; i++)
        if (fs->f[i].status != FACT_MISSING)
            return true;
    return false;
}

static void one_root(const char *root, bool json, struct tally *t)
{
    static struct facts fs;
    static struct proof p; /* never run: nothing is measured from a root */
    static struct diagnosis d;
    char why[MSG_WITH_PATH];
    double t0 = clock_ns_monotonic_s();
    t->roots++;
    bool loaded = archive_load_root(root, &fs, why, sizeof why);
    if (loaded && !holds_facts(&fs)) {
        loaded = false;
        snprintf(why, sizeof why, "holds no facts (no facts-root path such as proc/cpuinfo or "
                                  "sos_commands/kernel/dmesg in it)");
    }
    if (!loaded) {
        t->errors++;
        print_error(json, root, why);
        facts_free(&fs);
        return;
    }
    diagnose(&fs, &p, &d);
    t->verdicts[d.verdict]++;
    char shown[MSG_WITH_PATH], summary[MSG_PARAGRAPH];
    if (json)
        report_json_line(stdout, root, &fs, &p, &d, clock_ns_monotonic_s() - t0);
    else
        printf("%s: %s: %s\n", printable_copy(shown, sizeof shown, root),
               verdict_name(d.verdict), printable_copy(summary, sizeof summary, d.summary));
    facts_free(&fs);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct root_list {
    char **name;
    size_t n, cap;
};

static void list_add(struct root_list *l, const char *a, const char *b)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        char **grown = realloc(l->name, l->cap * sizeof *l->name);
        if (!grown) {
            fprintf(stderr, "clockscope doctor: out of memory\n");
            exit(EXIT_FAILED);
        }
        l->name = grown;
    }
    size_t len = strlen(a) + (b ? strlen(b) + 1 : 0) + 1;
    if (!(l->name[l->n] = malloc(len))) {
        fprintf(stderr, "clockscope doctor: out of memory\n");
        exit(EXIT_FAILED);
    }
    snprintf(l->name[l->n++], len, "%s%s%s", a, b ? "/" : "", b ? b : "");
}

/* Every directory or archive in dir, by name; names starting with '.' are skipped, and so
 * are other files (a README beside the roots). */
static void list_dir(const char *dir, struct root_list *l)
{
    DIR *d = opendir(dir);
    if (!d)
        usage_error("doctor", "--roots '%s': %s", dir, strerror(errno));
    size_t first = l->n;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            list_add(l, dir, e->d_name);
    closedir(d);
    qsort(l->name + first, l->n - first, sizeof *l->name, by_name);
    size_t kept = first;
    for (size_t i = first; i < l->n; i++) {
        struct stat st;
        if (stat(l->name[i], &st) != 0 || S_ISDIR(st.st_mode) || archive_is_archive(l->name[i]))
            l->name[kept++] = l->name[i];
        else
            free(l->name[i]);
    }
    l->n = kept;
}

/* Roots per worker below which a process of its own does not pay. */
#define ROOTS_PER_WORKER 32
#define MAX_WORKERS 16

/* The roots [from, to) in a child whose stdout is a temporary file; its tally goes to *t
 * (shared memory).  Returns the child's pid (-1: not started) and the file in *out. */
static pid_t start_worker(struct root_list *l, size_t from, size_t to, bool json,
                          struct tally *t, FILE **out)
{
    fflush(stdout);
    *out = tmpfile();
    if (!*out)
        return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) {
        if (pid < 0) {
            fclose(*out);
            *out = NULL;
        }
        return pid;
    }
    /* A worker outlives no parent: killed with it (its archive guard then cleans up). */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) /* the parent died before prctl: no signal would ever come */
        _exit(1);
    if (dup2(fileno(*out), STDOUT_FILENO) < 0)
        _exit(1);
    for (size_t i = from; i < to; i++)
        one_root(l->name[i], json, t);
    fflush(stdout);
    _exit(ferror(stdout) ? 1 : 0);
}

/* Runs every root, on up to one worker per CPU this process may use, the output in the
 * order of the list (each worker takes a contiguous slice; its file is copied out after). */
static void run_list(struct root_list *l, bool json, struct tally *total)
{
    struct cpu_list cpus;
    size_t workers = cpuset_allowed(&cpus) ? (size_t)cpus.count : 1;
    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    if (workers > l->n / ROOTS_PER_WORKER)
        workers = l->n / ROOTS_PER_WORKER;
    struct tally *shared = workers > 1 ? mmap(NULL, workers * sizeof *shared, PROT_READ | PROT_WRITE,
                                              MAP_SHARED | MAP_ANONYMOUS, -1, 0)
                                       : MAP_FAILED;
    if (shared == MAP_FAILED) {
        for (size_t i = 0; i < l->n; i++)
            one_root(l->name[i], json, total);
        return;
    }
    memset(shared, 0, workers * sizeof *shared);
    pid_t pid[MAX_WORKERS];
    FILE *out[MAX_WORKERS];
    size_t from[MAX_WORKERS + 1];
    for (size_t w = 0; w <= workers; w++)
        from[w] = l->n * w / workers;
    for (size_t w = 0; w < workers; w++)
        pid[w] = start_worker(l, from[w], from[w + 1], json, &shared[w], &out[w]);
    for (size_t w = 0; w < workers; w++) {
        int st = 0;
        bool ok = pid[w] > 0;
        if (ok)
            subprocess_reap(pid[w], &st);
        ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!ok) {
            /* A worker that could not start or died: its roots again, here, in order. */
            memset(&shared[w], 0, sizeof shared[w]);
            if (out[w])
                fclose(out[w]);
            for (size_t i = from[w]; i < from[w + 1]; i++)
                one_root(l->name[i], json, total);
            continue;
        }
        rewind(out[w]);
        char buf[1 << 16];
        for (size_t n; (n = fread(buf, 1, sizeof buf, out[w])) > 0;)
            fwrite(buf, 1, n, stdout);
        fclose(out[w]);
        total->roots += shared[w].roots;
        total->errors += shared[w].errors;
        for (int v = 0; v <= V_UNKNOWN; v++)
            total->verdicts[v] += shared[w].verdicts[v];
    }
    munmap(shared, workers * sizeof *shared);
}

int fleet_run(const char *const *roots, int nroots, const char *roots_dir, bool json)
{
    /* Closed at start, fd 1 would be the first file opened (a worker's temporary file, a
     * pipe to tar) and the output would go there, unseen and without an error. */
    if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
        fprintf(stderr, "clockscope: cannot write the output: %s\n", strerror(errno));
        return EXIT_FAILED;
    }
    struct tally t = {0};
    double t0 = clock_ns_monotonic_s();
    struct root_list l = {0};
    if (roots_dir) {
        struct stat st;
        if (stat(roots_dir, &st) != 0)
            usage_error("doctor", "--roots '%s': %s", roots_dir, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            usage_error("doctor", "--roots '%s' is not a directory", roots_dir);
    }
    for (int i = 0; i < nroots; i++)
        list_add(&l, roots[i], NULL);
    if (roots_dir)
        list_dir(roots_dir, &l);
    run_list(&l, json, &t);
    for (size_t i = 0; i < l.n; i++)
        free(l.name[i]);
    free(l.name);
    double elapsed = clock_ns_monotonic_s() - t0;
    if (json) {
        struct json j;
        json_init(&j, stdout, 0);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "clockscope.doctor.fleet/1");
        json_kv_int(&j, "roots", t.roots);
        json_key(&j, "verdicts");
        json_begin_object(&j);
        for (enum verdict v = V_OK; v <= V_UNKNOWN; v++)
            json_kv_int(&j, verdict_name(v), t.verdicts[v]);
        json_end_object(&j);
        json_kv_int(&j, "errors", t.errors);
        json_kv_double(&j, "elapsed_s", elapsed);
        json_end_object(&j);
        json_finish(&j);
    } else {
        printf("%d roots: %d ok, %d slow, %d broken, %d unknown, %d could not be read (%.2f s)\n",
               t.roots, t.verdicts[V_OK], t.verdicts[V_SLOW], t.verdicts[V_BROKEN],
               t.verdicts[V_UNKNOWN], t.errors, elapsed);
    }
    fflush(stdout);
    return t.errors ? EXIT_PARTIAL : EXIT_OK;
}
