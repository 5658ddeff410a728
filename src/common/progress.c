/* SPDX-License-Identifier: MIT */
#include "common/progress.h"
#include "common/clock_ns.h"
#include "common/message.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void progress_init(struct progress *p, const char *cmd, bool asked)
{
    memset(p, 0, sizeof *p);
    p->f = stderr;
    p->cmd = cmd;
    p->tty = isatty(STDERR_FILENO) == 1;
    p->on = asked || p->tty;
    p->t0 = clock_ns_monotonic_s();
    p->last = -1;
}

void progress_format_duration(double s, char *buf, size_t len)
{
    if (!isfinite(s) || s < 0)
        s = 0;
    long t = lround(s);
    if (t < 60)
        snprintf(buf, len, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, len, t % 60 ? "%ld min %ld s" : "%ld min", t / 60, t % 60);
    else
        snprintf(buf, len, "%ld h %ld min", t / 3600, t % 3600 / 60);
}

static void say_v(struct progress *p, double fraction, double left_s, const char *fmt,
                  va_list ap)
{
    if (!p->on)
        return;
    double now = clock_ns_monotonic_s();
    if (fmt == p->last_fmt && p->last >= 0 && now - p->last < (p->tty ? 0.1 : 1.0) &&
        fraction - p->last_fraction < 0.01)
        return;
    p->last = now;
    p->last_fmt = fmt;
    p->last_fraction = fraction;
    char what[MSG_LINE];
    vsnprintf(what, sizeof what, fmt, ap);
    if (!(fraction >= 0))
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    double elapsed = now - p->t0;
    if (left_s < 0 && fraction >= 0.02)
        left_s = elapsed * (1 - fraction) / fraction;
    char left[48] = "";
    if (left_s >= 0) {
        char d[32];
        progress_format_duration(left_s, d, sizeof d);
        snprintf(left, sizeof left, ", about %s left", d);
    }
    fprintf(p->f, "%sclockscope %s: %s (%.0f%%%s)%s", p->tty ? "\r\033[K" : "", p->cmd, what,
            100 * fraction, left, p->tty ? "" : "\n");
    fflush(p->f);
    p->shown = p->tty;
}

void progress_say(struct progress *p, double fraction, double left_s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_v(p, fraction, left_s, fmt, ap);
    va_end(ap);
}

double progress_left_s(double elapsed_s, const struct progress_work *w)
{
    if (!(w->total_s > 0) || !(w->done_s >= 0.02 * w->total_s) || !(elapsed_s >= 0))
        return -1;
    double work_done = w->done_s - w->waits_done_s;
    double worked = elapsed_s - w->waits_done_s; /* the time the work (not the waits) took */
    double ratio = work_done > 0 && worked > 0 ? worked / work_done : 1;
    double waits_left = w->waits_s - w->waits_done_s;
    double work_left = w->total_s - w->done_s - waits_left;
    double left = (work_left > 0 ? work_left * ratio : 0) + (waits_left > 0 ? waits_left : 0);
    return left;
}

void progress_vsay_work(struct progress *p, const struct progress_work *w, const char *fmt,
                        va_list ap)
{
    if (!p->on)
        return;
    double left = progress_left_s(clock_ns_monotonic_s() - p->t0, w);
    say_v(p, w->total_s > 0 ? w->done_s / w->total_s : 0, left, fmt, ap);
}

void progress_say_work(struct progress *p, const struct progress_work *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_vsay_work(p, w, fmt, ap);
    va_end(ap);
}

void progress_clear(struct progress *p)
{
    if (p->on && p->tty && p->shown) {
        fprintf(p->f, "\r\033[K");
        fflush(p->f);
        p->shown = false;
        p->last = -1; /* redrawn at once */
    }
}

void progress_end(struct progress *p)
{
    if (!p->on)
        return;
    if (p->tty) {
        if (p->shown)
            fprintf(p->f, "\r\033[K");
    } else {
        char d[32];
        progress_format_duration(clock_ns_monotonic_s() - p->t0, d, sizeof d);
        fprintf(p->f, "clockscope %s: done in %s\n", p->cmd, d);
    }
    fflush(p->f);
    p->shown = false;
}
