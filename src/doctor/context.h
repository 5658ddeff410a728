/* Derives the doctor's context (architecture, kernel, clocksource, virtualization,
 * command line, kernel log events) from facts. */
#ifndef CLOCKSCOPE_CONTEXT_H
#define CLOCKSCOPE_CONTEXT_H

#include "doctor/diagnosis.h"

void context_derive(const struct facts *fs, struct context *c);
bool context_is_vm(const struct context *c);
bool context_is_bare_metal(const struct context *c);
bool context_cs_available(const struct context *c, const char *name);

#endif
