/* common/beneath: opening paths beneath a root, through the kernel (openat2) and through
 * the user-space fallback (forced), which must agree case by case; and facts/reader on a
 * tree with links that lead out, both ways. */
#include "check.h"
#include "common/beneath.h"
#include "facts/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char outside[256], root[300];

static void put(const char *rel, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void link_at(const char *target, const char *rel)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (symlink(target, p) != 0)
        perror(p);
}

/* outside/secret, and outside/root with links that stay in or lead out. */
static bool make_tree(void)
{
    snprintf(outside, sizeof outside, "/tmp/clockscope-beneath-XXXXXX");
    if (!mkdtemp(outside))
        return false;
    char p[600];
    snprintf(p, sizeof p, "%s/secret", outside);
    FILE *f = fopen(p, "w");
    if (!f)
        return false;
    fputs("host secret\n", f);
    fclose(f);
    snprintf(root, sizeof root, "%s/root", outside);
    mkdir(root, 0755);
    snprintf(p, sizeof p, "%s/a", root), mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/b", root), mkdir(p, 0755);
    put("a/b/file", "inside\n");
    put("top", "top\n");
    link_at("../top", "a/up_in");                 /* relative, stays inside */
    link_at("a/b", "dirlink");                    /* a directory link inside */
    link_at("b/../../top", "a/zigzag");           /* climbs, but stays inside */
    link_at(outside, "abs_dir");                  /* absolute, to a directory outside */
    snprintf(p, sizeof p, "%s/secret", outside);
    link_at(p, "abs_file");                       /* absolute, to a file outside */
    link_at("../secret", "rel_file");             /* relative, one level out */
    link_at("../../../secret", "a/b/deep_out");   /* relative, out from deep inside */
    link_at("..", "a/b/parent");                  /* a link to .. (inside) */
    link_at("/", "slash");
    link_at("loop1", "loop2");
    link_at("loop2", "loop1");
    link_at("/proc/self/root", "magic");
    return true;
}

static void remove_tree(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", outside);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", outside);
}

static const struct {
    const char *path;
    int err;            /* 0: opens */
    const char *text;   /* what it reads, when it opens a file */
} cases[] = {
    {"top", 0, "top\n"},
    {"/top", 0, "top\n"},
    {"a/b/file", 0, "inside\n"},
    {"a/up_in", 0, "top\n"},
    {"dirlink/file", 0, "inside\n"},
    {"a/zigzag", 0, "top\n"},
    {"a/b/parent/b/file", 0, "inside\n"},
    {"a/./b/../b/file", 0, "inside\n"},
    {"abs_file", EXDEV, NULL},
    {"abs_dir/secret", EXDEV, NULL},
    {"rel_file", EXDEV, NULL},
    {"a/b/deep_out", EXDEV, NULL},
    {"../secret", EXDEV, NULL},
    {"a/../../secret", EXDEV, NULL},
    {"slash/tmp", EXDEV, NULL},
    {"loop1", ELOOP, NULL},
    {"magic/etc/passwd", EXDEV, NULL}, /* absolute in the fallback; a magic link for openat2 */
    {"nothing", ENOENT, NULL},
    {"top/child", ENOTDIR, NULL},
};

static bool run_cases(bool fallback)
{
    beneath_force_fallback(fallback);
    int dirfd = open(root, O_RDONLY | O_DIRECTORY);
    bool ok = dirfd >= 0;
    for (size_t i = 0; ok && i < sizeof cases / sizeof cases[0]; i++) {
        errno = 0;
        int fd = beneath_open(dirfd, cases[i].path, O_RDONLY);
        int err = fd < 0 ? errno : 0;
        bool want_err = cases[i].err != 0;
        /* openat2 calls a magic link ELOOP; the fallback sees an absolute link: EXDEV. */
        bool same = err == cases[i].err ||
                    (strcmp(cases[i].path, "magic/etc/passwd") == 0 && err == ELOOP);
        if (!same) {
            fprintf(stderr, "  %s (%s): errno %d, expected %d\n", cases[i].path,
                    fallback ? "fallback" : "openat2", err, cases[i].err);
            ok = false;
        }
        if (fd >= 0 && !want_err && cases[i].text) {
            char buf[64] = {0};
            ssize_t n = read(fd, buf, sizeof buf - 1);
            if (n < 0 || strcmp(buf, cases[i].text) != 0) {
                fprintf(stderr, "  %s: read '%s'\n", cases[i].path, buf);
                ok = false;
            }
        }
        if (fd >= 0)
            close(fd);
    }
    if (dirfd >= 0)
        close(dirfd);
    beneath_force_fallback(false);
    return ok;
}

TEST(beneath_openat2_keeps_inside_the_root)
{
    CHECK(make_tree());
    bool ok = run_cases(false);
    remove_tree();
    CHECK(ok);
}

TEST(beneath_fallback_keeps_inside_the_root)
{
    CHECK(make_tree());
    bool ok = run_cases(true);
    remove_tree();
    CHECK(ok);
}

static bool reader_refuses_links_out(bool fallback)
{
    beneath_force_fallback(fallback);
    struct fact_reader r;
    snprintf(r.root, sizeof r.root, "%s", root);
    struct fact f = {0};
    bool ok = true;
    static const char *const out[] = {"abs_file", "rel_file", "a/b/deep_out", "abs_dir/secret"};
    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
        fact_read(&r, out[i], 4096, false, &f);
        ok = ok && f.status == FACT_UNREADABLE && strstr(f.why, "leads out of the root") &&
             !f.text;
    }
    fact_read(&r, "a/up_in", 4096, false, &f);
    ok = ok && f.status == FACT_OK && strcmp(f.text, "top\n") == 0;
    fact_read(&r, "nothing", 4096, false, &f);
    ok = ok && f.status == FACT_MISSING;
    fact_free(&f);
    beneath_force_fallback(false);
    return ok;
}

TEST(fact_reader_never_reads_through_a_link_out)
{
    CHECK(make_tree());
    bool ok = reader_refuses_links_out(false) && reader_refuses_links_out(true);
    remove_tree();
    CHECK(ok);
}
