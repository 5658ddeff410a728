/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the parsers of foreign facts text: kernel log lines and their
 * prefixes (facts/klog.c), the clock events in them (facts/logscan.c), /proc/cpuinfo,
 * the command line and the kernel version; then the whole machine model (facts/machine.c,
 * facts/hypervisor.c) from the same text given as every fact at once.  `make fuzz`, then
 * build/fuzz/fuzz_facts_text -max_total_time=60 CORPUS_DIR (seed: any dmesg, cpuinfo). */
#include "facts/logscan.h"
#include "facts/cpuinfo.h"
#include "facts/kernel_text.h"
#include "facts/machine.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct logscan scan;
    static struct cpuinfo cpu;
    logscan_run((const char *)data, size, &scan);
    cpuinfo_parse((const char *)data, size, &cpu);
    cpuinfo_has_flag(&cpu, "constant_tsc");
    char *z = malloc(size + 1);
    if (!z)
        return 0;
    memcpy(z, data, size);
    z[size] = 0;
    char v[64], m[16];
    struct kernel_version k;
    cmdline_param(z, "clocksource", v, sizeof v);
    cmdline_param(z, "tsc", v, sizeof v);
    kernel_version_parse(z, &k);
    machine_name_parse(z, m, sizeof m);
    free(z);

    static struct facts fs;
    static struct machine model;
    memset(&fs, 0, sizeof fs);
    for (int i = 0; i < F_COUNT; i++)
        fact_set_text(&fs.f[i], "fuzz", (const char *)data, size);
    machine_derive(&fs, &model);
    machine_cpu_description(&model, v, sizeof v);
    facts_free(&fs);
    return 0;
}
