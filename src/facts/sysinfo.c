/* SPDX-License-Identifier: MIT */
#include "facts/sysinfo.h"

#include "arch/arch.h"
#include "common/message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The 1-minute load average from /proc/loadavg, or -1. */
static double loadavg_1m(void)
{
    struct fact_reader r = {"/"};
    struct fact f;
    memset(&f, 0, sizeof f);
    fact_read(&r, "proc/loadavg", 4096, false, &f);
    double v = -1;
    if (f.status != FACT_OK || sscanf(f.text, "%lf", &v) != 1 || v < 0)
        v = -1;
    fact_free(&f);
    return v;
}

void sysinfo_from_machine(const struct machine *m, struct sysinfo *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->arch, sizeof s->arch, "%s", arch_name());
    snprintf(s->cpu_model, sizeof s->cpu_model, "%s", m->cpu_description);
    snprintf(s->kernel, sizeof s->kernel, "%s", m->kernel.release);
    snprintf(s->clocksource, sizeof s->clocksource, "%s", m->current_cs);
    snprintf(s->available_clocksource, sizeof s->available_clocksource, "%s", m->available_cs);
    snprintf(s->virtualization, sizeof s->virtualization, "%s", m->virt);
    snprintf(s->virtualization_source, sizeof s->virtualization_source, "%s", m->virt_source);
    s->emulation = m->emulation;
    s->loadavg_1m = -1;
}

void sysinfo_read(struct sysinfo *s)
{
    struct facts *fs = calloc(1, sizeof *fs);
    struct machine *m = calloc(1, sizeof *m);
    if (fs && m) {
        facts_load_live_quick(fs);
        machine_derive(fs, m);
        sysinfo_from_machine(m, s);
        facts_free(fs);
    } else {
        memset(s, 0, sizeof *s);
        snprintf(s->arch, sizeof s->arch, "%s", arch_name());
    }
    free(fs);
    free(m);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    s->cpus_online = n > 0 ? (int)n : 0;
    s->loadavg_1m = loadavg_1m();
}

bool sysinfo_busy(const struct sysinfo *s)
{
    return s->loadavg_1m > 0.5 * (s->cpus_online > 0 ? s->cpus_online : 1);
}

void sysinfo_json(struct json *j, const struct sysinfo *s)
{
    json_begin_object(j);
    sysinfo_json_fields(j, s);
    json_end_object(j);
}

void sysinfo_json_fields(struct json *j, const struct sysinfo *s)
{
    json_kv_string(j, "arch", s->arch);
    json_kv_string_or_null(j, "cpu_model", s->cpu_model);
    json_kv_string_or_null(j, "kernel", s->kernel);
    json_kv_string_or_null(j, "clocksource", s->clocksource);
    json_kv_string_or_null(j, "available_clocksource", s->available_clocksource);
    json_kv_string_or_null(j, "virtualization", s->virtualization);
    json_kv_string_or_null(j, "virtualization_source", s->virtualization_source);
    emulation_json(j, &s->emulation);
    json_kv_int(j, "cpus_online", s->cpus_online);
    if (s->loadavg_1m >= 0)
        json_kv_double(j, "loadavg_1m", s->loadavg_1m);
    else
        json_kv_null(j, "loadavg_1m");
}

/* The first line of path, without its newline, or "". */
static void first_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

void sysinfo_cpuidle(char *driver, size_t dlen, char *governor, size_t glen)
{
    static const char dir[] = "/sys/devices/system/cpu/cpuidle/";
    char path[sizeof dir + 32];
    snprintf(path, sizeof path, "%scurrent_driver", dir);
    first_line(path, driver, dlen);
    snprintf(path, sizeof path, "%scurrent_governor", dir);
    first_line(path, governor, glen);
    if (!governor[0]) {
        snprintf(path, sizeof path, "%scurrent_governor_ro", dir);
        first_line(path, governor, glen);
    }
}

#define SYSINFO_HEADER_COLUMNS 100

void sysinfo_print_header(FILE *out, const char *cmd, const struct sysinfo *s)
{
    char line[MSG_REASON];
    int n = snprintf(line, sizeof line,
                     "clockscope %s: %s, %s, Linux %s, clocksource %s, virtualization %s%s%s%s",
                     cmd, s->arch, s->cpu_model[0] ? s->cpu_model : "unknown CPU", s->kernel,
                     s->clocksource[0] ? s->clocksource : "unknown",
                     s->virtualization[0] ? s->virtualization : "unknown",
                     s->emulation.kind[0] ? ", emulated CPU (" : "", s->emulation.kind,
                     s->emulation.kind[0] ? "): the timings are the emulator's" : "");
    /* Within 100 columns: broken after the last ", " that fits, the rest indented. */
    const char *rest = line;
    while (n > SYSINFO_HEADER_COLUMNS && rest[0]) {
        const char *cut = NULL;
        long room = SYSINFO_HEADER_COLUMNS - (rest == line ? 0 : 2);
        for (const char *p = strstr(rest, ", "); p && p - rest + 1 <= room;
             p = strstr(p + 1, ", "))
            cut = p;
        if (!cut)
            break;
        fprintf(out, "%s%.*s\n", rest == line ? "" : "  ", (int)(cut - rest + 1), rest);
        rest = cut + 2;
        n = (int)strlen(rest) + 2;
    }
    fprintf(out, "%s%s\n", rest == line ? "" : "  ", rest);
}

void emulation_json(struct json *j, const struct emulation *e)
{
    json_kv_string_or_null(j, "emulation", e->kind);
    json_key(j, "emulation_evidence");
    json_begin_array(j);
    for (int i = 0; i < e->nevidence; i++)
        json_string(j, e->evidence[i]);
    json_end_array(j);
}
