/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the option parser (src/common/cli_parse.c): `make fuzz`, then
 * build/fuzz/fuzz_cli -max_total_time=60 CORPUS_DIR.  The input is an argument vector (words
 * separated by NUL or newline; the first byte picks a spec with arguments or one that runs a
 * command).  Whatever the words, the parser answers OK, HELP or ERROR with a message, and
 * what it accepts obeys the declarations. */
#include "common/cli.h"
#include "../unit/cli_sample.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    const struct cli_spec *spec = data[0] & 1 ? &t_command_spec : &t_spec;
    static char buf[4097];
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    char f0[] = "f";
    char *argv[34] = {f0};
    int argc = 1;
    for (char *w = buf; argc < 33;) {
        argv[argc++] = w;
        size_t n = strcspn(w, "\n");
        if (!w[n])
            break;
        w[n] = '\0';
        w += n + 1;
    }
    argv[argc] = NULL;
    struct t_opts o = {.count = 7, .mode = -1};
    char err[600] = "";
    int first = -1;
    enum cli_status st = cli_parse_status(spec, argc, argv, &o, &first, err, sizeof err);
    if (st == CLI_ERROR && !err[0])
        abort();
    if (st != CLI_OK)
        return 0;
    if (o.count < 1 || o.count > 100 || o.mode < -1 || o.mode > 1)
        abort();
    if (o.seconds != 0 && (o.seconds < 0.5 || o.seconds > 60))
        abort();
    if (o.nonly < 0 || o.nonly > 4 || o.nenv < 0 || o.nenv > 3 || (o.force && !o.save))
        abort();
    if ((o.root && (!o.root[0] || o.save || strchr(o.root, 'x'))) || (o.save && !o.save[0]))
        abort();
    for (int i = 0; i < o.nonly; i++)
        if (!o.only[i][0] || strchr(o.only[i], ',') || strchr(o.only[i], 'x'))
            abort();
    if (spec == &t_command_spec && (first < 1 || first >= argc))
        abort();
    if (spec == &t_spec && (o.nargs < 0 || o.nargs > 2))
        abort();
    return 0;
}
