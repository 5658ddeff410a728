/* SPDX-License-Identifier: MIT */
/* The sosreport archive's member filter (facts/archive.c): only facts under one top
 * directory, never a name that climbs out. */
#include "check.h"
#include "facts/archive.h"

#include <string.h>

TEST(archive_selects_only_facts_under_one_top)
{
    static const struct {
        const char *name;
        bool wanted;
    } names[] = {
        {"sosreport-h-1/", false},
        {"sosreport-h-1/proc/cpuinfo", true},
        {"./sosreport-h-1/sos_commands/kernel/dmesg", true},
        {"sosreport-h-1/etc/passwd", false},
        {"sosreport-h-1/proc", false},
        {"other/proc/cmdline", false},             /* a second top */
        {"proc/cmdline", false},                   /* no top while one was chosen */
        {"../proc/cmdline", false},
        {"sosreport-h-1/../proc/cmdline", false},
        {"/proc/cmdline", false},
        {"a/b/proc/cmdline", false},               /* two levels down */
        {"sosreport-h-1/proc/cmdline\\n", false},  /* tar's quoting of an odd name */
    };
    char top[64] = "";
    bool have = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (archive_member_wanted(names[i].name, top, sizeof top, &have) != names[i].wanted) {
            fprintf(stderr, "  %s\n", names[i].name);
            CHECK(false);
        }
    }
    CHECK(strcmp(top, "sosreport-h-1") == 0);
    /* At the top itself: no top directory. */
    char t2[64] = "";
    bool h2 = false;
    CHECK(archive_member_wanted("./proc/cpuinfo", t2, sizeof t2, &h2) && h2 && t2[0] == 0);
    CHECK(!archive_member_wanted("x/proc/version", t2, sizeof t2, &h2));
    CHECK(!archive_member_wanted("-x/proc/version", top, sizeof top, &(bool){false}));
    CHECK(!archive_member_wanted("../proc/version", top, sizeof top, &(bool){false}));
    CHECK(archive_is_archive("a.tar.xz") && archive_is_archive("b.tgz") && !archive_is_archive(".tar") &&
          !archive_is_archive("dir"));
}

/* In-process mutation test of the member filter: names spliced from pieces of real paths,
 * dots, slashes and odd bytes.  Whatever it selects never climbs ("..") nor starts at "/",
 * and lies at most one directory down. */
TEST(archive_filter_never_selects_a_climbing_name)
{
    static const char *const pieces[] = {"proc/cpuinfo", "sos_commands/kernel/dmesg", "..", ".",
                                         "/", "./", "top", "-x", "dmesg", "uname", "a b", "\n",
                                         "sys/devices/system/clocksource/clocksource0/current_clocksource"};
    const size_t np = sizeof pieces / sizeof pieces[0];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int selected = 0;
    for (int round = 0; round < 200000; round++) {
        char name[512] = "";
        int n = 1 + (int)(seed % 5);
        for (int k = 0; k < n; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            strncat(name, pieces[(seed >> 33) % np], sizeof name - strlen(name) - 1);
            if ((seed >> 20) & 1)
                strncat(name, "/", sizeof name - strlen(name) - 1);
        }
        char top[64] = "";
        bool have = false;
        if (!archive_member_wanted(name, top, sizeof top, &have))
            continue;
        selected++;
        const char *p = name;
        while (strncmp(p, "./", 2) == 0)
            p += 2;
        bool climbs = p[0] == '/' || strchr(p, '\n') != NULL;
        char copy[512];
        snprintf(copy, sizeof copy, "%s", p);
        for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
            climbs |= strcmp(c, "..") == 0 || strcmp(c, ".") == 0;
        if (climbs || strstr(p, "//") || strncmp(p, top, strlen(top)) != 0) {
            fprintf(stderr, "  selected '%s' (top '%s')\n", name, top);
            CHECK(false);
        }
    }
    CHECK(selected > 100); /* the generator does reach names that are selected */
}
