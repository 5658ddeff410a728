/* SPDX-License-Identifier: MIT */
/* /proc/cpuinfo of each architecture (facts/cpuinfo.c). */
#include "check.h"
#include "facts/cpuinfo.h"

#include <string.h>

TEST(cpuinfo_parses_each_architecture)
{
    static struct cpuinfo c;
    const char *x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n"
                      "flags\t\t: fpu tsc constant_tsc nonstop_tsc hypervisor\r\nprocessor\t: 1\n";
    cpuinfo_parse(x86, strlen(x86), &c);
    CHECK(c.parsed && c.processors == 2 && !strcmp(c.family, "x86"));
    CHECK(cpuinfo_has_flag(&c, "tsc") && cpuinfo_has_flag(&c, "nonstop_tsc") &&
          cpuinfo_has_flag(&c, "hypervisor") && !cpuinfo_has_flag(&c, "tsc_reliable") &&
          !cpuinfo_has_flag(&c, "constant"));
    CHECK(!strcmp(c.model, "AMD EPYC 7B13"));
    const char *arm = "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm cpuid\n"
                      "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
    cpuinfo_parse(arm, strlen(arm), &c);
    CHECK(!strcmp(c.family, "arm") && cpuinfo_has_flag(&c, "asimd") && !strcmp(c.model, "0xd0c"));
    const char *rv = "processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc_zicntr_zicsr\nmmu\t\t: sv39\n"
                     "uarch\t\t: sifive,u74-mc\n";
    cpuinfo_parse(rv, strlen(rv), &c);
    CHECK(!strcmp(c.family, "riscv") && strstr(c.flags, "zicntr") && !strcmp(c.hardware, "sifive,u74-mc"));
    cpuinfo_parse("no colon here\n\x01\x02", 15, &c);
    CHECK(!c.parsed);
    cpuinfo_parse(NULL, 0, &c);
    CHECK(!c.parsed);
}
