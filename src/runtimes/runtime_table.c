/* SPDX-License-Identifier: MIT */
/* The runtimes: where each is found, how its probe is built (once, cached) and run. */
#include "runtimes/runtimes.h"
#include "common/environment.h"
#include "common/message.h"

#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_TIMEOUT_MS 600000

/* The first of names found on PATH, then in the fixed places (NULL-terminated). */
static bool find_tool(const char *const *names, const char *const *places, char *out, size_t len)
{
    for (int i = 0; names[i]; i++)
        if (subprocess_find_program(names[i], out, len) == 0)
            return true;
    for (int i = 0; places && places[i]; i++) {
        const char *home = getenv("HOME");
        if (places[i][0] == '~' && (!home || !*home))
            continue;
        snprintf(out, len, "%s%s", places[i][0] == '~' ? home : "", places[i] + (places[i][0] == '~'));
        if (access(out, X_OK) == 0)
            return true;
    }
    return false;
}

static bool probe_source(const struct runtimes_config *cfg, const char *file, char *out, size_t len,
                         char *why, size_t whylen)
{
    if (!cfg->probes_dir[0]) {
        snprintf(why, whylen, "the probe sources are not found (set CLOCKSCOPE_PROBES, or "
                              "`make install`)");
        return false;
    }
    if ((size_t)snprintf(out, len, "%s/%s", cfg->probes_dir, file) >= len ||
        access(out, R_OK) != 0) {
        snprintf(why, whylen, "the probe source %s/%s is not readable", cfg->probes_dir, file);
        return false;
    }
    return true;
}

