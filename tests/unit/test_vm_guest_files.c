/* SPDX-License-Identifier: MIT */
/* `vm --add` / `--env`: ldd output parsing, guest paths, NAME=VALUE; malformed and mutated
 * inputs. */
#include "check.h"
#include "vm/guest_files.h"

#include <stdio.h>
#include <string.h>

static const char real_ldd[] =
    "\tlinux-vdso.so.1 (0x00007ffd6b3f2000)\n"
    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f794b65c000)\n"
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007f794b859000)\n";

TEST(ldd_parse_real_output)
{
    char text[sizeof real_ldd], why[200];
    const char *p[8];
    memcpy(text, real_ldd, sizeof real_ldd);
    CHECK(ldd_parse(text, p, 8, why, sizeof why) == 2);
    CHECK(strcmp(p[0], "/lib/x86_64-linux-gnu/libc.so.6") == 0);
    CHECK(strcmp(p[1], "/lib64/ld-linux-x86-64.so.2") == 0);
    /* Old glibc's vDSO form, a repeat, "statically linked", empty lines. */
    char old[] = "\tlinux-vdso.so.1 =>  (0x00007ffd6b3f2000)\n\n"
                 "\tlibm.so.6 => /lib/libm.so.6 (0x1)\n\tlibm.so.6 => /lib/libm.so.6 (0x1)\n";
    CHECK(ldd_parse(old, p, 8, why, sizeof why) == 1 && strcmp(p[0], "/lib/libm.so.6") == 0);
    char st[] = "\tstatically linked\n";
    CHECK(ldd_parse(st, p, 8, why, sizeof why) == 0);
    /* A path with a space survives (split at the last " (0x"). */
    char sp[] = "\tlibx.so => /opt/my libs/libx.so (0xabc)\n";
    CHECK(ldd_parse(sp, p, 8, why, sizeof why) == 1 && strcmp(p[0], "/opt/my libs/libx.so") == 0);
}

TEST(ldd_parse_rejects_malformed)
{
    static const char *bad[] = {
        "\tlibfoo.so.1 => not found\n",
        "\tlibc.so.6 => lib/libc.so.6 (0x1)\n",     /* relative */
        "\tlibc.so.6 => /lib/libc.so.6\n",          /* no address */
        "\tlibc.so.6 => /lib/libc.so.6 (0x)\n",
        "\tlibc.so.6 => /lib/libc.so.6 (0x12g)\n",
        "\tlibc.so.6 => /lib/libc.so.6 (0x12) x\n",
        "\tnot a dynamic executable\n",
        "\tsomething.so (0x1)\n",                    /* not absolute, not the vDSO */
        "\t => /lib/libc.so.6 (0x1)\n",
        "\tlib c => /lib/libc.so.6 (0x1)\n",
        "\tlibc.so.6 =>  (0x1)\n",                   /* empty right side, not the vDSO */
        "garbage",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[200], why[200] = "";
        const char *p[8];
        snprintf(text, sizeof text, "%s", bad[i]);
        CHECK(ldd_parse(text, p, 8, why, sizeof why) == -1);
        CHECK(why[0]);
    }
    char many[] = "\t/a (0x1)\n\t/b (0x1)\n\t/c (0x1)\n";
    char why[200];
    const char *p[2];
    CHECK(ldd_parse(many, p, 2, why, sizeof why) == -1 && strstr(why, "more than"));
}

TEST(guest_paths_and_env)
{
    char why[200];
    CHECK(guest_path_check("/bin/x", why, sizeof why));
    CHECK(guest_path_check("/tmp/x", why, sizeof why));
    CHECK(guest_path_check("/lib/clockscope/libclockscope-shim.so", why, sizeof why));
    static const char *bad[] = {"", "/", "x", "bin/x", "//x", "/a//b", "/a/", "/a/./b", "/a/..",
                                "/..", "/init", "/dev/x", "/proc", "/sys/a", "/tmp",
                                "/clockscope-vm/argv"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = 0;
        CHECK(!guest_path_check(bad[i], why, sizeof why) && why[0]);
    }
    char longp[300];
    memset(longp, 'a', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = 0;
    CHECK(!guest_path_check(longp, why, sizeof why));
    CHECK(guest_path_check("/initrd", why, sizeof why)); /* only /init itself is reserved */
    CHECK(guest_env_check("A=1", why, sizeof why) && guest_env_check("_x9=", why, sizeof why));
    CHECK(guest_env_check("PATH=/bin:/x=y", why, sizeof why));
    static const char *bad_env[] = {"", "=", "=x", "A", "1A=x", "A-B=x", "A B=x", "\xff=1"};
    for (size_t i = 0; i < sizeof bad_env / sizeof bad_env[0]; i++)
        CHECK(!guest_env_check(bad_env[i], why, sizeof why));
}

/* In-process mutation fuzzing (ASan in the SAN build): random edits of real ldd output must
 * parse or fail cleanly, and every path returned must be absolute and inside the text. */
TEST(ldd_parse_survives_mutations)
{
    static const char alphabet[] = "/=> ()0x9afl.\t\n\xff";
    uint64_t x = 99;
    for (int i = 0; i < 20000; i++) {
        char buf[sizeof real_ldd + 32];
        memcpy(buf, real_ldd, sizeof real_ldd);
        for (int e = 0; e < 1 + i % 5; e++)
            check_mutate(buf, sizeof buf, alphabet, &x);
        const char *p[4];
        char why[200] = "";
        int n = ldd_parse(buf, p, 4, why, sizeof why);
        if (n < 0)
            CHECK(why[0]);
        for (int k = 0; k < n; k++)
            CHECK(p[k][0] == '/' && p[k] >= buf && p[k] < buf + sizeof buf);
    }
}
