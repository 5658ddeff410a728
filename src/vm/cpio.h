/* SPDX-License-Identifier: MIT */
/* A writer of "newc" cpio archives, the format the kernel unpacks as an initramfs. */
#ifndef CLOCKSCOPE_VM_CPIO_H
#define CLOCKSCOPE_VM_CPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cpio_writer {
    FILE *out;
    uint32_t next_ino;
    bool failed; /* a write failed or an entry was invalid; cpio_finish reports it */
};

void cpio_begin(struct cpio_writer *w, FILE *out);
void cpio_dir(struct cpio_writer *w, const char *name, unsigned mode);
void cpio_char_device(struct cpio_writer *w, const char *name, unsigned mode, unsigned major,
                      unsigned minor);
void cpio_file(struct cpio_writer *w, const char *name, unsigned mode, const void *data,
               size_t size);
/* Writes the trailer; false when anything failed. */
bool cpio_finish(struct cpio_writer *w);

#endif
