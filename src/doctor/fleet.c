/* The doctor over many facts roots (fleet.h).  One root at a time, the same struct reused:
 * a root costs what `doctor --root` costs, without a process each. */
#include "doctor/fleet.h"
#include "common/cli.h"
#include "common/json.h"
#include "doctor/archive.h"
#include "doctor/report.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

bool fleet_load_root(const char *root, struct facts *fs, char *why, size_t whylen)
{
    if (!archive_is_archive(root))
        return facts_load_root(root, fs, why, whylen);
    struct archive_unpacked u;
    if (!archive_unpack(root, &u, why, whylen)) {
        memset(fs, 0, sizeof *fs);
        return false;
    }
    bool ok = facts_load_root(u.root, fs, why, whylen);
    archive_cleanup(&u);
    if (ok)
        snprintf(fs->origin, sizeof fs->origin, "%s", root);
    return ok;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

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
        printf("%s: error: %s\n", root, why);
    }
}

static void one_root(const char *root, bool json, struct tally *t)
{
    static struct facts fs;
    static struct proof p; /* never run: nothing is measured from a root */
    static struct diagnosis d;
    char why[4400];
    double t0 = now_s();
    t->roots++;
    if (!fleet_load_root(root, &fs, why, sizeof why)) {
        t->errors++;
        print_error(json, root, why);
        facts_free(&fs);
        return;
    }
    diagnose(&fs, &p, &d);
    t->verdicts[d.verdict]++;
    if (json)
        report_json_line(stdout, root, &fs, &p, &d, now_s() - t0);
    else
        printf("%s: %s: %s\n", root, verdict_name(d.verdict), d.summary);
    facts_free(&fs);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every directory or archive in dir, by name; names starting with '.' are skipped. */
static void run_dir(const char *dir, bool json, struct tally *t)
{
    DIR *d = opendir(dir);
    if (!d)
        usage_error("doctor", "--roots '%s': %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                fprintf(stderr, "clockscope doctor: out of memory\n");
                exit(1);
            }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            fprintf(stderr, "clockscope doctor: out of memory\n");
            exit(1);
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        /* A root is a directory or an archive; other files (a README beside them) are not. */
        if (stat(names[i], &st) != 0 || S_ISDIR(st.st_mode) || archive_is_archive(names[i]))
            one_root(names[i], json, t);
        free(names[i]);
    }
    free(names);
}

int fleet_run(const char *const *roots, int nroots, const char *roots_dir, bool json)
{
    struct tally t = {0};
    double t0 = now_s();
    if (roots_dir) {
        struct stat st;
        if (stat(roots_dir, &st) != 0)
            usage_error("doctor", "--roots '%s': %s", roots_dir, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            usage_error("doctor", "--roots '%s' is not a directory", roots_dir);
    }
    for (int i = 0; i < nroots; i++)
        one_root(roots[i], json, &t);
    if (roots_dir)
        run_dir(roots_dir, json, &t);
    double elapsed = now_s() - t0;
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
    return t.errors ? 1 : 0;
}
