/* SPDX-License-Identifier: MIT */
/* One runtime's measurement: its probe timed, then counted; the rows. */
#include "runtimes/runtimes.h"
#include "common/environment.h"
#include "common/message.h"

#include "common/stats.h"
#include "common/subprocess.h"
#include "runtimes/syscall_count.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OUTPUT_CAP (1u << 20)
#define HARNESS_BOUND_SHARE 0.8

static struct runtime_row *new_row(struct runtimes_result *res, const struct runtime_def *def)
{
    if (res->nrows == (int)(sizeof res->rows / sizeof res->rows[0]))
        return NULL;
    struct runtime_row *r = &res->rows[res->nrows++];
    memset(r, 0, sizeof *r);
    r->runtime = def->name;
    return r;
}

static void failed_row(struct runtimes_result *res, const struct runtime_def *def,
                       enum runtime_state state, const char *program, const char *why)
{
    struct runtime_row *r = new_row(res, def);
    if (!r)
        return;
    r->state = state;
    snprintf(r->program, sizeof r->program, "%s", program ? program : "");
    if (state == RT_ABSENT)
        snprintf(r->why, sizeof r->why, "%s: %s", why, def->how_to_get);
    else
        snprintf(r->why, sizeof r->why, "%s", why);
}

/* argv of the probe in a mode: the prefix, then the mode's arguments. */
static void mode_argv(const struct probe_cmd *cmd, char **argv, char args[3][24], bool timed,
                      const struct runtimes_config *cfg)
{
    int n = 0;
    for (int i = 0; i < cmd->argc; i++)
        argv[n++] = cmd->argv[i];
    if (timed) {
        snprintf(args[0], 24, "time");
        snprintf(args[1], 24, "%d", cfg->samples);
        snprintf(args[2], 24, "%d", cfg->sample_us);
    } else {
        snprintf(args[0], 24, "count");
        snprintf(args[1], 24, "%d", RUNTIMES_COUNT_CALLS);
    }
    argv[n++] = args[0];
    argv[n++] = args[1];
    if (timed)
        argv[n++] = args[2];
    argv[n] = NULL;
}

/* How a run went wrong, in collect's words, or "" when it exited 0. */
static void run_failure(const struct run_outcome *oc, int timeout_ms, char *err,
                        char *why, size_t whylen)
{
    why[0] = 0;
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
        err[--n] = 0;
    for (char *p = err; *p; p++) /* one line: the tail of stderr may hold several */
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    if (oc->timed_out)
        snprintf(why, whylen, "the probe did not finish within %d s (killed)", timeout_ms / 1000);
    else if (oc->signal)
        snprintf(why, whylen, "the probe was killed by signal %d (%s)%s%s", oc->signal,
                 strsignal(oc->signal), err[0] ? ": " : "", err);
    else if (oc->exit_status != 0)
        snprintf(why, whylen, "the probe failed (exit status %d)%s%s", oc->exit_status,
                 err[0] ? ": " : "", err);
}

static double per_call(const uint64_t *v, int n, unsigned long long iters, struct summary *s)
{
    double d[PROBE_MAX_SAMPLES];
    for (int i = 0; i < n; i++)
        d[i] = (double)v[i] / (double)iters;
    stats_summarize(d, (size_t)n, s);
    return s->median;
}

/* Per call, the median of the paired differences (API sample i - harness sample i). */
static double paired_net(const struct probe_row *pr, struct summary *s)
{
    double d[PROBE_MAX_SAMPLES];
    for (int i = 0; i < pr->nsamples; i++)
        d[i] = ((double)pr->timed_ns[i] - (double)pr->harness_ns[i]) / (double)pr->iterations;
    stats_summarize(d, (size_t)pr->nsamples, s);
    return s->median;
}

/* Every process's pairs: the API's net per call, the reference timed around it, and the
 * API as timed, kept for the figure at the run's fastest speed. */
struct row_pairs {
    double net[ACROSS_MAX][PROBE_MAX_SAMPLES], ref[ACROSS_MAX][PROBE_MAX_SAMPLES],
        timed[ACROSS_MAX][PROBE_MAX_SAMPLES];
    size_t n[ACROSS_MAX];
};

