/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the console frame decoder of clockscope vm: `make fuzz`, then
 * build/fuzz/fuzz_vm_frame -max_total_time=60 CORPUS_DIR.  A decoded frame must re-encode
 * to exactly the frame part of its input (the encoding is canonical). */
#include "vm/frame.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct frame f;
    if (frame_decode((const char *)data, size, &f) != 1)
        return 0;
    if (f.len > FRAME_MAX_PAYLOAD)
        abort();
    char line[FRAME_MAX_LINE];
    size_t n = frame_encode(f.kind, f.seq, f.data, f.len, line);
    const char *tag = memmem(data, size, FRAME_TAG, strlen(FRAME_TAG));
    size_t rest = size - (size_t)(tag - (const char *)data);
    /* The input may end with "\r", "\n" or both (or neither) where the encoding has "\n". */
    if (rest < n - 1 || memcmp(tag, line, n - 1) != 0)
        abort();
    return 0;
}
