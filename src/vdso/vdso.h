/* SPDX-License-Identifier: MIT */
/* The live vDSO of this process: where it is, and the time functions it exports. */
#ifndef CLOCKSCOPE_VDSO_H
#define CLOCKSCOPE_VDSO_H

#include "common/message.h"
#include "vdso/vdso_elf.h"

#include <stdbool.h>
#include <sys/time.h>
#include <time.h>

typedef int (*vdso_clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*vdso_gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*vdso_time_fn)(time_t *);
typedef int (*vdso_clock_getres_fn)(clockid_t, struct timespec *);
typedef int (*vdso_getcpu_fn)(unsigned *, unsigned *, void *);

struct vdso_live {
    bool present;            /* the kernel mapped a vDSO (AT_SYSINFO_EHDR) */
    bool parsed;             /* and it parsed */
    char why[MSG_LINE];      /* when !present or !parsed */
    const void *base;
    size_t size;
    struct vdso_image image;
    vdso_clock_gettime_fn clock_gettime;
    vdso_gettimeofday_fn gettimeofday;
    vdso_time_fn time;
    vdso_clock_getres_fn clock_getres;
    vdso_getcpu_fn getcpu;
};

/* Finds and parses the vDSO once; later calls return the same object. */
const struct vdso_live *vdso_live(void);

#endif
