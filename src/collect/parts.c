/* SPDX-License-Identifier: MIT */
/* The table of parts collect runs, in order: the cheap descriptions first, so that a
 * machine that fails later still yields its facts and diagnosis. */
#include "collect/parts.h"

#include <stdio.h>
#include <string.h>

static int bench_options(const struct collect_config *cfg, char **argv, int argc, char *buf,
                         size_t buflen)
{
    (void)buf;
    (void)buflen;
    if (cfg->quick)
        argv[argc++] = "--quick";
    return argc;
}

static int warp_options(const struct collect_config *cfg, char **argv, int argc, char *buf,
                        size_t buflen)
{
    snprintf(buf, buflen, "%g", cfg->warp_seconds);
    argv[argc++] = "--seconds";
    argv[argc++] = buf;
    return argc;
}

/* ladder always runs --quick in a bundle: the ladder's shape, not its last percent. */
static int ladder_options(const struct collect_config *cfg, char **argv, int argc, char *buf,
                          size_t buflen)
{
    (void)cfg;
    (void)buf;
    (void)buflen;
    argv[argc++] = "--quick";
    return argc;
}

static int runtimes_options(const struct collect_config *cfg, char **argv, int argc, char *buf,
                            size_t buflen)
{
    (void)buf;
    (void)buflen;
    if (cfg->quick) {
        argv[argc++] = "--samples";
        argv[argc++] = "5";
    }
    return argc;
}

/* The built-in clock loop under perf: the path one clock_gettime() takes here, as the
 * samples see it (docs/profile.md); beside the doctor's proof of the same path. */
static int profile_options(const struct collect_config *cfg, char **argv, int argc, char *buf,
                           size_t buflen)
{
    argv[argc++] = "--clock-loop";
    argv[argc++] = "--seconds";
    argv[argc++] = cfg->quick ? "1" : "2";
    (void)buf;
    (void)buflen;
    return argc;
}

const struct part collect_parts[] = {
    {"facts", "what the doctor reads", 60, NULL},
    {"doctor", "diagnosis and proof", 120, NULL},
    {"bench", "the cost of every way of reading the time", 180, bench_options},
    {"warp", "time going backwards between CPUs", 60, warp_options},
    {"ladder", "kernel crossings and cross-CPU handoffs, side by side", 60, ladder_options},
    /* generous: the first run builds the Go, Java and Rust probes */
    {"runtimes", "the clock APIs of Python, Go, Java, Node, Rust", 600, runtimes_options},
    {"profile", "where a clock_gettime() loop's time goes (perf)", 120, profile_options},
};
const size_t collect_nparts = sizeof collect_parts / sizeof collect_parts[0];

/* Parts that run only when --parts names them. */
static const char *const on_request[] = {"profile"};

bool part_on_request(const struct part *p)
{
    for (size_t i = 0; i < sizeof on_request / sizeof on_request[0]; i++)
        if (strcmp(p->name, on_request[i]) == 0)
            return true;
    return false;
}

const struct part *part_find(const char *name)
{
    for (size_t i = 0; i < collect_nparts; i++)
        if (strcmp(collect_parts[i].name, name) == 0)
            return &collect_parts[i];
    return NULL;
}

void part_argv(const struct part *p, const struct collect_config *cfg, const char *program,
               char **argv, char *buf, size_t buflen)
{
    int argc = 0;
    argv[argc++] = (char *)program;
    argv[argc++] = (char *)p->name;
    argv[argc++] = "--json";
    if (p->options)
        argc = p->options(cfg, argv, argc, buf, buflen);
    argv[argc] = NULL;
}
