/* SPDX-License-Identifier: MIT */
/* A run's instability said once after its table (instability.h). */
#include "measure/instability.h"

#include "common/environment.h"
#include "common/json_cost.h"
#include "common/stats.h"
#include "common/text_wrap.h"
#include "common/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void instability_init(struct instability *s, double noisy_spread)
{
    memset(s, 0, sizeof *s);
    s->ref_min = s->ref_max = NAN;
    s->noisy_spread = noisy_spread;
}

/* How far the reference moved from the fastest process to the slowest (0.32: 32%). */
static double reference_move(const struct reference_verdict *v)
{
    if (!v || v->n == 0 || !(v->ref_min > 0) || !(v->ref_max >= v->ref_min))
        return 0;
    return v->ref_max / v->ref_min - 1;
}

bool instability_moved(const struct reference_verdict *v, double spread)
{
    double move = reference_move(v);
    return move > INSTABILITY_MOVE_MIN && !(move <= spread);
}

bool instability_add(struct instability *s, const struct reference_verdict *v, double spread,
                     bool noisy, bool bimodal)
{
    s->figures++;
    s->bimodal += bimodal;
    if (instability_moved(v, spread)) {
        if (s->unstable < INSTABILITY_ROWS_MAX)
            s->ref_medians[s->unstable] = v->ref_median;
        s->unstable++;
        s->marked++;
        if (!(s->ref_min <= v->ref_min))
            s->ref_min = v->ref_min;
        if (!(s->ref_max >= v->ref_max))
            s->ref_max = v->ref_max;
        double move = reference_move(v);
        s->move_max = move > s->move_max ? move : s->move_max;
        return true;
    }
    if (noisy) {
        s->noisy++;
        s->marked++;
        return true;
    }
    return false;
}

struct reference_verdict instability_shown(const struct reference_verdict *v, double spread)
{
    struct reference_verdict shown = *v;
    shown.moved = instability_moved(v, spread);
    return shown;
}

/* The first word of a small sysfs file, or "" when it cannot be read. */
static void read_word(const char *sysroot, const char *path, char *buf, size_t len)
{
    char full[MSG_WITH_PATH];
    snprintf(full, sizeof full, "%s%s", sysroot, path);
    buf[0] = 0;
    FILE *f = fopen(full, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = 0;
    fclose(f);
    buf[strcspn(buf, " \t\r\n")] = 0;
}

void instability_read_machine(const char *sysroot, const char *virtualization,
                              double loadavg_1m, int cpus_online, struct instability_machine *m)
{
    memset(m, 0, sizeof *m);
    read_word(sysroot, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", m->governor,
              sizeof m->governor);
    /* intel_pstate says no_turbo (0: on); acpi-cpufreq and amd-pstate say boost (1: on) */
    static const char no_turbo[] = "/sys/devices/system/cpu/intel_pstate/no_turbo";
    static const char boost[] = "/sys/devices/system/cpu/cpufreq/boost";
    char word[16];
    m->turbo = -1;
    read_word(sysroot, no_turbo, word, sizeof word);
    if (word[0]) {
        m->turbo = strcmp(word, "0") == 0;
        snprintf(m->turbo_command, sizeof m->turbo_command, "echo 1 | sudo tee %s", no_turbo);
    } else {
        read_word(sysroot, boost, word, sizeof word);
        if (word[0]) {
            m->turbo = strcmp(word, "1") == 0;
            snprintf(m->turbo_command, sizeof m->turbo_command, "echo 0 | sudo tee %s", boost);
        }
    }
    if (m->turbo != 1)
        m->turbo_command[0] = 0;
    snprintf(m->virtualization, sizeof m->virtualization, "%s",
             virtualization ? virtualization : "");
    m->loadavg_1m = loadavg_1m;
    m->cpus_online = cpus_online;
}

static bool in_vm(const struct instability_machine *m)
{
    return m->virtualization[0] && strcmp(m->virtualization, "none") != 0;
}

static bool busy(const struct instability_machine *m)
{
    return m->loadavg_1m > 0.5 * (m->cpus_online > 0 ? m->cpus_online : 1);
}

static bool slow_governor(const struct instability_machine *m)
{
    return m->governor[0] && strcmp(m->governor, "performance") != 0;
}

/* The commands that steady the CPU's speed, joined by " && " ("" none). */
static void commands(const struct instability_machine *m, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", slow_governor(m) ? "sudo cpupower frequency-set -g performance" : "",
             slow_governor(m) && m->turbo_command[0] ? " && " : "", m->turbo_command);
}

