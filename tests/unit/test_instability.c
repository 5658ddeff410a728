/* SPDX-License-Identifier: MIT */
/* One instability summary (measure/instability.c): which rows carry '*' (a reference move
 * beyond the figure's spread and 10%, or noise), and the at most three lines after the
 * table, each within 100 columns but a command, with advice read from a fake sysfs. */
#include "check.h"
#include "measure/instability.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A verdict whose processes' references ran from lo to hi ns. */
static struct reference_verdict moved_by(double lo, double hi)
{
    const double ref[] = {lo, hi, lo};
    const double rel[] = {1.3, 1.3, 1.3};
    struct reference_verdict v;
    reference_summarize(ref, rel, 3, REFERENCE_MOVED_RATIO_COUNTER, &v);
    return v;
}

TEST(instability_a_small_move_marks_nothing)
{
    /* a counter reference's 4% is above its own bound (3%) but never marks a row */
    struct reference_verdict v = moved_by(16.5, 17.16);
    CHECK(v.moved);
    CHECK(!instability_moved(&v, 0.01));
    /* 9.9% is not beyond 10%; 11% beyond a 5% spread is */
    v = moved_by(20.0, 21.98);
    CHECK(!instability_moved(&v, 0.01));
    v = moved_by(20.0, 22.2);
    CHECK(instability_moved(&v, 0.05));
    /* a move within the figure's own spread is the figure's noise, not the machine's */
    CHECK(!instability_moved(&v, 0.20));
    CHECK(!instability_moved(NULL, 0.01));
    struct reference_verdict shown = instability_shown(&v, 0.20);
    CHECK(!shown.moved);
    shown = instability_shown(&v, 0.05);
    CHECK(shown.moved);
}

static void write_file(const char *root, const char *path, const char *text)
{
    char full[512], dir[600];
    snprintf(full, sizeof full, "%s%s", root, path);
    snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", full);
    if (system(dir) != 0)
        return;
    FILE *f = fopen(full, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The lines, each but a command within the columns; returns how many. */
static size_t lines_of(const struct instability *s, const struct instability_machine *m,
                       char lines[INSTABILITY_LINES][MSG_REASON], bool *fits)
{
    size_t n = instability_lines(s, m, lines);
    *fits = true;
    for (size_t i = 0; i < n; i++)
        if (strncmp(lines[i], "    ", 4) != 0 && strlen(lines[i]) > INSTABILITY_COLUMNS &&
            i + 1 < n)
            *fits = false; /* the causes' line alone may be wrapped, when no command follows */
    return n;
}

TEST(instability_one_summary_with_the_command_that_steadies_the_cpu)
{
    char root[] = "/tmp/clockscope-instability-XXXXXX";
    CHECK(mkdtemp(root));
    write_file(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
    write_file(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
    struct instability_machine m;
    instability_read_machine(root, "none", 0.1, 8, &m);
    CHECK(strcmp(m.governor, "powersave") == 0 && m.turbo == 1);
    struct instability s;
    instability_init(&s, 0.10);
    struct reference_verdict big = moved_by(16.5, 21.8), small = moved_by(16.5, 17.0);
    size_t marked = 0;
    for (int i = 0; i < 50; i++)
        marked += instability_add(&s, i < 27 ? &big : &small, 0.02, false, false);
    CHECK(marked == 27 && s.marked == 27 && s.unstable == 27 && s.figures == 50);
    char lines[INSTABILITY_LINES][MSG_REASON];
    bool fits;
    size_t n = lines_of(&s, &m, lines, &fits);
    CHECK(n == 3 && fits);
    CHECK(strcmp(lines[0], "27 of 50 figures marked *: the machine's speed changed (reference "
                           "16.5-21.8 ns, up to 32%).") == 0);
    CHECK(strstr(lines[1], "the cpufreq governor is powersave, not performance") != NULL);
    CHECK(strcmp(lines[2], "    sudo cpupower frequency-set -g performance && echo 1 | sudo tee "
                           "/sys/devices/system/cpu/intel_pstate/no_turbo") == 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

TEST(instability_advice_from_a_vm_and_from_load)
{
    struct instability_machine m;
    instability_read_machine("/nonexistent", "kvm", 0.2, 2, &m);
    CHECK(m.governor[0] == 0 && m.turbo == -1);
    struct instability s;
    instability_init(&s, 0.10);
    struct reference_verdict big = moved_by(16.5, 21.8);
    instability_add(&s, &big, 0.02, true, false);
    CHECK(instability_add(&s, NULL, 0.3, true, true));    /* noisy, two levels */
    CHECK(!instability_add(&s, NULL, 0.02, false, false));
    CHECK(s.unstable == 1 && s.noisy == 1 && s.bimodal == 1 && s.marked == 2);
    char lines[INSTABILITY_LINES][MSG_REASON];
    bool fits;
    size_t n = lines_of(&s, &m, lines, &fits);
    CHECK(n == 2 && fits);
    CHECK(strlen(lines[0]) <= INSTABILITY_COLUMNS);
    CHECK(strstr(lines[0], "2 of 3") != NULL && strstr(lines[0], "1 noisy") != NULL);
    CHECK(strstr(lines[0], "two levels") != NULL);
    CHECK(strstr(lines[1], "not fixable from inside the guest") != NULL);
    CHECK(strstr(lines[1], "other work") == NULL);
    instability_read_machine("/nonexistent", "none", 1.5, 2, &m);
    n = lines_of(&s, &m, lines, &fits);
    CHECK(n == 2 && strstr(lines[1], "other work was running (load average 1.50 on 2 CPUs)"));
    /* nothing marked, nothing in two levels: nothing said */
    instability_init(&s, 0.10);
    instability_add(&s, NULL, 0.02, false, false);
    CHECK(instability_lines(&s, &m, lines) == 0);
}

TEST(instability_spread_cell_keeps_its_width)
{
    char buf[16];
    CHECK(strcmp(instability_spread_cell(0.025, false, buf, sizeof buf), "2.5% ") == 0);
    CHECK(strcmp(instability_spread_cell(1.307, true, buf, sizeof buf), "131%*") == 0);
    CHECK(strcmp(instability_spread_cell(13.17, true, buf, sizeof buf), ">999%*") == 0);
    CHECK(strlen(instability_spread_cell(9.99, true, buf, sizeof buf)) <= 6);
}
