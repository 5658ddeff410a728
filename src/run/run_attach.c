/* SPDX-License-Identifier: MIT */
/* A running process (run/run_attach.h): every thread stopped outside the bytes to write
 * (run_stop.c), the syscalls run in the thread-group leader through the self-healing step
 * (run_heal.c), the others staying stopped until every byte is written.  What run says
 * about it is in run_attach_report.c. */
#include "run/run_attach.h"

#include "arch/inject.h"
#include "common/exit_status.h"
#include "common/message.h"
#include "run/run_attach_report.h"
#include "run/run_fit.h"
#include "run/run_heal.h"
#include "run/run_helper.h"
#include "run/run_page.h"
#include "run/run_reader_abi.h"
#include "run/run_refresher.h"
#include "run/run_stop.h"
#include "run/run_trace.h"
#include "run/run_vpatch.h"
#include "vdso/vdso.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The number of bytes run writes at a site: its jump's length (which may depend on the
 * site's alignment). */
static size_t site_len(const struct run_vpatch_site *site)
{
    uint8_t jump[32];
    return arch_inject_abs_jump(jump, sizeof jump, site->offset, 0);
}

/* The ranges of the target's vDSO no thread may stand in while it is written: every site's
 * bytes and the scratch bytes (a thread there may be on the self-healing way home of a run
 * killed mid-attach).  Their number. */
static size_t vdso_avoid(const struct run_vpatch_target *t, uint64_t scratch, size_t scratch_len,
                         struct run_avoid *a)
{
    size_t n = 0;
    for (size_t k = 0; k < t->nsites; k++)
        a[n++] = (struct run_avoid){t->base + t->sites[k].offset,
                                t->base + t->sites[k].offset + site_len(&t->sites[k]), false};
    if (scratch_len)
        a[n++] = (struct run_avoid){t->base + scratch, t->base + scratch + scratch_len, false};
    return n;
}

/* The scratch bytes of the target's vDSO (run_vpatch_scratch) and what they hold in a
 * pristine image: this process's own vDSO, the same kernel's image, whose bytes there are
 * zeros.  NULL when the images differ in size or there is no room. */
static const uint8_t *scratch_of(const struct run_vpatch_target *t, uint64_t *off, size_t *room)
{
    const struct vdso_live *mine = vdso_live();
    if (!t->image || !mine->present || mine->size != t->size ||
        !run_vpatch_scratch(mine->base, mine->size, off, room))
        return NULL;
    return (const uint8_t *)mine->base + *off;
}

/* The memfd run_vpatch made in the target becomes the data pages' home: opened through
 * /proc/PID/fd/N (the tracer may: root across users, and from outside the target's PID
 * namespace, where the target could not open anything of the helper's), the helper's pages
 * moved into it.  This helper's own memfd is then unused. */
struct adopt_ctx {
    struct run_page_header *page;
    bool line;
};

static bool adopt(pid_t pid, long fd_in_target, void *ctx, char *why, size_t whylen)
{
    const struct adopt_ctx *ac = ctx;
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%d/fd/%ld", (int)pid, fd_in_target);
    int to = open(path, O_RDWR | O_CLOEXEC);
    if (to < 0) {
        snprintf(why, whylen, "cannot open its new memfd (%s): %s", path, strerror(errno));
        return false;
    }
    bool ok = run_refresher_move(to, ac->page, ac->line, why, whylen);
    close(to);
    return ok;
}

/* The helper of run -p: what run_attach hands it. */
struct attach_helper {
    pid_t pid;
    const struct run_mode *mode;
    bool verbose, count;
    const char *output;
    int memfd, pidfd, report[2];
    struct run_page_header *page;
};

/* The injection proper, every thread stopped: the self-healing step set up in s->inj at
 * scratch_at, the vDSO patched through it, the step taken down. */
