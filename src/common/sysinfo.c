#include "common/sysinfo.h"

#include "arch/arch.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

bool read_small_file(const char *path, char *buf, size_t len)
{
    if (len == 0)
        return false;
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    return true;
}

/* The first "key : value" in /proc/cpuinfo whose key is one of keys (in order of preference). */
static void cpuinfo_model(char *out, size_t len)
{
    static const char *keys[] = {"model name", "uarch", "Hardware", "CPU part", "isa", "cpu model"};
    char line[512];
    out[0] = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !out[0]; k++) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        if (!f)
            return;
        size_t kl = strlen(keys[k]);
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, keys[k], kl) != 0)
                continue;
            char *colon = strchr(line + kl, ':');
            if (!colon)
                continue;
            char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = 0;
            snprintf(out, len, "%s%s%s", k == 3 ? "CPU part " : "", v, "");
            break;
        }
        fclose(f);
    }
}

static void detect_virtualization(struct sysinfo *s)
{
    char buf[48];
    if (arch_cpu_hypervisor(buf, sizeof buf)) {
        static const struct { const char *sig, *name; } vendors[] = {
            {"KVMKVMKVM", "kvm"}, {"Microsoft Hv", "microsoft"}, {"VMwareVMware", "vmware"},
            {"XenVMMXenVMM", "xen"}, {"TCGTCGTCGTCG", "qemu"}, {"bhyve bhyve ", "bhyve"},
            {"ACRNACRNACRN", "acrn"}, {"QNXQVMBSQG", "qnx"}, {"VBoxVBoxVBox", "oracle"},
            {"Linux KVM Hv", "kvm"},
        };
        snprintf(s->virtualization, sizeof s->virtualization, "hypervisor \"%s\"", buf);
        for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
            if (strncmp(buf, vendors[i].sig, strlen(vendors[i].sig)) == 0)
                snprintf(s->virtualization, sizeof s->virtualization, "%s", vendors[i].name);
        snprintf(s->virtualization_source, sizeof s->virtualization_source, "CPUID");
        return;
    }
    if (read_small_file("/sys/hypervisor/type", buf, sizeof buf) && buf[0]) {
        snprintf(s->virtualization, sizeof s->virtualization, "%s", buf);
        snprintf(s->virtualization_source, sizeof s->virtualization_source, "/sys/hypervisor/type");
        return;
    }
    if (read_small_file("/proc/device-tree/hypervisor/compatible", buf, sizeof buf) && buf[0]) {
        snprintf(s->virtualization, sizeof s->virtualization, "%s", buf);
        snprintf(s->virtualization_source, sizeof s->virtualization_source, "device tree");
        return;
    }
    s->virtualization[0] = 0; /* not known: absence of evidence is not "none" */
}

void sysinfo_read(struct sysinfo *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->arch, sizeof s->arch, "%s", arch_name());
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(s->kernel, sizeof s->kernel, "%s", u.release);
    cpuinfo_model(s->cpu_model, sizeof s->cpu_model);
    read_small_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                    s->clocksource, sizeof s->clocksource);
    read_small_file("/sys/devices/system/clocksource/clocksource0/available_clocksource",
                    s->available_clocksource, sizeof s->available_clocksource);
    detect_virtualization(s);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    s->cpus_online = n > 0 ? (int)n : 0;
    char load[64];
    s->loadavg_1m = -1;
    if (read_small_file("/proc/loadavg", load, sizeof load) && sscanf(load, "%lf", &s->loadavg_1m) != 1)
        s->loadavg_1m = -1;
}

bool sysinfo_busy(const struct sysinfo *s)
{
    return s->loadavg_1m > 0.5 * (s->cpus_online > 0 ? s->cpus_online : 1);
}

static void kv_or_null(struct json *j, const char *k, const char *v)
{
    if (v[0])
        json_kv_string(j, k, v);
    else
        json_kv_null(j, k);
}

void sysinfo_json(struct json *j, const struct sysinfo *s)
{
    json_begin_object(j);
    json_kv_string(j, "arch", s->arch);
    kv_or_null(j, "cpu_model", s->cpu_model);
    kv_or_null(j, "kernel", s->kernel);
    kv_or_null(j, "clocksource", s->clocksource);
    kv_or_null(j, "available_clocksource", s->available_clocksource);
    kv_or_null(j, "virtualization", s->virtualization);
    kv_or_null(j, "virtualization_source", s->virtualization_source);
    json_kv_int(j, "cpus_online", s->cpus_online);
    if (s->loadavg_1m >= 0)
        json_kv_double(j, "loadavg_1m", s->loadavg_1m);
    else
        json_kv_null(j, "loadavg_1m");
    json_end_object(j);
}

void sysinfo_print_header(FILE *out, const char *cmd, const struct sysinfo *s)
{
    fprintf(out, "clockscope %s: %s, %s, Linux %s, clocksource %s, virtualization %s\n", cmd,
            s->arch, s->cpu_model[0] ? s->cpu_model : "unknown CPU", s->kernel,
            s->clocksource[0] ? s->clocksource : "unknown",
            s->virtualization[0] ? s->virtualization : "unknown");
}
