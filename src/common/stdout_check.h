/* SPDX-License-Identifier: MIT */
/* Output that could not be written is a failure, said on stderr, never a silent exit 0:
 * `clockscope doctor --json > /dev/full`, a full disk, or a closed stdout (`>&-`). */
#ifndef CLOCKSCOPE_STDOUT_CHECK_H
#define CLOCKSCOPE_STDOUT_CHECK_H

/* Registers an atexit check: flushes stdout and, if that or any earlier write to it
 * failed, prints "clockscope: cannot write the output: why" and exits with status 1. */
void stdout_check_at_exit(void);

#endif
