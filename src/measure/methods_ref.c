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

void methods_add_ref(struct method_list *list)
{
    struct method *m = method_add(list, "ref", "empty_call", NULL);
    if (m) {
        m->description = "call of an empty non-inlined function: the floor";
        m->batch = empty_call_batch;
    }
    m = method_add(list, "ref", "getppid", NULL);
    if (m) {
        m->description = "getppid syscall: the cost of entering the kernel";
        m->batch = getppid_batch;
    }
}
