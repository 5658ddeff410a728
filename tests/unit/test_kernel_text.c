/* SPDX-License-Identifier: MIT */
/* The kernel's own texts (facts/kernel_text.c): command-line parameters (the last wins,
 * quotes, bare flags), kernel versions and machine names. */
#include "check.h"
#include "facts/kernel_text.h"

#include <string.h>

TEST(cmdline_param_last_wins_quotes_and_bare_flags)
{
    char v[64];
    const char *cl = "BOOT_IMAGE=/vmlinuz ro clocksource=hpet quiet notsc tsc=reliable "
                     "clocksource=tsc dyndbg=\"file a.c +p\" nohpetx";
    CHECK(cmdline_param(cl, "clocksource", v, sizeof v) && !strcmp(v, "tsc"));
    CHECK(cmdline_param(cl, "notsc", v, sizeof v) && !strcmp(v, ""));
    CHECK(cmdline_param(cl, "tsc", v, sizeof v) && !strcmp(v, "reliable"));
    CHECK(cmdline_param(cl, "dyndbg", v, sizeof v) && !strcmp(v, "file a.c +p"));
    CHECK(!cmdline_param(cl, "nohpet", v, sizeof v));
    CHECK(!cmdline_param("", "tsc", v, sizeof v));
}

TEST(kernel_versions_and_machine_names)
{
    struct kernel_version k;
    kernel_version_parse("Linux version 5.10.0-18-amd64 (debian-kernel@lists.debian.org) #1 SMP", &k);
    CHECK(k.known && k.major == 5 && k.minor == 10 && !strcmp(k.release, "5.10.0-18-amd64"));
    kernel_version_parse("Linux myhost 4.4.0-1128-aws #142-Ubuntu SMP x86_64 GNU/Linux", &k);
    CHECK(k.known && k.major == 4 && k.minor == 4);
    kernel_version_parse("6.1.47-current-sunxi64", &k);
    CHECK(k.known && kernel_version_cmp(&k, 5, 8) > 0 && kernel_version_cmp(&k, 6, 2) < 0);
    CHECK(k.patch == 47);
    kernel_version_parse("Linux version 5.0.21-generic (x)", &k); /* minor 0 is a version */
    CHECK(k.known && k.major == 5 && k.minor == 0 && k.patch == 21);
    kernel_version_parse("5.10_3-custom", &k); /* a patch level follows a dot only */
    CHECK(k.known && k.minor == 10 && k.patch == 0);
    char longrel[300] = "Linux version 6.8.0-";
    memset(longrel + strlen(longrel), 'x', 200);
    kernel_version_parse(longrel, &k); /* cut to the field, terminated */
    CHECK(k.known && strlen(k.release) == sizeof k.release - 1 && !strncmp(k.release, "6.8.0-x", 7));
    kernel_version_parse("Linux version", &k);
    CHECK(!k.known);
    kernel_version_parse("x86_64", &k);
    CHECK(!k.known);
    char m[16];
    machine_name_parse("x86_64\n", m, sizeof m);
    CHECK(!strcmp(m, "x86_64") && !strcmp(machine_family(m), "x86"));
    machine_name_parse("Linux pine64 6.1.47 #1 SMP PREEMPT aarch64 GNU/Linux", m, sizeof m);
    CHECK(!strcmp(machine_family(m), "arm64"));
    machine_name_parse("armv7l", m, sizeof m);
    CHECK(!strcmp(machine_family(m), "arm32"));
    machine_name_parse("Linux qemu 2.6.32 #1 SMP i686 i686 i386 GNU/Linux", m, sizeof m);
    CHECK(!strcmp(machine_family(m), "x86"));
    machine_name_parse("Linux visionfive 6.6.20 #1 SMP riscv64 GNU/Linux", m, sizeof m);
    CHECK(!strcmp(m, "riscv64") && !strcmp(machine_family(m), "riscv"));
    machine_name_parse("garbage", m, sizeof m);
    CHECK(m[0] == 0 && !strcmp(machine_family(m), ""));
}

/* Mutation fuzzing: seeds of every format, bytes flipped, inserted, cut; the parsers must
 * neither crash nor read out of bounds (ASan) whatever they get. */