/* The row's name, clock, path and harness, as the first process gave them. */
static void row_identity(struct runtime_row *r, const struct probe_output *po,
                         const struct probe_row *first, const char *program)
{
    r->state = RT_READY;
    snprintf(r->version, sizeof r->version, "%s", po->version);
    snprintf(r->program, sizeof r->program, "%s", program);
    memcpy(r->api, first->api, sizeof r->api);
    memcpy(r->clock, first->clock, sizeof r->clock);
    memcpy(r->via, first->via, sizeof r->via);
    memcpy(r->harness, first->harness, sizeof r->harness);
    r->iterations = first->iterations;
}

/* Process r->nproc's pairs (pr) into pairs, and its reference level and ratio into r. */
static void take_reference_pairs(struct runtime_row *r, const struct probe_row *pr,
                                 struct row_pairs *pairs)
{
    /* pair i: the API's net and the reference timed around it */
    double *net_i = pairs->net[r->nproc], *ref_i = pairs->ref[r->nproc];
    double sorted[PROBE_MAX_SAMPLES];
    for (int i = 0; i < pr->nsamples; i++) {
        net_i[i] = ((double)pr->timed_ns[i] - (double)pr->harness_ns[i]) /
                   (double)pr->iterations;
        pairs->timed[r->nproc][i] = (double)pr->timed_ns[i] / (double)pr->iterations;
        ref_i[i] = sorted[i] = (double)pr->ref_ns[i] / (double)pr->ref_iterations;
    }
    pairs->n[r->nproc] = (size_t)pr->nsamples;
    struct summary rs;
    stats_summarize(sorted, (size_t)pr->nsamples, &rs);
    r->proc_ref_ns[r->nproc] = rs.median;
    r->proc_rel[r->nproc] = reference_ratio(net_i, ref_i, (size_t)pr->nsamples);
    snprintf(r->ref, sizeof r->ref, "%s", pr->ref);
}

/* The machine's speed moved during the run (the reference says so): a pair timed in a
 * slow spell is slow in everything it times, the call and its harness alike, so its
 * figure is the spell's (measure/reference.h).  The figure is then the median over
 * the processes at the run's fastest speed, each from its pairs at speed; the others
 * stay in the JSON, marked. */
static void figure_at_speed(struct runtime_row *r, const struct row_pairs *pairs)
{
    if (!(r->has_ref && r->refv.moved)) {
        for (int p = 0; p < r->nproc; p++)
            r->proc_at_speed[p] = r->has_ref;
        return;
    }
    const double *fig[ACROSS_MAX], *ref[ACROSS_MAX], *tim[ACROSS_MAX];
    for (int p = 0; p < r->nproc; p++)
        fig[p] = pairs->net[p], ref[p] = pairs->ref[p], tim[p] = pairs->timed[p];
    double at_net, at_timed;
    bool ignored[ACROSS_MAX];
    r->refv.at_speed = reference_figure_at_speed(fig, ref, pairs->n, (size_t)r->nproc,
                                                 r->refv.ref_min, REFERENCE_MOVED_RATIO,
                                                 r->proc_at_speed, &at_net);
    reference_figure_at_speed(tim, ref, pairs->n, (size_t)r->nproc, r->refv.ref_min,
                              REFERENCE_MOVED_RATIO, ignored, &at_timed);
    if (r->refv.at_speed > 0) {
        r->ns_per_call = at_net;
        r->timed_ns = at_timed;
        r->refv.figure_at_speed = true;
    }
}

/* One API over the processes: pr[p] is its row in process p's output (NULL: missing);
 * nproc of them ran, asked were asked for (the rest were added for speed). */
