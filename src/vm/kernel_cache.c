/* SPDX-License-Identifier: MIT */
/* Fetches a default kernel with `apt-get download` under a private APT configuration:
 * its own sources.list, lists, archives and an empty dpkg status, all inside the cache,
 * and the architecture given per call (APT::Architecture).  The host's APT sources, its
 * dpkg architectures and its package state are never touched.  Packages are verified
 * against the Debian archive keyring, as for any apt download.
 *
 * Layout: <cache>/kernels/<arch>/vmlinuz and .../package (the description), and
 * <cache>/apt/<debian arch>-<suite>/ for APT's state.  A lock file serialises fetches of
 * one arch; the image is renamed into place, so a reader sees all of it or nothing. */
#include "vm/kernel_cache.h"
#include "common/environment.h"
#include "common/message.h"
#include "vm/kernel_image.h"
#include "common/subprocess.h"
#include "vm/vm_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"
#define MIRROR "http://deb.debian.org/debian"
#define FETCH_ATTEMPTS 3
#define PATH_MAX_LEN 4096

bool kernel_cache_dir(char *out, size_t len)
{
    const char *v = getenv(ENV_CACHE_DIR);
    int n;
    if (v && *v)
        n = snprintf(out, len, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && *v)
        n = snprintf(out, len, "%s/clockscope", v);
    else if ((v = getenv("HOME")) && *v)
        n = snprintf(out, len, "%s/.cache/clockscope", v);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

/* mkdir -p */
static bool make_dirs(const char *path)
{
    char buf[PATH_MAX_LEN];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static bool read_text(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return n > 0;
}

/* rm -r of the temporary extraction directory (only regular files and directories). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[PATH_MAX_LEN];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

/* The first file in dir whose name starts with prefix (and, if given, ends with suffix). */
static bool find_file(const char *dir, const char *prefix, const char *suffix, char *out,
                      size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name), s = suffix ? strlen(suffix) : 0;
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
            (!suffix || (n >= s && strcmp(e->d_name + n - s, suffix) == 0))) {
            snprintf(out, len, "%s/%s", dir, e->d_name);
            found = true;
        }
    }
    closedir(d);
    return found;
}

#define APT_OPTS 14

struct apt {
    char dir[PATH_MAX_LEN];
    char opts[APT_OPTS][PATH_MAX_LEN + 64];
};

static void apt_setup(struct apt *a, const struct vm_arch *arch, const char *cache)
{
    snprintf(a->dir, sizeof a->dir, "%s/apt/%s-%s", cache, arch->desc->debian, arch->debian_suite);
    const char *in_dir[] = {
        "Dir::Etc::SourceList=%s/sources.list", "Dir::Etc::SourceParts=%s/parts",
        "Dir::Etc::Preferences=%s/preferences", "Dir::Etc::PreferencesParts=%s/parts",
        "Dir::State::Lists=%s/lists", "Dir::Cache=%s/cache",
        "Dir::Cache::archives=%s/archives", "Dir::State::status=%s/status",
        "Dir::Etc::TrustedParts=%s/parts",
    };
    int n = 0;
    for (size_t i = 0; i < sizeof in_dir / sizeof in_dir[0]; i++)
        snprintf(a->opts[n++], sizeof a->opts[0], in_dir[i], a->dir);
    snprintf(a->opts[n++], sizeof a->opts[0], "Dir::Etc::Trusted=%s", KEYRING);
    snprintf(a->opts[n++], sizeof a->opts[0], "APT::Architecture=%s", arch->desc->debian);
    snprintf(a->opts[n++], sizeof a->opts[0], "APT::Architectures=%s", arch->desc->debian);
    snprintf(a->opts[n++], sizeof a->opts[0], "Acquire::Retries=3");
    snprintf(a->opts[n++], sizeof a->opts[0], "Debug::NoLocking=1");
}

/* Runs `program -q -o OPT... words...`. */
static int apt_run(struct apt *a, const char *program, char **words, const char *cwd, char *out,
                   size_t outlen)
{
    char *argv[2 + 2 * APT_OPTS + 8];
    int n = 0;
    argv[n++] = (char *)program;
    argv[n++] = "-q";
    for (int i = 0; i < APT_OPTS; i++) {
        argv[n++] = "-o";
        argv[n++] = a->opts[i];
    }
    for (; *words && n < (int)(sizeof argv / sizeof argv[0]) - 1; words++)
        argv[n++] = *words;
    argv[n] = NULL;
    return subprocess_run_tool(argv, cwd, -1, out, outlen);
}

/* The kernel image out of the downloaded package, checked, moved to kdir/vmlinuz with a
 * kdir/package description; the package file is removed once the image is kept. */
