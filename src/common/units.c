/* SPDX-License-Identifier: MIT */
#include "common/units.h"

#include <math.h>
#include <stdio.h>

const char *format_ns(double ns, char *buf, size_t len)
{
    double a = fabs(ns);
    if (!isfinite(ns))
        snprintf(buf, len, "-");
    else if (a >= 1e9)
        snprintf(buf, len, "%.2f s", ns / 1e9);
    else if (a >= 1e6)
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    else if (a >= 1e3)
        snprintf(buf, len, "%.2f \xc2\xb5s", ns / 1e3);
    else if (a >= 100)
        snprintf(buf, len, "%.0f ns", ns);
    else if (a >= 10)
        snprintf(buf, len, "%.1f ns", ns);
    else
        snprintf(buf, len, "%.2f ns", ns);
    return buf;
}