static void measured_row(struct runtimes_result *res, const struct runtime_def *def,
                         struct probe_output *const *po, int nproc, int asked, int k,
                         const unsigned *seeds, const char *program)
{
    struct runtime_row *r = new_row(res, def);
    if (!r)
        return;
    const struct probe_row *first = &po[0]->rows[k];
    row_identity(r, po[0], first, program);
    /* The clock's cost is taken pair by pair: each API sample minus the harness sample the
     * probe took right after it, then the median of those differences.  A slow spell that
     * lasts a pair cancels in it; the difference of the two medians would keep the whole of
     * it, and where the harness is most of the figure (the ctypes row: 1.3 us of harness
     * around a 30 ns clock) that swung the clock's figure from -80 to +90 ns run to run.
     * Each process gives its own figure so; the row's figure is the median over processes
     * (measure/across.c), and the harness reported is what was subtracted (as timed - net),
     * so the three figures add up. */
    static double pooled[ACROSS_MAX * PROBE_MAX_SAMPLES];
    static struct row_pairs pairs;
    memset(pairs.n, 0, sizeof pairs.n);
    size_t npooled = 0;
    double within[ACROSS_MAX];
    r->nproc = 0;
    /* A reference only when every process gave one: a ratio over some processes and a
     * level over all would not be the same run's. */
    r->has_ref = true;
    for (int p = 0; p < nproc && r->nproc < ACROSS_MAX; p++) {
        const struct probe_row *pr = NULL;
        for (int i = 0; i < po[p]->nrows && !pr; i++)
            if (strcmp(po[p]->rows[i].api, first->api) == 0)
                pr = &po[p]->rows[i];
        if (!pr)
            continue;
        struct summary t, net;
        r->proc_timed_ns[r->nproc] = per_call(pr->timed_ns, pr->nsamples, pr->iterations, &t);
        r->proc_ns[r->nproc] = paired_net(pr, &net);
        r->proc_seed[r->nproc] = seeds[p];
        within[r->nproc] = t.spread;
        for (int i = 0; i < pr->nsamples; i++)
            pooled[npooled++] = ((double)pr->timed_ns[i] - (double)pr->harness_ns[i]) /
                                (double)pr->iterations;
        r->nsamples += pr->nsamples;
        if (pr->has_ref && r->has_ref)
            take_reference_pairs(r, pr, &pairs);
        else
            r->has_ref = false;
        r->nproc++;
    }
    r->has_ref = r->has_ref && r->nproc > 0;
    reference_summarize(r->proc_ref_ns, r->proc_rel, r->has_ref ? (size_t)r->nproc : 0,
                        REFERENCE_MOVED_RATIO, &r->refv);
    r->refv.added = r->has_ref && nproc > asked ? (size_t)(nproc - asked) : 0;
    across_summarize(r->proc_ns, (size_t)r->nproc, &r->across);
    struct across timed;
    across_summarize(r->proc_timed_ns, (size_t)r->nproc, &timed);
    struct summary net, w;
    stats_summarize(pooled, npooled, &net);
    stats_summarize(within, (size_t)r->nproc, &w);
    r->ns_per_call = r->across.median;
    r->timed_ns = timed.median;
    figure_at_speed(r, &pairs);
    r->harness_ns = r->timed_ns - r->ns_per_call;
    r->p10_ns = net.p10;
    r->p90_ns = net.p90;
    /* The spread of the timed figures: across processes, or within them where larger. */
    r->spread = r->nproc > 1 && timed.spread > w.median ? timed.spread : w.median;
    r->noisy = !(r->spread <= RUNTIMES_NOISY_SPREAD);
    r->harness_bound = r->harness_ns >= HARNESS_BOUND_SHARE * r->timed_ns;
    snprintf(r->count_why, sizeof r->count_why, "%s",
             res->count_why[0] ? res->count_why : "not counted");
}

/* The count run: syscalls per call of each API, into the rows of this runtime. */
static void count_rows(const struct runtime_def *def, const struct probe_cmd *cmd,
                       const struct runtimes_config *cfg, struct runtimes_result *res, int first)
{
    char *argv[16], args[3][24], why[MSG_REASON] = "";
    mode_argv(cmd, argv, args, false, cfg);
    struct count_result cr;
    struct probe_output *po = malloc(sizeof *po);
    bool ok = po && count_syscalls_run(argv, cfg->timeout_ms, OUTPUT_CAP, &cr, why, sizeof why);
    if (ok) {
        struct run_outcome oc = {cr.exit_status, cr.signal, cr.timed_out, false};
        char none[1] = "";
        run_failure(&oc, cfg->timeout_ms, none, why, sizeof why);
        char perr[MSG_LINE];
        if (!why[0] && !probe_parse(cr.out, cr.len, PROBE_COUNT, def->name, po, perr, sizeof perr))
            snprintf(why, sizeof why, "the count run's output is not understood: %s", perr);
        for (int i = first; !why[0] && i < res->nrows; i++) {
            struct runtime_row *r = &res->rows[i];
            int k = 0;
            while (k < po->nrows && strcmp(po->rows[k].api, r->api) != 0)
                k++;
            if (k == po->nrows || po->rows[k].line > COUNT_MAX_LINES - 1) {
                snprintf(r->count_why, sizeof r->count_why, "not in the count run's output");
                continue;
            }
            /* after its mark (line L), exactly L lines were out */
            r->syscalls_per_call = (double)cr.after_line[po->rows[k].line] / RUNTIMES_COUNT_CALLS;
            r->counted = res->counted;
            if (r->counted)
                r->count_why[0] = 0;
        }
        free(cr.out);
    }
    for (int i = first; why[0] && i < res->nrows; i++)
        snprintf(res->rows[i].count_why, sizeof res->rows[i].count_why, "%s", why);
    free(po);
}

