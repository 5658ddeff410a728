/* SPDX-License-Identifier: MIT */
/* The version this binary was built from. */
#ifndef CLOCKSCOPE_VERSION_H
#define CLOCKSCOPE_VERSION_H

/* "0.1.0 (git 8f722a4)": VERSION plus `git describe` at build time, or "(no git)" for a tree
 * without its git (mk/release.mk defines it for version.o alone). */
const char *clockscope_version(void);

#endif