static enum run_vpatch_result attach_inject(const struct attach_helper *h, struct run_stopped *s,
                                            uint64_t scratch_at, const uint8_t *pristine,
                                            size_t room, char *how, size_t hl, char *why,
                                            size_t whylen)
{
    struct adopt_ctx ac = {.page = h->page, .line = !h->count};
    const struct run_vpatch_share share = {.adopt = adopt, .ctx = &ac};
    enum run_vpatch_result res;
    struct run_heal heal;
    int e = run_heal_begin(&heal, s->inj, scratch_at, pristine, room, &s->main_taken, why, whylen);
    if (e) {
        snprintf(how, hl, "%s", why);
        res = RUN_VPATCH_TRACE_FAILED;
    } else {
        struct run_process_page first;
        bool known = run_page_process(h->pid, h->page, &first);
        res = run_vpatch(s->inj, -1, &share, known ? &first : NULL, how, hl, &s->main_taken,
                         &heal);
    }
    run_heal_end(&heal);
    return res;
}

/* Patches the vDSO of h->pid, every thread stopped meanwhile, and says what came of it.
 * 0 when it is served, 1 when not (the process runs on as it was). */
static int attach_patch(const struct attach_helper *h)
{
    static struct run_stopped s;
    const pid_t pid = h->pid;
    char why[MSG_REASON] = "", how[MSG_REASON] = "";
    struct run_vpatch_target t;
    pid_t at = run_trace_live_thread(pid);
    enum run_vpatch_result res = run_vpatch_read(at ? at : pid, &t, how, sizeof how);
    uint64_t scratch = 0, region = 0;
    size_t room = 0;
    const uint8_t *pristine = scratch_of(&t, &scratch, &room);
    int e = EINVAL;
    if (res == RUN_VPATCH_OK && run_vpatch_region_of(&t, &region)) {
        run_attach_served_already(how, sizeof how, region, pid);
        res = RUN_VPATCH_ALREADY;
    } else if (res == RUN_VPATCH_OK && !pristine) {
        run_attach_no_scratch(how, sizeof how);
        res = RUN_VPATCH_UNKNOWN_LAYOUT;
    } else if (res == RUN_VPATCH_OK) {
        struct run_avoid avoid[RUN_ENTRIES + 1];
        size_t na = vdso_avoid(&t, scratch, room, avoid);
        e = run_stop_outside(pid, &s, avoid, na, why, sizeof why);
    }
    uint64_t base = t.base;
    free(t.image);
    if (res == RUN_VPATCH_OK && e) {
        run_attach_say_refusal(pid, e, why);
        return 1;
    }
    if (res == RUN_VPATCH_OK) {
        run_attach_say_interrupted(pid, &s, "to serve the process");
        res = attach_inject(h, &s, base + scratch, pristine, room, how, sizeof how, why,
                            sizeof why);
        run_stop_let_go(pid, &s);
    }
    if (res != RUN_VPATCH_OK) {
        run_attach_say_cannot(pid, "serve", how);
        return 1;
    }
    close(h->memfd); /* the pages live in the target's memfd (adopt) */
    if (h->verbose)
        run_attach_say_serving(pid, how, h->count);
    return 0;
}

/* The helper: prepares what to serve, patches, tells run how it went (status 0 or 1 on the
 * report pipe) and stays as the refresher until the process ends.  Never returns. */
static void attach_helper_main(void *ctx)
{
    const struct attach_helper *h = ctx;
    close(h->report[0]);
    run_helper_quiet_signals();
    int status = 1;
    char why[MSG_REASON] = "";
    if (!h->count && !run_refresher_prepare(h->memfd, h->page, h->mode, why, sizeof why)) {
        run_attach_say_not_served(h->pid, why);
        write(h->report[1], &status, sizeof status);
        _exit(0);
    }
    status = attach_patch(h);
    fflush(stderr);
    write(h->report[1], &status, sizeof status);
    close(h->report[1]);
    if (status)
        _exit(0);
    /* Run returns now: its caller's output must not stay open in the refresher (a
     * caller reading it to EOF would wait for the process to end), except for count
     * mode's table when it goes to stderr. */
    run_helper_drop_stdio(!h->count || h->output);
    char comm[64] = "";
    snprintf(comm, sizeof comm, "pid %d", (int)h->pid);
    struct run_refresher r = {.page = h->page, .lifeline = h->pidfd, .count = h->count,
                              .verbose = h->verbose && h->count && !h->output,
                              .output = h->output, .path = comm, .pid = h->pid};
    run_refresher_loop(&r);
    _exit(0);
}

