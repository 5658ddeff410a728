/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the vDSO ELF parser: `make fuzz`, then
 * build/fuzz/fuzz_vdso_elf -max_total_time=60 CORPUS_DIR (seed it with `clockscope vdso --dump`). */
#include "vdso/vdso_elf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vdso_image img;
    char err[160];
    if (!vdso_parse(data, size, &img, err, sizeof err))
        return 0;
    volatile size_t sink = vdso_is_kernel_image(&img, err, sizeof err) ? 1 : strlen(err);
    for (size_t i = 0; i < img.nsyms; i++) {
        struct vdso_symbol s;
        if (vdso_symbol_at(&img, i, &s))
            sink += strlen(s.name) + (s.version ? strlen(s.version) : 0);
    }
    struct vdso_symbol s;
    sink += vdso_lookup(&img, "__vdso_clock_gettime", "LINUX_2.6", &s);
    (void)sink;
    return 0;
}