/* What was marked and why, in one line within the columns: the long form when it fits,
 * else the compact one. */
static void what_line(const struct instability *s, char *buf, size_t len)
{
    char lo[FORMAT_NS_MAX], hi[FORMAT_NS_MAX], range[MSG_LINE] = "", tail[MSG_LINE] = "";
    units_format_ns_number(s->ref_min, lo, sizeof lo);
    units_format_ns_number(s->ref_max, hi, sizeof hi);
    snprintf(range, sizeof range, "reference %s-%s ns, up to %.0f%%", lo, hi, 100 * s->move_max);
    if (s->bimodal)
        snprintf(tail, sizeof tail, "%s%zu in two levels: the lower shown, with ~.",
                 s->marked ? " " : "", s->bimodal);
    int n = 0;
    if (s->unstable && !s->noisy)
        n = snprintf(buf, len, "%zu of %zu figures marked *: the machine's speed changed "
                     "(%s).%s", s->marked, s->figures, range, tail);
    else if (s->noisy && !s->unstable)
        n = snprintf(buf, len, "%zu of %zu figures marked *: noisy, their spread above %.0f%%.%s",
                     s->marked, s->figures, 100 * s->noisy_spread, tail);
    else
        n = snprintf(buf, len, "%s%s", s->marked ? "" : tail, "");
    if (n <= INSTABILITY_COLUMNS && (n > 0 || !s->marked))
        return;
    size_t at = (size_t)snprintf(buf, len, "%zu of %zu marked *:", s->marked, s->figures);
    const char *sep = " ";
    if (s->unstable && at < len) {
        at += (size_t)snprintf(buf + at, len - at, "%s%zu unstable (reference %s-%s ns, +%.0f%%)",
                               sep, s->unstable, lo, hi, 100 * s->move_max);
        sep = ", ";
    }
    if (s->noisy && at < len) {
        at += (size_t)snprintf(buf + at, len - at, "%s%zu noisy", sep, s->noisy);
        sep = ", ";
    }
    if (s->bimodal && at < len)
        at += (size_t)snprintf(buf + at, len - at, "%s%zu in two levels (~)", sep, s->bimodal);
    if (at < len)
        snprintf(buf + at, len - at, ".");
}

/* The likely causes, joined; those that do not fit within width left out (not the first). */
static void why_line(const struct instability_machine *m, bool with_command, char *buf,
                     size_t len, size_t width)
{
    char clause[4][MSG_LINE];
    size_t n = 0;
    if (busy(m))
        snprintf(clause[n++], MSG_LINE, "other work was running (load average %.2f on %d CPUs)",
                 m->loadavg_1m, m->cpus_online);
    if (slow_governor(m))
        snprintf(clause[n++], MSG_LINE, "the cpufreq governor is %s, not performance",
                 m->governor);
    if (m->turbo == 1)
        snprintf(clause[n++], MSG_LINE, "turbo boost is on");
    if (in_vm(m))
        snprintf(clause[n++], MSG_LINE, "in a VM (%s) the host's load moves it: not fixable "
                 "from inside the guest", m->virtualization);
    if (n == 0)
        snprintf(clause[n++], MSG_LINE, "nothing here says why: rerun on an idle machine, or "
                 "pin to a quiet CPU with --cpus");
    size_t at = (size_t)snprintf(buf, len, "likely: %s", clause[0]);
    for (size_t i = 1; i < n; i++)
        if (at + 2 + strlen(clause[i]) + (with_command ? 1 : 0) <= width && at < len)
            at += (size_t)snprintf(buf + at, len - at, "; %s", clause[i]);
    if (with_command && at < len)
        snprintf(buf + at, len - at, ":");
}

size_t instability_lines(const struct instability *s, const struct instability_machine *m,
                         char lines[INSTABILITY_LINES][MSG_REASON])
{
    if (s->marked == 0 && s->bimodal == 0)
        return 0;
    size_t n = 0;
    what_line(s, lines[n++], MSG_REASON);
    if (s->marked == 0)
        return n;
    char cmd[MSG_LINE];
    commands(m, cmd, sizeof cmd);
    /* without a command the causes may take the last two lines */
    why_line(m, cmd[0] != 0, lines[n++], MSG_REASON,
             cmd[0] ? INSTABILITY_COLUMNS : 2 * INSTABILITY_COLUMNS - 2);
    if (cmd[0])
        snprintf(lines[n++], MSG_REASON, "    %s", cmd);
    return n;
}

