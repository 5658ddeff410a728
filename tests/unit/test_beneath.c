/* SPDX-License-Identifier: MIT */
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

/* Differential test: random trees of directories, files and links (relative, absolute,
 * dangling, looping, climbing), random paths; the fallback must give what openat2 gives:
 * the same errno, or the same file (device and inode). */
static const char *const parts[] = {"d0", "d1", "f0", "l0", "l1", "l2", "l3", "..", ".", "nx"};

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

static void random_path(uint64_t *x, char *out, size_t len, bool allow_abs)
{
    size_t n = 1 + lcg(x) % (lcg(x) % 2 ? 2 : 5), used = 0; /* short ones often */
    out[0] = 0;
    if (allow_abs && lcg(x) % 8 == 0)
        used += (size_t)snprintf(out, len, "/");
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? "/" : "",
                                 parts[lcg(x) % (sizeof parts / sizeof parts[0])]);
    if (lcg(x) % 10 == 0 && used + 1 < len)
        strcat(out, "/");
}

/* Places d0, d1 (nested at random), f0 and the links l0..l3 in random directories. */
static void random_tree(uint64_t *x)
{
    char p[700], t[64];
    snprintf(p, sizeof p, "%s/d0", root), mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/d1", root, lcg(x) % 2 ? "d0" : "."), mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/f0", root, lcg(x) % 2 ? "d0" : "."), close(creat(p, 0644));
    for (int i = 0; i < 4; i++) {
        random_path(x, t, sizeof t, true);
        snprintf(p, sizeof p, "%s/%s/l%d", root, lcg(x) % 2 ? "d0" : ".", i);
        if (symlink(t, p) != 0)
            continue;
    }
}

TEST(beneath_fallback_agrees_with_openat2_on_random_trees)
{
    uint64_t x = 9;
    int compared = 0, opened = 0;
    for (int tree = 0; tree < 150; tree++) {
        CHECK(make_tree());
        random_tree(&x);
        int dirfd = open(root, O_RDONLY | O_DIRECTORY);
        CHECK(dirfd >= 0);
        for (int i = 0; i < 30; i++) {
            char path[128];
            random_path(&x, path, sizeof path, false);
            struct stat a, b;
            beneath_force_fallback(false);
            int fa = beneath_open(dirfd, path, O_RDONLY | O_NONBLOCK);
            int ea = fa < 0 ? errno : 0;
            beneath_force_fallback(true);
            int fb = beneath_open(dirfd, path, O_RDONLY | O_NONBLOCK);
            int eb = fb < 0 ? errno : 0;
            beneath_force_fallback(false);
            bool same = ea == eb;
            if (same && fa >= 0)
                same = fstat(fa, &a) == 0 && fstat(fb, &b) == 0 && a.st_dev == b.st_dev &&
                       a.st_ino == b.st_ino;
            if (!same)
                fprintf(stderr, "  tree %d path '%s': openat2 errno %d, fallback errno %d\n",
                        tree, path, ea, eb);
            if (fa >= 0)
                close(fa), opened++;
            if (fb >= 0)
                close(fb);
            compared++;
            if (!same) {
                close(dirfd);
                remove_tree();
                CHECK(same);
            }
        }
        close(dirfd);
        remove_tree();
    }
    CHECK(compared == 150 * 30 && opened > 100);
}
