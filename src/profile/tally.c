/* SPDX-License-Identifier: MIT */
/* Attribution of one sample (or one perf report entry) to a category.
 *
 * The rule, for a call chain read from the leaf outwards: the innermost frame that reads
 * the time decides.  A clocksource read under a syscall is the clocksource; a syscall
 * under the vDSO (its fallback) is the syscall; the vDSO under the libc wrapper is the
 * vDSO.  A user-space time frame with kernel entry frames inside it (the fallback
 * syscall, seen only as kernel entry) is "syscall"; with other kernel frames inside (an
 * interrupt or a fault that arrived while it ran) the sample is not reading the time.  The
 * call site is the first ordinary frame outside the outermost time frame, kernel entry
 * and the syscall() wrapper skipped. */
#include "profile/tally.h"

#include <stdlib.h>
#include <string.h>

static const char *const arch_names[] = {"x86_64", "aarch64", "riscv64"};

const char *tally_arch_name(int bit)
{
    return bit >= 0 && bit < (int)(sizeof arch_names / sizeof arch_names[0]) ? arch_names[bit] : NULL;
}

void tally_init(struct tally *t)
{
    memset(t, 0, sizeof *t);
}

static void copy_text(char *dst, size_t cap, const char *src, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, src ? src : "", len);
    dst[len] = 0;
}

static void add_name(struct tally *t, struct tally_name *table, int *n, int cap, const char *name,
                     const char *dso, size_t dso_len, enum profile_category cat, double weight)
{
    char d[sizeof table->dso];
    copy_text(d, sizeof d, dso, dso_len);
    for (int i = 0; i < *n; i++)
        if (strcmp(table[i].name, name) == 0 && strcmp(table[i].dso, d) == 0 &&
            table[i].category == cat) {
            table[i].weight += weight;
            return;
        }
    if (*n >= cap) {
        t->dropped_names += weight;
        return;
    }
    struct tally_name *e = &table[(*n)++];
    copy_text(e->name, sizeof e->name, name, strlen(name));
    memcpy(e->dso, d, sizeof d);
    e->category = cat;
    e->weight = weight;
}

/* Every arch whose table rows name this symbol: __vdso_clock_gettime is x86_64's and
 * riscv64's, so matching it names both. */
static void note_arch(struct tally *t, const struct attr_row *r)
{
    if (!r || !r->arch)
        return;
    size_t n;
    const struct attr_row *rows = attr_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].arch || strcmp(rows[i].symbol, r->symbol) != 0)
            continue;
        for (int b = 0; tally_arch_name(b); b++)
            if (strcmp(rows[i].arch, tally_arch_name(b)) == 0)
                t->arches |= 1u << b;
    }
}

static void add_clocksource(struct tally *t, const char *name, double weight)
{
    add_name(t, t->clocksources, &t->nclocksources, TALLY_CLOCKSOURCES, name, "", 0,
             CAT_CLOCKSOURCE, weight);
}

void tally_chain(struct tally *t, const struct attr_frame *frames, int nframes, double weight)
{
    t->samples++;
    t->total += weight;
    tally_attribute(t, frames, nframes, weight);
}

