/* SPDX-License-Identifier: MIT */
/* The ladder's rungs as one table (rungs.h). */
#include "ladder/rungs.h"

#include "arch/arch.h"

#include <stdio.h>
#include <string.h>

const char *ladder_kind_name(enum ladder_kind k)
{
    return k == KIND_ONE_WAY ? "one_way" : k == KIND_CALL ? "call" : "round_trip";
}

const char *ladder_cost_key(enum ladder_kind k)
{
    return k == KIND_ONE_WAY ? "ns_one_way" : k == KIND_CALL ? "ns_per_call" : "ns_per_round_trip";
}

/* The calls: bench methods, measured as bench measures them, under bench's ids (one id for
 * one thing).  The figure runs from the call to its return (into the kernel and back, for
 * a syscall): kind "call", in the text and the JSON. */
static const struct {
    const char *id, *method_id, *description;
} calls[] = {
    {"ref.empty_call", "ref.empty_call", "an empty non-inlined function call: the floor"},
    {"vdso.clock_gettime.monotonic", "vdso.clock_gettime.monotonic",
     "clock_gettime(CLOCK_MONOTONIC) through the vDSO: a time read without the kernel"},
    {"ref.getppid", "ref.getppid", "getppid(): the cheapest way into the kernel and back"},
    {"syscall.clock_gettime.monotonic", "syscall.clock_gettime.monotonic",
     "the clock_gettime(CLOCK_MONOTONIC) syscall: a time read through the kernel"},
};

static const enum mech ipc_mechs[] = {MECH_PIPE,       MECH_EVENTFD, MECH_FUTEX,
                                      MECH_SOCKETPAIR, MECH_SPIN,    MECH_SPIN_FUTEX};

const char *ladder_rung_unit(const struct rung_def *d)
{
    return ladder_kind_name(d->kind);
}

size_t rungs_build(struct rung_def *defs, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0] && n < max; i++, n++) {
        defs[n] = (struct rung_def){.family = FAMILY_CALL, .kind = KIND_CALL,
                                    .partner = PARTNER_NONE, .placement = PLACE_ONE_CPU,
                                    .description = calls[i].description};
        snprintf(defs[n].id, sizeof defs[n].id, "%s", calls[i].id);
        snprintf(defs[n].method_id, sizeof defs[n].method_id, "%s", calls[i].method_id);
    }
    const struct counter_method *counters;
    if (arch_counters(&counters) > 0 && n < max) {
        /* The arch's first counter method: its plain read, as bench names it. */
        defs[n] = (struct rung_def){.family = FAMILY_CALL, .kind = KIND_CALL,
                                    .partner = PARTNER_NONE, .placement = PLACE_ONE_CPU,
                                    .description = counters[0].description};
        snprintf(defs[n].id, sizeof defs[n].id, "counter.%s", counters[0].name);
        snprintf(defs[n].method_id, sizeof defs[n].method_id, "counter.%s", counters[0].name);
        n++;
    }
    for (size_t m = 0; m < sizeof ipc_mechs / sizeof ipc_mechs[0]; m++)
        for (int partner = PARTNER_THREAD; partner <= PARTNER_PROCESS; partner++)
            for (int place = PLACE_SAME_CPU; place <= PLACE_CROSS_CPU && n < max; place++, n++) {
                defs[n] = (struct rung_def){.family = FAMILY_IPC, .kind = KIND_ROUND_TRIP,
                                            .mech = ipc_mechs[m],
                                            .partner = (enum rung_partner)partner,
                                            .placement = (enum rung_placement)place,
                                            .description = mech_description(ipc_mechs[m])};
                snprintf(defs[n].id, sizeof defs[n].id, "%s.%s.%s", mech_name(ipc_mechs[m]),
                         partner == PARTNER_THREAD ? "threads" : "processes",
                         place == PLACE_SAME_CPU ? "same_cpu" : "cross_cpu");
            }
    return n;
}
