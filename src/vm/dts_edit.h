/* SPDX-License-Identifier: MIT */
/* A property added to one node of a device tree's source (dts_edit.c). */
#ifndef CLOCKSCOPE_VM_DTS_EDIT_H
#define CLOCKSCOPE_VM_DTS_EDIT_H

#include <stdbool.h>
#include <stddef.h>

/* Pure: dtc's source text with "PROPERTY;" added as the first line of the one node whose
 * compatible property lists COMPATIBLE.  *out is malloc'ed (NUL-terminated).  False, with
 * why, when no node or several are compatible, or the text is not dtc's shape. */
bool dts_add_property(const char *dts, size_t len, const char *compatible, const char *property,
                      char **out, size_t *out_len, char *why, size_t whylen);

#endif
