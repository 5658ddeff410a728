/* The shim removes itself from LD_PRELOAD at start, so that programs the target executes
 * run without it unless `clockscope run --inherit` asked otherwise. */
#include "shim/shim.h"

#include <stdlib.h>
#include <string.h>

void shim_strip_preload(const char *self)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre || !self)
        return;
    size_t len = strlen(pre);
    char *out = malloc(len + 1);
    char *copy = strdup(pre);
    if (!out || !copy) {
        free(out);
        free(copy);
        return;
    }
    out[0] = 0;
    /* ld.so separates entries by spaces or colons. */
    for (char *save = NULL, *tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
        if (strcmp(tok, self) == 0)
            continue;
        if (out[0])
            strcat(out, ":");
        strcat(out, tok);
    }
    if (out[0])
        setenv("LD_PRELOAD", out, 1);
    else
        unsetenv("LD_PRELOAD");
    free(out);
    free(copy);
}