void instability_print(FILE *out, const struct instability *s, const struct instability_machine *m)
{
    char lines[INSTABILITY_LINES][MSG_REASON];
    size_t n = instability_lines(s, m, lines);
    if (instability_test_drift(NULL, 0) > 0)
        fprintf(stderr, "note: the reference's drift is faked (%s)\n", ENV_TEST_REFERENCE_DRIFT);
    if (n)
        fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        if (strncmp(lines[i], "    ", 4) == 0)
            fprintf(out, "%s\n", lines[i]); /* a command: whole, whatever its length */
        else
            text_wrap(out, "", lines[i], 0, 2, TEXT_WIDTH, TEXT_INLINE_COMMANDS);
    }
}

void instability_json(struct json *j, const struct instability *s,
                      const struct instability_machine *m)
{
    json_key(j, "stability");
    json_begin_object(j);
    json_kv_uint(j, "figures", s->figures);
    json_kv_uint(j, "marked", s->marked);
    json_kv_uint(j, "unstable", s->unstable);
    json_kv_uint(j, "noisy", s->noisy);
    json_kv_uint(j, "bimodal", s->bimodal);
    json_kv_double(j, "move_min", INSTABILITY_MOVE_MIN);
    json_kv_double(j, "noisy_spread", s->noisy_spread);
    if (s->unstable) {
        /* the median over the unstable rows of their reference's; the extremes over them */
        double med[INSTABILITY_ROWS_MAX];
        size_t n = s->unstable < INSTABILITY_ROWS_MAX ? s->unstable : INSTABILITY_ROWS_MAX;
        memcpy(med, s->ref_medians, n * sizeof *med);
        struct summary sum, ref = json_cost_unknown();
        stats_summarize(med, n, &sum);
        ref.median = sum.median;
        ref.min = s->ref_min;
        ref.max = s->ref_max;
        json_cost(j, "reference_ns_per_call", &ref, NULL, 0);
    } else {
        json_kv_null(j, "reference_ns_per_call");
    }
    json_kv_double(j, "reference_move", s->unstable ? s->move_max : NAN);
    json_key(j, "machine");
    json_begin_object(j);
    json_kv_string_or_null(j, "governor", m->governor);
    json_key(j, "turbo");
    if (m->turbo < 0)
        json_null(j);
    else
        json_bool(j, m->turbo == 1);
    json_kv_string_or_null(j, "virtualization", m->virtualization);
    json_kv_double(j, "loadavg_1m", m->loadavg_1m < 0 ? NAN : m->loadavg_1m);
    json_kv_int(j, "cpus_online", m->cpus_online);
    json_end_object(j);
    char lines[INSTABILITY_LINES][MSG_REASON];
    size_t n = instability_lines(s, m, lines);
    json_key(j, "commands");
    json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        if (strncmp(lines[i], "    ", 4) == 0)
            json_string(j, lines[i] + 4);
    json_end_array(j);
    json_key(j, "summary");
    json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        json_string(j, lines[i]);
    json_end_array(j);
    json_end_object(j);
}

const char *instability_spread_cell(double spread, bool marked, char *buf, size_t len)
{
    const char *mark = marked ? "*" : " ";
    if (!(spread == spread))
        snprintf(buf, len, "-%s", mark);
    else if (spread < 1)
        snprintf(buf, len, "%.1f%%%s", 100 * spread, mark);
    else if (spread < 9.995)
        snprintf(buf, len, "%.0f%%%s", 100 * spread, mark);
    else
        snprintf(buf, len, ">999%%%s", mark);
    return buf;
}

double instability_test_drift(double *ref, size_t n)
{
    const char *e = getenv(ENV_TEST_REFERENCE_DRIFT);
    double f = e ? strtod(e, NULL) : 0;
    if (!(f > 0))
        return 0;
    for (size_t i = 1; i < n; i++)
        ref[i] *= 1 + f * (double)i / (double)(n - 1);
    return f;
}
