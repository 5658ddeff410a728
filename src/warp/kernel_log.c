/* The calibration-line parser: no I/O, so the fuzz harness links this file alone. */
#include "warp/kernel_log.h"

#include <string.h>

/* "<digits>[.<up to 6 digits>] MHz" at p (within end) -> Hz, and the last digit's value. */
static bool parse_mhz(const char *p, const char *end, uint64_t *hz, uint64_t *step)
{
    uint64_t whole = 0, frac = 0, scale = 1000000;
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (++digits > 7) /* more than 9,999,999 MHz: not a clock */
            return false;
        whole = whole * 10 + (uint64_t)(*p++ - '0');
    }
    if (!digits)
        return false;
    if (p < end && *p == '.') {
        p++;
        int fd = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (++fd > 6)
                return false;
            scale /= 10;
            frac += (uint64_t)(*p++ - '0') * scale;
        }
        if (!fd)
            return false;
    }
    if (end - p < 4 || memcmp(p, " MHz", 4) != 0)
        return false;
    *hz = whole * 1000000 + frac;
    *step = scale;
    return *hz > 0;
}

static bool parse_line(const char *msg, size_t len, uint64_t *hz, bool *refined, uint64_t *step)
{
    static const char refined_text[] = "tsc: Refined TSC clocksource calibration: ";
    static const char detected_text[] = "tsc: Detected ";
    const char *end = msg + len;
    const char *p = memmem(msg, len, refined_text, strlen(refined_text));
    if (p) {
        *refined = true;
        return parse_mhz(p + strlen(refined_text), end, hz, step);
    }
    p = memmem(msg, len, detected_text, strlen(detected_text));
    if (p) {
        *refined = false;
        return parse_mhz(p + strlen(detected_text), end, hz, step);
    }
    return false;
}

bool kernel_log_tsc_line(const char *msg, size_t len, uint64_t *hz, bool *refined)
{
    uint64_t step;
    return parse_line(msg, len, hz, refined, &step);
}

uint64_t kernel_log_tsc_step_hz(const char *msg, size_t len)
{
    uint64_t hz, step;
    bool refined;
    return parse_line(msg, len, &hz, &refined, &step) ? step : 0;
}
