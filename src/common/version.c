/* SPDX-License-Identifier: MIT */
/* One object carries the version, so that a new commit rebuilds only this file, and every
 * command that reports the version (--version, collect's bundle) says the same. */
#include "common/version.h"

#ifndef CLOCKSCOPE_VERSION
#define CLOCKSCOPE_VERSION "unknown (built without mk/release.mk)"
#endif

#include <string.h>

const char *clockscope_version(void)
{
    return CLOCKSCOPE_VERSION;
}

/* Both halves are cut from the one string, so they cannot disagree with --version. */
const char *clockscope_version_number(void)
{
    static char number[64];
    size_t n = strcspn(CLOCKSCOPE_VERSION, " ");
    if (n >= sizeof number)
        n = sizeof number - 1;
    memcpy(number, CLOCKSCOPE_VERSION, n);
    number[n] = 0;
    return number;
}

const char *clockscope_revision(void)
{
    static char revision[128];
    const char *git = strstr(CLOCKSCOPE_VERSION, "(git ");
    if (!git)
        return "unknown";
    git += 5;
    size_t n = strcspn(git, ")");
    if (n >= sizeof revision)
        n = sizeof revision - 1;
    memcpy(revision, git, n);
    revision[n] = 0;
    return revision;
}