int run_attach(pid_t pid, const struct run_mode *mode, bool verbose, const char *output)
{
    char why[MSG_REASON] = "";
    if (!arch_inject_supported(why, sizeof why) || !arch_inject_attach_supported(why, sizeof why) ||
        !run_fit_to_serve(pid, true, why, sizeof why) || !run_fit_to_touch(pid, why, sizeof why) ||
        !run_mode_vdso_servable(mode, false, why, sizeof why)) {
        run_attach_say_cannot(pid, "serve", why);
        return EXIT_FAILED;
    }
    bool count = mode->kind == RUN_MODE_COUNT;
    int memfd = run_helper_memfd(MFD_CLOEXEC);
    struct run_page_header *page = memfd >= 0 ? run_helper_map(memfd) : MAP_FAILED;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int report[2];
    if (page == MAP_FAILED || pidfd < 0 || pipe2(report, O_CLOEXEC) != 0) {
        run_attach_say_cannot(pid, "serve", pidfd < 0 ? "no such process" : strerror(errno));
        return EXIT_FAILED;
    }
    run_page_init(page, count);
    /* The helper: a grandchild, so that it outlives this command as the refresher. */
    const struct attach_helper h = {.pid = pid, .mode = mode, .verbose = verbose, .count = count,
                                    .output = output, .memfd = memfd, .pidfd = pidfd,
                                    .report = {report[0], report[1]}, .page = page};
    pid_t mid = run_helper_spawn(attach_helper_main, (void *)&h);
    close(report[1]);
    int status = 1;
    if (mid < 0 || read(report[0], &status, sizeof status) != (ssize_t)sizeof status)
        status = 1;
    return status;
}

/* The reader answers CLOCK_MONOTONIC_COARSE and CLOCK_REALTIME_COARSE with their fine
 * twins; the kernel's coarse clocks are the fine ones at the last tick, up to a tick
 * behind.  With every thread stopped, the undo waits until the kernel's coarse clocks have
 * passed the fine clocks of now, above every value served before the stop: a thread that
 * reads the kernel's coarse clock after the undo gets no less.  At most one tick
 * (1-10 ms), bounded at 100 ms.  No thread is stopped inside the reader (run_stop_outside),
 * where it would finish a read after the detach, with the fine clock of then. */
static void coarse_catch_up(void)
{
    static const clockid_t pair[][2] = {{CLOCK_MONOTONIC, CLOCK_MONOTONIC_COARSE},
                                        {CLOCK_REALTIME, CLOCK_REALTIME_COARSE}};
    enum { N = sizeof pair / sizeof pair[0] };
    struct timespec fine[N];
    for (size_t i = 0; i < N; i++) /* both first: one tick serves both */
        clock_gettime(pair[i][0], &fine[i]);
    for (size_t i = 0; i < N; i++) {
        for (int waited = 0; waited < 1000; waited++) {
            struct timespec coarse;
            clock_gettime(pair[i][1], &coarse);
            if (coarse.tv_sec > fine[i].tv_sec ||
                (coarse.tv_sec == fine[i].tv_sec && coarse.tv_nsec >= fine[i].tv_nsec))
                break;
            nanosleep(&(struct timespec){0, 100000}, NULL);
        }
    }
}

/* Whether the target's vDSO is this process's own image (mine) but at the entry points run
 * writes and, where there are scratch bytes, from them on (a run killed mid-attach may
 * leave its step there); *patched: how many entry points differ from mine. */
static bool undo_image_matches(const struct run_vpatch_target *t, const struct vdso_live *mine,
                               bool scratch_known, uint64_t scratch, int *patched)
{
    bool same = mine->present && mine->size == t->size;
    for (size_t off = 0; same && off < t->size; off++) {
        bool in_site = scratch_known && off >= scratch;
        for (size_t k = 0; k < t->nsites; k++)
            in_site |= off >= t->sites[k].offset && off < t->sites[k].offset + site_len(&t->sites[k]);
        if (!in_site && t->image[off] != ((const uint8_t *)mine->base)[off])
            same = false;
    }
    for (size_t k = 0; same && k < t->nsites; k++)
        if (memcmp(t->image + t->sites[k].offset, (const uint8_t *)mine->base + t->sites[k].offset,
                   site_len(&t->sites[k])))
            (*patched)++;
    return same;
}