static bool extract_image(const struct vm_arch *arch, const char *kdir, const char *pkg,
                          char *deb, char *why, size_t whylen)
{
    /* Only the image: the package also holds hundreds of MB of modules. */
    char tmp[PATH_MAX_LEN + 16];
    snprintf(tmp, sizeof tmp, "%s/extract.XXXXXX", kdir);
    if (!mkdtemp(tmp)) {
        snprintf(why, whylen, "cannot create a directory in %s: %s", kdir, strerror(errno));
        return false;
    }
    char *left[] = {"dpkg-deb", "--fsys-tarfile", deb, NULL};
    char *right[] = {"tar", "-x", "--wildcards", "./boot/vmlinu*", NULL};
    char err[MSG_PARAGRAPH];
    bool ok = false;
    char image[PATH_MAX_LEN + 300], boot_path[PATH_MAX_LEN + 300], gz_tmp[PATH_MAX_LEN];
    char boot_dir[PATH_MAX_LEN + 32];
    snprintf(boot_dir, sizeof boot_dir, "%s/boot", tmp);
    if (subprocess_pipe(left, right, tmp, err, sizeof err) != 0)
        snprintf(why, whylen, "cannot extract the kernel from %s: %s", deb, err);
    else if (!find_file(boot_dir, "vmlinu", NULL, image, sizeof image))
        snprintf(why, whylen, "%s holds no /boot/vmlinuz or /boot/vmlinux", deb);
    else if (!kernel_image_check(arch, image, boot_path, sizeof boot_path, gz_tmp, sizeof gz_tmp,
                                 why, whylen))
        ;
    else {
        char final[PATH_MAX_LEN + 16], desc[512], ver[128] = "";
        const char *v = strstr(deb, "_");
        if (v)
            sscanf(v + 1, "%127[^_]", ver);
        snprintf(final, sizeof final, "%s/vmlinuz", kdir);
        if (rename(boot_path, final) != 0) {
            snprintf(why, whylen, "cannot move the kernel to %s: %s", final, strerror(errno));
        } else {
            snprintf(desc, sizeof desc, "%s %s, Debian %s\n", pkg, ver, arch->debian_suite);
            snprintf(final, sizeof final, "%s/package", kdir);
            ok = write_text(final, desc);
            if (!ok)
                snprintf(why, whylen, "cannot write %s", final);
        }
    }
    if (*gz_tmp)
        unlink(gz_tmp);
    remove_tree(tmp);
    if (ok)
        unlink(deb); /* the image is what is kept; the package is 60-110 MB */
    return ok;
}

/* The host tools and the Debian keyring a fetch needs; false (why) when one is missing. */
static bool fetch_tools_ready(const struct vm_arch *arch, char *why, size_t whylen)
{
    const char *tools[] = {"apt-get", "apt-cache", "dpkg-deb", "tar"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (!subprocess_on_path(tools[i])) {
            snprintf(why, whylen, "cannot fetch the default %s kernel: '%s' is not installed "
                              "(install with: apt-get install apt dpkg tar "
                              "debian-archive-keyring), or pass --kernel IMAGE",
                     arch->name, tools[i]);
            return false;
        }
    if (access(KEYRING, R_OK) != 0) {
        snprintf(why, whylen, "cannot fetch the default %s kernel: no Debian archive keyring at "
                          KEYRING " (install with: apt-get install debian-archive-keyring), "
                          "or pass --kernel IMAGE", arch->name);
        return false;
    }
    return true;
}

/* The private APT tree for arch under cache: its directories, an empty status and the one
 * source; false (why) when one cannot be made (a full disk: apt would fail later, less
 * clearly). */
static bool apt_prepare(struct apt *a, const struct vm_arch *arch, const char *cache,
                        char *why, size_t whylen)
{
    apt_setup(a, arch, cache);
    char p[PATH_MAX_LEN + 32], line[512];
    const char *subdirs[] = {"lists/partial", "archives/partial", "cache", "parts"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", a->dir, subdirs[i]);
        if (!make_dirs(p)) {
            snprintf(why, whylen, "cannot create %s: %s", p, strerror(errno));
            return false;
        }
    }
    snprintf(line, sizeof line, "deb [arch=%s signed-by=" KEYRING "] " MIRROR " %s main\n",
             arch->desc->debian, arch->debian_suite);
    const char *names[] = {"status", "sources.list"}, *texts[] = {"", line};
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", a->dir, names[i]);
        if (!write_text(p, texts[i])) {
            snprintf(why, whylen, "cannot write %s: %s", p, strerror(errno));
            return false;
        }
    }
    return true;
}

