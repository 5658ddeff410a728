/* SPDX-License-Identifier: MIT */
/* ref.*: the rungs of the ladder around the clock reads: a function call that does
 * nothing, and the cheapest real kernel entry. */
#include "measure/batch.h"
#include "measure/method.h"

#include <sys/syscall.h>
#include <unistd.h>

/* Not inlinable, and not removable: the asm is volatile. */
__attribute__((noinline)) void clockscope_ref_empty_function(void)
{
    __asm__ volatile("");
}

CALL_BATCH(empty_call_batch, , clockscope_ref_empty_function())
CALL_BATCH(getppid_batch, , KEEP(syscall(SYS_getppid)))

/* Single calls, for sparse reads (bench --gap): the floor and a known kernel entry there
 * too.  Their values are not timestamps (UNIT_NONE), so warp leaves them alone. */
static uint64_t empty_call_read(const void *ctx)
{
    (void)ctx;
    clockscope_ref_empty_function();
    return 0;
}

static uint64_t getppid_read(const void *ctx)
{
    (void)ctx;
    return (uint64_t)syscall(SYS_getppid);
}

static const struct method_spec ref_methods[] = {
    {"empty_call", NULL, 0, "call of an empty non-inlined function: the floor",
     empty_call_batch, empty_call_read, UNIT_NONE},
    {"getppid", NULL, 0, "getppid syscall: the cost of entering the kernel", getppid_batch,
     getppid_read, UNIT_NONE},
};

void methods_add_ref(struct method_list *list)
{
    for (size_t i = 0; i < sizeof ref_methods / sizeof ref_methods[0]; i++)
        method_add_spec(list, "ref", &ref_methods[i]);
}