/* Every thread stopped: the entry points get mine's bytes back, the scratch bytes (when
 * dirty_scratch) the pristine ones, and the refresher of the reader's region is told to
 * end.  0 or an errno value. */
static int undo_write(const struct run_stopped *s, const struct run_vpatch_target *t,
                      const struct vdso_live *mine, const uint8_t *dirty_scratch,
                      uint64_t scratch, size_t room, uint64_t region)
{
    int e = 0;
    for (size_t k = 0; k < t->nsites && !e; k++)
        e = run_trace_write(s->inj, t->base + t->sites[k].offset,
                            (const uint8_t *)mine->base + t->sites[k].offset, site_len(&t->sites[k]));
    if (!e && dirty_scratch)
        e = run_trace_write(s->inj, t->base + scratch, dirty_scratch, room);
    /* Tell the refresher of that region (the header page is shared with it) to end. */
    struct run_page_header h;
    if (!e && region &&
        !run_trace_read(s->inj, region + RUN_HEADER_OFFSET, &h, sizeof h) && h.magic == RUN_PAGE_MAGIC) {
        uint32_t flags = h.flags | RUN_FLAG_UNDONE;
        run_trace_write(s->inj, region + RUN_HEADER_OFFSET + offsetof(struct run_page_header, flags),
                        &flags, sizeof flags);
    }
    return e;
}

int run_undo(pid_t pid, bool verbose)
{
    char why[MSG_REASON] = "";
    if (!arch_inject_supported(why, sizeof why) || !arch_inject_attach_supported(why, sizeof why) ||
        !run_fit_to_serve(pid, false, why, sizeof why)) {
        run_attach_say_cannot(pid, "undo", why);
        return EXIT_FAILED;
    }
    const struct vdso_live *mine = vdso_live();
    struct run_vpatch_target t;
    char how[MSG_REASON] = "";
    pid_t at = run_trace_live_thread(pid);
    if (run_vpatch_read(at ? at : pid, &t, how, sizeof how) != RUN_VPATCH_OK) {
        run_attach_say_cannot(pid, "undo", how);
        return EXIT_FAILED;
    }
    /* The pristine bytes are this process's own vDSO (the same kernel image): the two
     * must agree everywhere but at the patched entry points. */
    int patched = 0, status = 1;
    uint64_t scratch = 0;
    size_t room = 0;
    const uint8_t *pristine = scratch_of(&t, &scratch, &room);
    bool same = undo_image_matches(&t, mine, pristine != NULL, scratch, &patched);
    bool scratch_dirty = pristine && memcmp(t.image + scratch, pristine, room) != 0;
    if (!same) {
        run_attach_say_not_ours(pid);
        goto out;
    }
    if (!patched && !scratch_dirty) {
        run_attach_say_pristine(pid);
        goto out;
    }
    static struct run_stopped s;
    /* And the reader: a thread stopped inside it would finish its read after the undo,
     * above the kernel's coarse clocks the catch-up below waits for.  Soft: a thread that
     * never leaves it (one that takes signals without pause runs its handlers and little
     * else) does not make the undo fail; its one read may then lie up to a tick above the
     * coarse clock it reads next (docs/run.md). */
    struct run_avoid avoid[RUN_ENTRIES + 2];
    size_t na = vdso_avoid(&t, scratch, pristine ? room : 0, avoid);
    uint64_t region = 0;
    if (run_vpatch_region_of(&t, &region))
        avoid[na++] = (struct run_avoid){region, region + RUN_READER_CODE_SIZE, true};
    int e = run_stop_outside(pid, &s, avoid, na, why, sizeof why);
    if (e) {
        run_attach_say_refusal(pid, e, why);
        goto out;
    }
    run_attach_say_interrupted(pid, &s, "to undo");
    coarse_catch_up();
    e = undo_write(&s, &t, mine, scratch_dirty ? pristine : NULL, scratch, room, region);
    run_stop_let_go(pid, &s);
    if (e) {
        run_attach_say_undo_failed(pid, e);
        goto out;
    }
    if (verbose)
        run_attach_say_undone(pid, patched);
    status = 0;
out:
    free(t.image);
    return status;
}
