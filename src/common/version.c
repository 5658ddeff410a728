/* SPDX-License-Identifier: MIT */
/* One object carries the version, so that a new commit rebuilds only this file, and every
 * command that reports the version (--version, collect's bundle) says the same. */
#include "common/version.h"

#ifndef CLOCKSCOPE_VERSION
#define CLOCKSCOPE_VERSION "unknown (built without mk/release.mk)"
#endif

const char *clockscope_version(void)
{
    return CLOCKSCOPE_VERSION;
}