/* A hash seed for a Python probe's process: each process its own (pyperf does the same),
 * from the kernel's random bytes or, failing that, the clock and the pid. */
static unsigned hash_seed(void)
{
    unsigned v = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&v, sizeof v, 1, f) != 1) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16);
    }
    if (f)
        fclose(f);
    return 1 + v % 4294967294u; /* 1 to 2^32-1: 0 would turn randomization off */
}

/* One process's speed: the median over every row's reference samples of the reference's
 * ns per loop turn; NAN when a row has none (no reference: nothing to decide by). */
static double process_speed(const struct probe_output *po)
{
    static double v[PROBE_MAX_ROWS * PROBE_MAX_SAMPLES];
    size_t n = 0;
    for (int r = 0; r < po->nrows; r++) {
        const struct probe_row *row = &po->rows[r];
        if (!row->has_ref || row->ref_iterations == 0)
            return NAN;
        for (int i = 0; i < row->nsamples; i++)
            v[n++] = (double)row->ref_ns[i] / (double)row->ref_iterations;
    }
    if (n == 0)
        return NAN;
    struct summary s;
    stats_summarize(v, n, &s);
    return s.median;
}

/* Whether a run of `done` processes so far (speed[p] each one's) is given one more: its
 * reference says the machine's speed moved, fewer than REFERENCE_AT_SPEED_MIN processes ran
 * at its fastest speed, and fewer than as many again as the `asked` have been added.  Spells
 * last from 0.1 s to seconds (measure/reference.h), so a process started after one has
 * ended runs at speed; a spell over the whole run and its additions is not seen. */
static bool one_more_for_speed(const double *speed, int done, int asked)
{
    if (done >= 2 * asked || done >= ACROSS_MAX)
        return false;
    for (int p = 0; p < done; p++)
        if (!(speed[p] > 0))
            return false;
    return reference_processes_at_speed(speed, (size_t)done, REFERENCE_MOVED_RATIO) <
           REFERENCE_AT_SPEED_MIN;
}

/* One timed run of the probe, parsed into po; why says what went wrong. */
static void timed_run(const struct runtime_def *def, const struct runtimes_config *cfg,
                      char **argv, struct probe_output *po, char *why, size_t whylen)
{
    char err[MSG_REASON] = "", start_why[MSG_LINE] = "", *out = NULL;
    size_t len = 0;
    struct run_outcome oc;
    bool started = run_capture_all(argv, cfg->timeout_ms, OUTPUT_CAP, &out, &len, err, sizeof err,
                                   &oc, start_why, sizeof start_why);
    if (!started)
        snprintf(why, whylen, "the probe could not be started: %s", start_why);
    else
        run_failure(&oc, cfg->timeout_ms, err, why, whylen);
    char perr[MSG_LINE];
    if (!why[0] && oc.truncated)
        snprintf(why, whylen, "the probe printed more than %u bytes", OUTPUT_CAP);
    if (!why[0] && !probe_parse(out, len, PROBE_TIMED, def->name, po, perr, sizeof perr))
        snprintf(why, whylen, "the probe's output is not understood: %s", perr);
    free(out);
}

