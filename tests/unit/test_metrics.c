/* SPDX-License-Identifier: MIT */
/* The Prometheus exposition writer (metrics/exposition.c) and the metrics it is given
 * (metrics/emit.c): pure, and what a scrape will parse. */
#include "check.h"
#include "metrics/emit.h"
#include "metrics/exposition.h"

#include <math.h>

TEST(prom_writes_classic_text_with_escapes)
{
    struct prom p;
    prom_init(&p);
    prom_family(&p, "x_seconds", PROM_GAUGE, "a \\ help\nline");
    struct prom_label l[2] = {{"a", "q\"b\\s\nn"}, {"b", ""}};
    prom_sample(&p, l, 2, 0.5);
    prom_sample(&p, NULL, 0, NAN);
    prom_family(&p, "y_total", PROM_COUNTER, "c");
    prom_sample(&p, NULL, 0, 3);
    CHECK(prom_error(&p) == NULL);
    CHECK(strcmp(p.text, "# HELP x_seconds a \\\\ help\\nline\n# TYPE x_seconds gauge\n"
                         "x_seconds{a=\"q\\\"b\\\\s\\nn\",b=\"\"} 0.5\nx_seconds NaN\n"
                         "# HELP y_total c\n# TYPE y_total counter\ny_total 3\n") == 0);
    prom_free(&p);
}

TEST(prom_values_keep_full_precision)
{
    struct prom p;
    prom_init(&p);
    prom_family(&p, "t_seconds", PROM_GAUGE, "h");
    prom_sample(&p, NULL, 0, 1795431031.2830195);
    prom_sample(&p, (struct prom_label[]){{"x", "1"}}, 1, 3.3e-08);
    prom_sample(&p, (struct prom_label[]){{"x", "2"}}, 1, INFINITY);
    CHECK(strstr(p.text, "t_seconds 1795431031.2830195\n") != NULL);
    CHECK(strstr(p.text, "t_seconds{x=\"1\"} 3.3e-08\n") != NULL);
    CHECK(strstr(p.text, "t_seconds{x=\"2\"} +Inf\n") != NULL);
    prom_free(&p);
}

TEST(prom_refuses_what_a_scrape_would_reject)
{
    static const struct {
        const char *name;
        enum prom_type type;
        const char *label;
        const char *error;
    } bad[] = {
        {"9lives", PROM_GAUGE, "a", "'9lives' is not a valid metric name"},
        {"a-b", PROM_GAUGE, "a", "'a-b' is not a valid metric name"},
        {"", PROM_GAUGE, "a", "'' is not a valid metric name"},
        {"runs", PROM_COUNTER, "a", "counter 'runs' must end in _total"},
        {"runs_total", PROM_GAUGE, "a", "gauge 'runs_total' must not end in _total (only counters do)"},
        {"ok", PROM_GAUGE, "__name__", "ok: '__name__' is not a valid label name"},
        {"ok", PROM_GAUGE, "a:b", "ok: 'a:b' is not a valid label name"},
        {"ok", PROM_GAUGE, "1a", "ok: '1a' is not a valid label name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct prom p;
        prom_init(&p);
        prom_family(&p, bad[i].name, bad[i].type, "h");
        prom_sample(&p, (struct prom_label[]){{bad[i].label, "v"}}, 1, 1);
        if (!prom_error(&p) || strcmp(prom_error(&p), bad[i].error) != 0) {
            fprintf(stderr, "  %s: got '%s'\n", bad[i].name, prom_error(&p) ? prom_error(&p) : "no error");
            CHECK(false);
        }
        prom_free(&p);
    }
}

TEST(prom_refuses_a_series_or_family_twice)
{
    struct prom p;
    prom_init(&p);
    prom_family(&p, "cs_info", PROM_GAUGE, "h");
    prom_sample(&p, (struct prom_label[]){{"clocksource", "tsc"}}, 1, 1);
    prom_sample(&p, (struct prom_label[]){{"clocksource", "tsc-early"}}, 1, 1);
    CHECK(prom_error(&p) == NULL); /* a prefix of another value is another series */
    prom_sample(&p, (struct prom_label[]){{"clocksource", "tsc"}}, 1, 1);
    CHECK(prom_error(&p) && strcmp(prom_error(&p), "cs_info: the same series (name and labels) "
                                                   "written twice") == 0);
    prom_free(&p);

    prom_init(&p);
    prom_family(&p, "a", PROM_GAUGE, "h");
    prom_sample(&p, (struct prom_label[]){{"x", "1"}, {"x", "2"}}, 2, 1);
    CHECK(prom_error(&p) && strcmp(prom_error(&p), "a: label 'x' given twice") == 0);
    prom_free(&p);

    prom_init(&p);
    prom_family(&p, "a", PROM_GAUGE, "h");
    prom_sample(&p, NULL, 0, 1);
    prom_family(&p, "b", PROM_GAUGE, "h");
    prom_family(&p, "a", PROM_GAUGE, "h");
    CHECK(prom_error(&p) && strcmp(prom_error(&p), "metric family 'a' written twice") == 0);
    prom_free(&p);
}

/* The metrics of a run whose rules gave one finding id twice, and a clocksource listed
 * twice: valid text, each series once. */
TEST(metrics_emit_writes_each_series_once)
{
    static struct metrics_run r;
    memset(&r, 0, sizeof r);
    r.d.verdict = V_SLOW;
    r.d.fast_path = 0;
    r.d.nfindings = 3;
    snprintf(r.d.findings[0].id, sizeof r.d.findings[0].id, "tsc-demoted-by-watchdog");
    r.d.findings[0].severity = SEV_WARNING;
    r.d.findings[1] = r.d.findings[0];
    snprintf(r.d.findings[2].id, sizeof r.d.findings[2].id, "tsc-demoted-by-watchdog");
    r.d.findings[2].severity = SEV_INFO;
    snprintf(r.d.machine.current_cs, sizeof r.d.machine.current_cs, "hpet");
    snprintf(r.d.machine.available_cs, sizeof r.d.machine.available_cs, "hpet acpi_pm hpet");
    r.success = true;
    struct prom p;
    prom_init(&p);
    metrics_emit(&r, 1795431031.5, &p);
    CHECK(prom_error(&p) == NULL);
    CHECK(strstr(p.text, "clockscope_finding_info{id=\"tsc-demoted-by-watchdog\",severity=\"warning\"} 1\n"
                         "clockscope_finding_info{id=\"tsc-demoted-by-watchdog\",severity=\"info\"} 1\n# HELP") != NULL);
    CHECK(strstr(p.text, "clockscope_findings{severity=\"warning\"} 2\n") != NULL);
    CHECK(strstr(p.text, "{clocksource=\"hpet\",device=\"0\"} 1\n"
                         "clockscope_clocksource_available_info{clocksource=\"acpi_pm\",device=\"0\"} 1\n# HELP") != NULL);
    CHECK(strstr(p.text, "clockscope_verdict{verdict=\"slow\"} 1\n") != NULL);
    CHECK(strstr(p.text, "clockscope_fast_path 0\n") != NULL);
    CHECK(strstr(p.text, "clockscope_run_timestamp_seconds 1795431031.5\n") != NULL);
    prom_free(&p);
}
