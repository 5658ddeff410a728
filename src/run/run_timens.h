/* SPDX-License-Identifier: MIT */
/* Reading /proc/self/timens_offsets: the offsets of a time namespace's CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME from the host's clocks.  Shared by run (the refresher's own namespace) and
 * the injected reader (a served process's first read: fork may have put it in another
 * namespace), so freestanding: <stdint.h> only, no libc, no data.
 *
 * The kernel writes one line per clock, "%-10s %10lld %9ld": the clock's name ("monotonic",
 * "boottime"; also accepted: its clock id, 1 or 7, as the kernel accepts on writing), the
 * seconds (signed), the nanoseconds (0..999999999: a timespec, so -0.2 s is "-1 800000000").
 * Anything else (an unknown or repeated clock, a missing one, a number out of range, text
 * after the number) is refused as a whole: the caller then cannot know the offsets and
 * leaves those clocks to the kernel. */
#ifndef CLOCKSCOPE_RUN_TIMENS_H
#define CLOCKSCOPE_RUN_TIMENS_H

#include <stdint.h>

#define RUN_TIMENS_MAX_S 9223372035ll /* |seconds| * 1e9 + 999999999 stays in an int64 */

/* A decimal number at *p (a '-' first if sign), spaces before it skipped; advances *p. */
static inline int run_timens_number(const char **p, const char *end, int sign, int64_t max,
                                    int64_t *out)
{
    const char *c = *p;
    while (c < end && *c == ' ')
        c++;
    int neg = 0;
    if (sign && c < end && *c == '-')
        neg = 1, c++;
    if (c >= end || *c < '0' || *c > '9')
        return 0;
    int64_t v = 0;
    for (; c < end && *c >= '0' && *c <= '9'; c++) {
        v = v * 10 + (*c - '0');
        if (v > max)
            return 0;
    }
    *out = neg ? -v : v;
    *p = c;
    return 1;
}

/* Whether the 4 bytes at p are the letters of w, first letter in its low byte: the reader
 * has no string data, and 32-bit immediates need none on any arch (riscv64 would load a
 * 64-bit one from .rodata). */
static inline int run_timens_word(const char *p, const char *end, uint32_t w)
{
    if (end - p < 4)
        return 0;
    for (int i = 0; i < 4; i++)
        if ((unsigned char)p[i] != ((w >> (8 * i)) & 0xff))
            return 0;
    return 1;
}

#define RUN_TIMENS_MONO 0x6f6e6f6du /* "mono" */
#define RUN_TIMENS_TONI 0x696e6f74u /* "toni", then 'c' */
#define RUN_TIMENS_BOOT 0x746f6f62u /* "boot" */
#define RUN_TIMENS_TIME 0x656d6974u /* "time" */

/* Parses the n bytes at buf; 1 with both offsets in ns, 0 when the text is not the kernel's. */
static inline int run_timens_parse(const char *buf, long n, int64_t *mono_ns, int64_t *boot_ns)
{
    const char *p = buf, *end = buf + (n > 0 ? n : 0);
    int seen = 0; /* bit 0: monotonic, bit 1: boottime */
    int64_t v[2] = {0, 0};
    while (p < end) {
        int which;
        int64_t id, s, ns;
        if (run_timens_word(p, end, RUN_TIMENS_MONO) && run_timens_word(p + 4, end, RUN_TIMENS_TONI) &&
            end - p > 8 && p[8] == 'c')
            which = 0, p += 9;
        else if (run_timens_word(p, end, RUN_TIMENS_BOOT) && run_timens_word(p + 4, end, RUN_TIMENS_TIME))
            which = 1, p += 8;
        else if (run_timens_number(&p, end, 0, 7, &id) && (id == 1 || id == 7))
            which = id == 7;
        else
            return 0;
        if (p >= end || *p != ' ' || (seen & (1 << which)))
            return 0;
        if (!run_timens_number(&p, end, 1, RUN_TIMENS_MAX_S, &s) ||
            !run_timens_number(&p, end, 0, 999999999, &ns))
            return 0;
        while (p < end && *p == ' ')
            p++;
        if (p >= end || *p != '\n')
            return 0;
        p++;
        seen |= 1 << which;
        v[which] = s * 1000000000ll + ns; /* a timespec: -0.2 s is -1 s + 800000000 ns */
    }
    if (seen != 3)
        return 0;
    *mono_ns = v[0], *boot_ns = v[1];
    return 1;
}

#endif