void runtimes_measure(const struct runtime_def *def, const struct runtimes_config *cfg,
                      struct runtimes_result *res)
{
    struct probe_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    char why[MSG_REASON] = "";
    enum runtime_state st = def->prepare(cfg, &cmd, why, sizeof why);
    if (st != RT_READY) {
        failed_row(res, def, st, cmd.path[0], why);
        return;
    }
    int nproc = cfg->processes < 1 ? 1 : cfg->processes > ACROSS_MAX ? ACROSS_MAX : cfg->processes;
    char *argv[16], args[3][24];
    mode_argv(&cmd, argv, args, true, cfg);
    if (cmd.env_name[0])
        setenv(cmd.env_name, cmd.env_value, 1);
    /* The Python probe's ctypes row takes 200 pairs in all (probe.py, FFI_PAIRS): its share. */
    char pairs[16];
    snprintf(pairs, sizeof pairs, "%d", (200 + nproc - 1) / nproc);
    setenv(ENV_PROBE_FFI_PAIRS, pairs, 1);
    bool python = strcmp(def->name, "python") == 0;
    char *saved_seed = getenv("PYTHONHASHSEED") ? strdup(getenv("PYTHONHASHSEED")) : NULL;
    struct probe_output *po[ACROSS_MAX] = {0};
    unsigned seeds[ACROSS_MAX] = {0};
    double speed[ACROSS_MAX];
    int done = 0, limit = nproc;
    /* a stop signal (subprocess_forward_signals) ends the runs after the one it reached */
    for (int p = 0; p < limit && !why[0] && (p == 0 || !subprocess_stop_signal()); p++) {
        po[p] = malloc(sizeof *po[p]);
        if (!po[p]) {
            snprintf(why, sizeof why, "out of memory");
            break;
        }
        if (python) {
            char seed[16];
            seeds[p] = hash_seed();
            snprintf(seed, sizeof seed, "%u", seeds[p]);
            setenv("PYTHONHASHSEED", seed, 1);
        }
        timed_run(def, cfg, argv, po[p], why, sizeof why);
        done += !why[0];
        /* After the processes asked (the default count only: --processes N is N), a run
         * whose speed moved with too few at its fastest is given more, one at a time. */
        speed[p] = why[0] ? NAN : process_speed(po[p]);
        if (p + 1 == limit && !why[0] && !cfg->processes_given &&
            one_more_for_speed(speed, done, nproc))
            limit++;
    }
    if (python) {
        if (saved_seed)
            setenv("PYTHONHASHSEED", saved_seed, 1);
        else
            unsetenv("PYTHONHASHSEED");
    }
    free(saved_seed);
    unsetenv(ENV_PROBE_FFI_PAIRS);
    if (why[0]) {
        failed_row(res, def, RT_FAILED, cmd.argv[0], why);
    } else {
        int first = res->nrows;
        for (int i = 0; i < po[0]->nrows; i++)
            measured_row(res, def, po, done, nproc, i, seeds, cmd.argv[0]);
        if (cfg->count && res->counted)
            count_rows(def, &cmd, cfg, res, first);
    }
    if (cmd.env_name[0])
        unsetenv(cmd.env_name);
    for (int p = 0; p < limit; p++)
        free(po[p]);
}

void runtimes_check_count(const struct runtimes_config *cfg, struct runtimes_result *res)
{
    struct probe_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    char why[MSG_REASON] = "";
    const struct runtime_def *c = runtime_find("c");
    if (c->prepare(cfg, &cmd, why, sizeof why) != RT_READY) {
        snprintf(res->count_why, sizeof res->count_why, "no control: %s", why);
        return;
    }
    /* The control run: a copy of the result, so that only its verdict is kept. */
    static struct runtimes_result scratch;
    memset(&scratch, 0, sizeof scratch);
    struct runtime_row *r = new_row(&scratch, c);
    snprintf(r->api, sizeof r->api, "%s", RUNTIMES_CONTROL_API);
    snprintf(r->count_why, sizeof r->count_why, "not counted");
    scratch.counted = true;
    setenv(cmd.env_name, cmd.env_value, 1);
    count_rows(c, &cmd, cfg, &scratch, 0);
    unsetenv(cmd.env_name);
    if (!r->counted)
        snprintf(res->count_why, sizeof res->count_why, "%s", r->count_why);
    else if (r->syscalls_per_call != 1.0)
        snprintf(res->count_why, sizeof res->count_why,
                 "the control (%d raw clock_gettime syscalls) counted %.0f: the count is not "
                 "trusted here", RUNTIMES_COUNT_CALLS, r->syscalls_per_call * RUNTIMES_COUNT_CALLS);
    else
        res->counted = true;
}