/* FNV-1a over the probe source's bytes and the toolchain's identity: the cache key. */
static uint64_t build_key(const char *source, const char *identity)
{
    uint64_t h = 1469598103934665603ull;
    int fd = open(source, O_RDONLY | O_CLOEXEC);
    char buf[4096];
    ssize_t n;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
    if (fd >= 0)
        close(fd);
    for (const char *p = identity; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* A toolchain's identity for the key: its path, size and mtime (a new install rebuilds). */
static void tool_identity(const char *tool, const char *extra, char *out, size_t len)
{
    struct stat st;
    if (stat(tool, &st) != 0)
        memset(&st, 0, sizeof st);
    snprintf(out, len, "%s:%lld:%lld:%s", tool, (long long)st.st_size,
             (long long)st.st_mtime, extra ? extra : "");
}

/* Runs a build (argv) with one environment variable set; false: why has its stderr tail. */
static bool run_build(char *const argv[], const char *env_name, const char *env_value,
                      char *why, size_t whylen)
{
    char *old = env_name && getenv(env_name) ? strdup(getenv(env_name)) : NULL;
    if (env_name)
        setenv(env_name, env_value, 1);
    char *out = NULL, err[MSG_REASON] = "", start_why[MSG_LINE] = "";
    size_t len;
    struct run_outcome oc;
    bool started = run_capture_all(argv, BUILD_TIMEOUT_MS, 4096, &out, &len, err, sizeof err, &oc,
                                   start_why, sizeof start_why);
    if (env_name) {
        if (old)
            setenv(env_name, old, 1);
        else
            unsetenv(env_name);
    }
    free(old);
    free(out);
    if (!started)
        snprintf(why, whylen, "could not build the probe: %s", start_why);
    else if (oc.timed_out)
        snprintf(why, whylen, "building the probe took over %d s (killed)", BUILD_TIMEOUT_MS / 1000);
    else if (oc.exit_status != 0)
        snprintf(why, whylen, "building the probe failed (%s exit status %d): %s", argv[0],
                 oc.exit_status, err);
    else
        return true;
    return false;
}

/* The cached build of `source` under key, made by build(dir) when missing: the result's
 * directory in out.  The build goes to a private directory renamed into place, so a
 * half-built probe is never taken and two runs at once do not collide. */
static bool cached_build(const struct runtimes_config *cfg, const char *name, uint64_t key,
                         bool (*build)(const char *dir, const void *ctx, char *why, size_t whylen),
                         const void *ctx, char *out, size_t len, char *why, size_t whylen)
{
    if (!cfg->cache_dir[0]) {
        snprintf(why, whylen, "no cache directory to build the probe in (%s)",
                 cfg->cache_why[0] ? cfg->cache_why : "none found");
        return false;
    }
    if ((size_t)snprintf(out, len, "%s/%s-%016llx", cfg->cache_dir, name,
                         (unsigned long long)key) >= len) {
        snprintf(why, whylen, "the cache directory's path is too long");
        return false;
    }
    struct stat st;
    if (lstat(out, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid());
    if (mkdir(tmp, 0700) != 0) {
        snprintf(why, whylen, "cannot create %s: %s", tmp, strerror(errno));
        return false;
    }
    if (!build(tmp, ctx, why, whylen)) {
        char *rm[] = {"rm", "-rf", "--", tmp, NULL};
        char e[64];
        subprocess_run_tool(rm, NULL, -1, e, sizeof e);
        return false;
    }
    if (rename(tmp, out) != 0) {
        char *rm[] = {"rm", "-rf", "--", tmp, NULL};
        char e[64];
        subprocess_run_tool(rm, NULL, -1, e, sizeof e);
        if (!(lstat(out, &st) == 0 && S_ISDIR(st.st_mode))) {
            snprintf(why, whylen, "cannot rename into %s: %s", out, strerror(errno));
            return false;
        }
    }
    return true;
}

/* ---- Python ---- */
static enum runtime_state prepare_python(const struct runtimes_config *cfg, struct probe_cmd *c,
                                         char *why, size_t whylen)
{
    const char *names[] = {cfg->python ? cfg->python : "python3", NULL};
    if (!find_tool(names, NULL, c->path[0], sizeof c->path[0])) {
        snprintf(why, whylen, "%s not found%s", names[0], cfg->python ? "" : " on PATH");
        return RT_ABSENT;
    }
    if (!probe_source(cfg, "probe.py", c->path[1], sizeof c->path[1], why, whylen))
        return RT_FAILED;
    c->argv[0] = c->path[0];
    c->argv[1] = "-E"; /* no PYTHON* variables: the probe is the same everywhere */
    c->argv[2] = c->path[1];
    c->argc = 3;
    return RT_READY;
}

/* ---- Go ---- */
struct go_ctx { const char *go, *source; };

static bool build_go(const char *dir, const void *ctx, char *why, size_t whylen)
{
    const struct go_ctx *g = ctx;
    char out[PATH_MAX + 8];
    snprintf(out, sizeof out, "%s/probe", dir);
    char *argv[] = {(char *)g->go, "build", "-o", out, (char *)g->source, NULL};
    /* CGO_ENABLED=0: a static probe, the same one that runs inside `clockscope vm`. */
    return run_build(argv, "CGO_ENABLED", "0", why, whylen);
}

static enum runtime_state prepare_go(const struct runtimes_config *cfg, struct probe_cmd *c,
                                     char *why, size_t whylen)
{
    if (cfg->go_probe) {
        if (access(cfg->go_probe, X_OK) != 0) {
            snprintf(why, whylen, "--go-probe %s: %s", cfg->go_probe, strerror(errno));
            return RT_FAILED;
        }
        snprintf(c->path[0], sizeof c->path[0], "%s", cfg->go_probe);
    } else {
        const char *names[] = {"go", NULL}, *places[] = {"/usr/local/go/bin/go", NULL};
        char go[PATH_MAX], src[PATH_MAX], id[PATH_MAX + 64], dir[PATH_MAX];
        if (!find_tool(names, places, go, sizeof go)) {
            snprintf(why, whylen, "go not found (PATH, /usr/local/go/bin/go)");
            return RT_ABSENT;
        }
        if (!probe_source(cfg, "probe.go", src, sizeof src, why, whylen))
            return RT_FAILED;
        tool_identity(go, NULL, id, sizeof id);
        struct go_ctx g = {go, src};
        if (!cached_build(cfg, "go", build_key(src, id), build_go, &g, dir, sizeof dir, why, whylen))
            return RT_FAILED;
        if ((size_t)snprintf(c->path[0], sizeof c->path[0], "%s/probe", dir) >= sizeof c->path[0])
            return RT_FAILED;
    }
    c->argv[0] = c->path[0];
    c->argc = 1;
    return RT_READY;
}

/* ---- Java ---- */
struct java_ctx { const char *javac, *source; };

static bool build_java(const char *dir, const void *ctx, char *why, size_t whylen)
{
    const struct java_ctx *j = ctx;
    char *argv[] = {(char *)j->javac, "-d", (char *)dir, (char *)j->source, NULL};
    return run_build(argv, NULL, NULL, why, whylen);
}

static enum runtime_state prepare_java(const struct runtimes_config *cfg, struct probe_cmd *c,
                                       char *why, size_t whylen)
{
    char javac[PATH_MAX], src[PATH_MAX], id[PATH_MAX + 64];
    const char *names[] = {"javac", NULL};
    const char *home = getenv("JAVA_HOME");
    char jh[PATH_MAX] = "";
    if (home && *home)
        snprintf(jh, sizeof jh, "%s/bin/javac", home);
    const char *places[] = {jh, NULL};
    if (!find_tool(names, jh[0] ? places : NULL, javac, sizeof javac)) {
        snprintf(why, whylen, "javac not found (PATH, $JAVA_HOME/bin)");
        return RT_ABSENT;
    }
    /* java beside javac: the same JDK */
    snprintf(c->path[0], sizeof c->path[0], "%.*s/java", (int)(strrchr(javac, '/') - javac), javac);
    if (access(c->path[0], X_OK) != 0) {
        snprintf(why, whylen, "no java beside %s", javac);
        return RT_ABSENT;
    }
    if (!probe_source(cfg, "Probe.java", src, sizeof src, why, whylen))
        return RT_FAILED;
    tool_identity(javac, NULL, id, sizeof id);
    struct java_ctx j = {javac, src};
    if (!cached_build(cfg, "java", build_key(src, id), build_java, &j, c->path[1],
                      sizeof c->path[1], why, whylen))
        return RT_FAILED;
    c->argv[0] = c->path[0];
    c->argv[1] = "-Xshare:auto";
    c->argv[2] = "-cp";
    c->argv[3] = c->path[1];
    c->argv[4] = "Probe";
    c->argc = 5;
    return RT_READY;
}

/* ---- Node ---- */
static enum runtime_state prepare_node(const struct runtimes_config *cfg, struct probe_cmd *c,
                                       char *why, size_t whylen)
{
    const char *names[] = {"node", "nodejs", NULL};
    if (!find_tool(names, NULL, c->path[0], sizeof c->path[0])) {
        snprintf(why, whylen, "node not found on PATH (node, nodejs)");
        return RT_ABSENT;
    }
    if (!probe_source(cfg, "probe.js", c->path[1], sizeof c->path[1], why, whylen))
        return RT_FAILED;
    c->argv[0] = c->path[0];
    c->argv[1] = c->path[1];
    c->argc = 2;
    return RT_READY;
}

/* ---- Rust ---- */
struct rust_ctx { const char *rustc, *source, *version; };

static bool build_rust(const char *dir, const void *ctx, char *why, size_t whylen)
{
    const struct rust_ctx *r = ctx;
    char out[PATH_MAX + 8];
    snprintf(out, sizeof out, "%s/probe", dir);
    char *argv[] = {(char *)r->rustc, "-O", "-o", out, (char *)r->source, NULL};
    /* the probe names rustc's version: it cannot ask at run time */
    return run_build(argv, ENV_RUSTC, r->version, why, whylen);
}

static enum runtime_state prepare_rust(const struct runtimes_config *cfg, struct probe_cmd *c,
                                       char *why, size_t whylen)
{
    const char *names[] = {"rustc", NULL}, *places[] = {"~/.cargo/bin/rustc", NULL};
    char rustc[PATH_MAX], src[PATH_MAX], id[PATH_MAX + 128], dir[PATH_MAX];
    if (!find_tool(names, places, rustc, sizeof rustc)) {
        snprintf(why, whylen, "rustc not found (PATH, ~/.cargo/bin)");
        return RT_ABSENT;
    }
    if (!probe_source(cfg, "probe.rs", src, sizeof src, why, whylen))
        return RT_FAILED;
    /* "rustc 1.95.0 (59807616e 2026-04-14)": rustup's proxy is the same file for every
     * toolchain, so the version is part of the key. */
    char *argv[] = {rustc, "--version", NULL}, *out = NULL, vwhy[200], version[64] = "unknown";
    size_t len;
    if (subprocess_capture(argv, 60000, 256, &out, &len, vwhy, sizeof vwhy) &&
        sscanf(out, "rustc %63[0-9A-Za-z.-]", version) != 1)
        snprintf(version, sizeof version, "unknown");
    free(out);
    tool_identity(rustc, version, id, sizeof id);
    struct rust_ctx r = {rustc, src, version};
    if (!cached_build(cfg, "rust", build_key(src, id), build_rust, &r, dir, sizeof dir, why, whylen))
        return RT_FAILED;
    if ((size_t)snprintf(c->path[0], sizeof c->path[0], "%s/probe", dir) >= sizeof c->path[0])
        return RT_FAILED;
    c->argv[0] = c->path[0];
    c->argc = 1;
    return RT_READY;
}

/* ---- C: this binary ---- */
static enum runtime_state prepare_c(const struct runtimes_config *cfg, struct probe_cmd *c,
                                    char *why, size_t whylen)
{
    (void)cfg;
    ssize_t n = readlink("/proc/self/exe", c->path[0], sizeof c->path[0] - 1);
    if (n <= 0) {
        snprintf(why, whylen, "cannot find this binary (/proc/self/exe: %s)", strerror(errno));
        return RT_FAILED;
    }
    c->path[0][n] = 0;
    c->argv[0] = c->path[0];
    c->argv[1] = "runtimes";
    c->argc = 2;
    snprintf(c->env_name, sizeof c->env_name, "%s", ENV_RUNTIMES_PROBE);
    snprintf(c->env_value, sizeof c->env_value, "c");
    return RT_READY;
}

const struct runtime_def runtime_defs[] = {
    {"c", "built in", prepare_c, 0.5},
    {"python", "apt install python3", prepare_python, 6},
    {"go", "apt install golang-go (or https://go.dev/dl to /usr/local/go)", prepare_go, 0.4},
    {"java", "apt install default-jdk-headless", prepare_java, 1.5},
    {"node", "apt install nodejs", prepare_node, 1.5},
    {"rust", "apt install rustc (or rustup)", prepare_rust, 0.4},
};
const size_t runtime_ndefs = sizeof runtime_defs / sizeof runtime_defs[0];

const struct runtime_def *runtime_find(const char *name)
{
    for (size_t i = 0; i < runtime_ndefs; i++)
        if (strcmp(runtime_defs[i].name, name) == 0)
            return &runtime_defs[i];
    return NULL;
}

/* A directory we own, made if missing: never a link, never someone else's. */
/* path as a directory of ours that we can write, made if missing; else why says what it is. */
static bool own_dir(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot create %s: %s", path, strerror(errno));
        return false;
    }
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "%s is not a directory", path);
        return false;
    }
    if (st.st_uid != geteuid()) {
        snprintf(why, whylen, "%s belongs to another user", path);
        return false;
    }
    if (access(path, W_OK | X_OK) != 0) {
        snprintf(why, whylen, "%s is not writable: %s", path, strerror(errno));
        return false;
    }
    return true;
}