void tally_attribute(struct tally *t, const struct attr_frame *frames, int nframes, double weight)
{
    const struct attr_row *rows[TALLY_MAX_FRAMES];
    if (nframes > TALLY_MAX_FRAMES)
        nframes = TALLY_MAX_FRAMES;
    int inner = -1, outer = -1;
    bool entry = false;
    for (int i = 0; i < nframes; i++) {
        rows[i] = attr_classify(&frames[i]);
        t->kernel_frames |= frames[i].kernel;
        note_arch(t, rows[i]);
        if (rows[i] && rows[i]->role == ROLE_TIME) {
            if (inner < 0)
                inner = i;
            outer = i;
        }
        entry |= rows[i] && rows[i]->role == ROLE_PASS && frames[i].kernel;
    }
    if (inner < 0) {
        t->weight[CAT_OTHER] += weight;
        if (entry && nframes > 0 && frames[0].kernel) {
            t->kernel_entry_unattributed = true;
            t->entry_weight += weight;
        }
        return;
    }
    const struct attr_row *r = rows[inner];
    enum profile_category cat = r->category;
    if (cat == CAT_CLOCKSOURCE) {
        /* The outermost of adjacent clocksource frames names it: xen_clocksource_read
         * calls pvclock_clocksource_read. */
        const char *name = r->clocksource;
        for (int j = inner + 1; j < nframes && rows[j] && rows[j]->category == CAT_CLOCKSOURCE &&
                                rows[j]->role == ROLE_TIME; j++)
            name = rows[j]->clocksource;
        add_clocksource(t, name, weight);
    } else if (cat != CAT_SYSCALL) {
        /* Kernel frames inside a user-space time read: entered by a syscall (kernel entry
         * frames: the fallback, "syscall"), or an interrupt or fault that arrived while it
         * ran (not reading the time: "other"). */
        bool kernel = false, via_syscall = false;
        for (int i = 0; i < inner; i++) {
            kernel |= frames[i].kernel;
            via_syscall |= frames[i].kernel && rows[i] && rows[i]->role == ROLE_PASS;
        }
        if (kernel)
            cat = via_syscall ? CAT_SYSCALL : CAT_OTHER;
    }
    t->weight[cat] += weight;
    if (cat == CAT_OTHER) {
        t->interrupted_weight += weight;
        return;
    }
    if (cat == CAT_SYSCALL || cat == CAT_CLOCKSOURCE)
        for (int j = inner; j < nframes; j++)
            if (rows[j] && rows[j]->role == ROLE_TIME && rows[j]->category != CAT_SYSCALL &&
                rows[j]->category != CAT_CLOCKSOURCE) {
                t->fallback_weight += weight;
                break;
            }

    char sym[128];
    attr_normalize(frames[inner].sym, frames[inner].sym_len, sym, sizeof sym);
    add_name(t, t->symbols, &t->nsymbols, TALLY_NAMES, sym[0] ? sym : "[unknown]",
             frames[inner].dso, frames[inner].dso_len, cat, weight);

    int site = -1;
    for (int j = outer + 1; j < nframes && site < 0; j++)
        if (!rows[j] || rows[j]->role == ROLE_NOTTIME)
            site = j;
    if (site < 0) {
        add_name(t, t->call_sites, &t->ncall_sites, TALLY_NAMES, "(no caller in the chain)", "", 0,
                 CAT_OTHER, weight);
        return;
    }
    attr_normalize(frames[site].sym, frames[site].sym_len, sym, sizeof sym);
    add_name(t, t->call_sites, &t->ncall_sites, TALLY_NAMES, sym[0] ? sym : "[unknown]",
             frames[site].dso, frames[site].dso_len, CAT_OTHER, weight);
}

void tally_entry(struct tally *t, const struct attr_frame *frame, double percent)
{
    const struct attr_row *r = attr_classify(frame);
    note_arch(t, r);
    t->kernel_frames |= frame->kernel;
    t->from_report = true;
    if (!r || r->role != ROLE_TIME) {
        t->weight[CAT_OTHER] += percent;
        return;
    }
    t->weight[r->category] += percent;
    if (r->category == CAT_CLOCKSOURCE)
        add_clocksource(t, r->clocksource, percent);
    char sym[128];
    attr_normalize(frame->sym, frame->sym_len, sym, sizeof sym);
    add_name(t, t->symbols, &t->nsymbols, TALLY_NAMES, sym, frame->dso, frame->dso_len,
             r->category, percent);
}

double tally_share(const struct tally *t, double weight)
{
    return t->total > 0 ? 100.0 * weight / t->total : 0;
}

double tally_percent(const struct tally *t, enum profile_category c)
{
    return tally_share(t, t->weight[c]);
}

double tally_time_percent(const struct tally *t)
{
    double w = 0;
    for (int c = 0; c < PROFILE_TIME_CATEGORIES; c++)
        w += t->weight[c];
    return tally_share(t, w);
}

static int by_weight(const void *a, const void *b)
{
    const struct tally_name *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return strcmp(x->name, y->name);
}

void tally_sort(struct tally *t)
{
    qsort(t->clocksources, (size_t)t->nclocksources, sizeof t->clocksources[0], by_weight);
    qsort(t->symbols, (size_t)t->nsymbols, sizeof t->symbols[0], by_weight);
    qsort(t->call_sites, (size_t)t->ncall_sites, sizeof t->call_sites[0], by_weight);
}