/* `apt-get words...` in cwd, tried up to FETCH_ATTEMPTS times (a failed attempt said as
 * "WHAT failed"); the last attempt's status, its output in out. */
static int apt_get_retried(struct apt *a, char **words, const char *cwd, char *out,
                           size_t outlen, const char *what)
{
    int st = -1;
    for (int attempt = 1; attempt <= FETCH_ATTEMPTS && st != 0; attempt++) {
        st = apt_run(a, "apt-get", words, cwd, out, outlen);
        if (st != 0 && attempt < FETCH_ATTEMPTS) {
            vm_note("%s failed (attempt %d of %d), retrying", what,
                    attempt, FETCH_ATTEMPTS);
            sleep((unsigned)(2 * attempt));
        }
    }
    return st;
}

/* Debian's kernel package for arch, fetched through the private APT tree under cache, its
 * image kept in kdir; false (why) when it cannot be had. */
static bool fetch(const struct vm_arch *arch, const char *cache, const char *kdir, char *why,
                  size_t whylen)
{
    struct apt a;
    if (!fetch_tools_ready(arch, why, whylen) || !apt_prepare(&a, arch, cache, why, whylen))
        return false;
    static char out[16384];
    char meta[64];
    snprintf(meta, sizeof meta, "linux-image-%s", arch->desc->debian);
    vm_note("fetching the default %s kernel (%s from Debian %s) into "
                    "%s (once)", arch->name, meta, arch->debian_suite, kdir);
    char *update[] = {"update", NULL};
    if (apt_get_retried(&a, update, NULL, out, sizeof out, "apt-get update") != 0) {
        snprintf(why, whylen, "cannot fetch the package lists of Debian %s (%s) from " MIRROR
                          ":\n%s\npass --kernel IMAGE to boot a kernel of your own",
                 arch->debian_suite, arch->desc->debian, out);
        return false;
    }
    /* The meta package depends on the versioned image package; download that one. */
    char *show[] = {"show", meta, NULL};
    if (apt_run(&a, "apt-cache", show, NULL, out, sizeof out) != 0) {
        snprintf(why, whylen, "apt-cache show %s failed: %s", meta, out);
        return false;
    }
    char pkg[128] = "";
    const char *dep = strstr(out, "\nDepends: linux-image-");
    if (dep)
        sscanf(dep, "\nDepends: %127[^ ,\n]", pkg);
    if (!*pkg) {
        snprintf(why, whylen, "%s in Debian %s names no linux-image package to download", meta,
                 arch->debian_suite);
        return false;
    }
    char archives[PATH_MAX_LEN + 16], deb[PATH_MAX_LEN + 300];
    snprintf(archives, sizeof archives, "%s/archives", a.dir);
    char prefix[160], what[MSG_LINE];
    snprintf(prefix, sizeof prefix, "%s_", pkg);
    snprintf(what, sizeof what, "downloading %s", pkg);
    char *download[] = {"download", pkg, NULL};
    int st = find_file(archives, prefix, ".deb", deb, sizeof deb) ? 0
             : apt_get_retried(&a, download, archives, out, sizeof out, what);
    if (st != 0 || !find_file(archives, prefix, ".deb", deb, sizeof deb)) {
        snprintf(why, whylen, "cannot download %s from Debian %s:\n%s", pkg, arch->debian_suite, out);
        return false;
    }
    return extract_image(arch, kdir, pkg, deb, why, whylen);
}

bool kernel_default(const struct vm_arch *arch, char *path, size_t path_len, char *desc,
                    size_t desc_len, char *why, size_t whylen)
{
    char cache[PATH_MAX_LEN - 64], kdir[PATH_MAX_LEN], p[PATH_MAX_LEN + 16];
    if (!kernel_cache_dir(cache, sizeof cache)) {
        snprintf(why, whylen, "no cache directory: set CLOCKSCOPE_CACHE_DIR or HOME, or pass "
                               "--kernel IMAGE");
        return false;
    }
    snprintf(kdir, sizeof kdir, "%s/kernels/%s", cache, arch->name);
    if (!make_dirs(kdir)) {
        snprintf(why, whylen, "cannot create %s: %s", kdir, strerror(errno));
        return false;
    }
    snprintf(p, sizeof p, "%s/.lock", kdir);
    int lock = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock >= 0)
        flock(lock, LOCK_EX);
    snprintf(path, path_len, "%s/vmlinuz", kdir);
    snprintf(p, sizeof p, "%s/package", kdir);
    bool ok = true;
    if (access(path, R_OK) != 0 || !read_text(p, desc, desc_len)) {
        ok = fetch(arch, cache, kdir, why, whylen) && read_text(p, desc, desc_len);
    }
    if (lock >= 0)
        close(lock);
    return ok;
}
