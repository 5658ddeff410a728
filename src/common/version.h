/* SPDX-License-Identifier: MIT */
/* The version this binary was built from. */
#ifndef CLOCKSCOPE_VERSION_H
#define CLOCKSCOPE_VERSION_H

/* "0.1.0 (git 8f722a4)": VERSION plus `git describe` at build time, or "(no git)" for a tree
 * without its git (mk/release.mk defines it for version.o alone). */
const char *clockscope_version(void);

/* Its two halves, as Prometheus exporters label their build_info (node_exporter:
 * version="1.7.0", revision="7333465..."): the release number ("0.1.0") and the commit
 * (`git describe`: "8f722a4", "v0.1.0-3-g8f722a4-dirty"), "unknown" without git. */
const char *clockscope_version_number(void);
const char *clockscope_revision(void);

#endif
