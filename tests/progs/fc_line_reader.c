/* SPDX-License-Identifier: MIT */
/* fastclock's read path compiled freestanding, as a reader injected into a program that does
 * not link libfastclock would be (issue 25): this file is only fc_read.h behind one
 * function.  tests/test_fastclock.py compiles it with -ffreestanding -nostdlib for each
 * arch and checks the object calls nothing (no undefined symbol: no libc, no libgcc, no
 * stack protector, no TLS) and holds nothing but code (no data, no relocation: it runs at
 * any address).  Natively it is also linked beside libfastclock.a and read against it
 * (FC_LINE_READER_MAIN, a hosted build of the same code: tests/progs/fc_line_check.c). */
#include "fastclock/fc_read.h"

/* The value of `which` (FC_CLOCK_*) from the line at l, or 0 with *status saying why not
 * (FC_READ_*).  A write in progress is waited for, as fc_read.h asks. */
uint64_t fc_line_reader_read(const struct fc_line *l, int which, int *status)
{
    uint64_t v = 0, s1;
    enum fc_read_status r;
    while ((r = fc_line_read(l, which, &v, &s1)) == FC_READ_BUSY && (s1 & FC_SEQ_WRITING))
        ;
    *status = (int)r;
    return r == FC_READ_VALUE ? v : 0;
}