void runtimes_locate(struct runtimes_config *cfg)
{
    cfg->probes_dir[0] = cfg->cache_dir[0] = cfg->cache_why[0] = 0;
    const char *env = getenv(ENV_PROBES);
    if (env && *env) {
        snprintf(cfg->probes_dir, sizeof cfg->probes_dir, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        char *slash = n > 0 ? (exe[n] = 0, strrchr(exe, '/')) : NULL;
        static const char *const relative[] = {"../runtimes/probes", "../../runtimes/probes",
                                               "../../../runtimes/probes",
                                               "../share/clockscope/probes"};
        for (size_t i = 0; slash && i < sizeof relative / sizeof relative[0]; i++) {
            char dir[PATH_MAX + 64], probe[PATH_MAX + 80];
            *slash = 0;
            snprintf(dir, sizeof dir, "%s/%s", exe, relative[i]);
            snprintf(probe, sizeof probe, "%s/probe.py", dir);
            if (access(probe, R_OK) == 0 && realpath(dir, cfg->probes_dir))
                break;
            cfg->probes_dir[0] = 0;
        }
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char base[PATH_MAX];
    if (xdg && xdg[0] == '/')
        snprintf(base, sizeof base, "%s", xdg);
    else if (home && home[0] == '/')
        snprintf(base, sizeof base, "%s/.cache", home);
    else {
        /* Said as it is: set but relative is not the same as unset. */
        snprintf(cfg->cache_why, sizeof cfg->cache_why, "%s", xdg && xdg[0]
                 ? "XDG_CACHE_HOME is not an absolute path and HOME is unset or not absolute"
                 : home && home[0] ? "HOME is not an absolute path and XDG_CACHE_HOME is unset"
                 : "HOME and XDG_CACHE_HOME unset");
        return;
    }
    char dir[PATH_MAX];
    const size_t wl = sizeof cfg->cache_why;
    if ((size_t)snprintf(dir, sizeof dir, "%s/clockscope", base) >= sizeof dir) {
        snprintf(cfg->cache_why, wl, "the cache directory's path is too long");
        return;
    }
    if (!own_dir(base, cfg->cache_why, wl) || !own_dir(dir, cfg->cache_why, wl))
        return;
    if ((size_t)snprintf(cfg->cache_dir, sizeof cfg->cache_dir, "%s/probes", dir) >=
            sizeof cfg->cache_dir ||
        !own_dir(cfg->cache_dir, cfg->cache_why, wl))
        cfg->cache_dir[0] = 0;
}
