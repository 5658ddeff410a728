/* SPDX-License-Identifier: MIT */
/* The framing that carries a guest command's stdout, stderr and exit status over the
 * serial console, which it shares with whatever the kernel prints.
 *
 * One frame is one text line:  "@CSVM1 <kind> <seq> <len> <fnv32 hex> <base64>\n"
 *   kind  'o' stdout bytes, 'e' stderr bytes, 'x' exit status (payload: decimal text),
 *         'm' a message from the guest's init (payload: text), 's' init started,
 *         'r' a sysfs write of vm --apply-fix the guest refused (payload: text).
 * seq counts frames from 0, so a lost or mangled frame is detected rather than silently
 * dropping output; len and the FNV-1a hash check the payload itself.  Base64 keeps binary
 * output (a vDSO image) intact through the tty layer, which rewrites "\n" as "\r\n". */
#ifndef CLOCKSCOPE_VM_FRAME_H
#define CLOCKSCOPE_VM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_TAG "@CSVM1 "
/* Payload bytes per frame: keeps each line short, so that a kernel message can only
 * ever interleave with (and be detected in) one small frame. */
#define FRAME_MAX_PAYLOAD 512
/* Longest encoded frame line, with its newline. */
#define FRAME_MAX_LINE (sizeof FRAME_TAG + 48 + 4 * ((FRAME_MAX_PAYLOAD + 2) / 3) + 2)

uint32_t frame_hash(const void *data, size_t len);

/* Encodes one frame (len <= FRAME_MAX_PAYLOAD) into line (FRAME_MAX_LINE bytes); returns
 * its length including the final newline. */
size_t frame_encode(char kind, uint64_t seq, const void *data, size_t len, char *line);

struct frame {
    char kind;
    uint64_t seq;
    size_t len;
    unsigned char data[FRAME_MAX_PAYLOAD + 1]; /* NUL-terminated for text kinds */
};

/* Where a console line holds a frame: returns 1 and fills f for a valid frame, 0 when
 * the line holds no frame tag, -1 when it holds a tag but the frame is malformed
 * (truncated, bad base64, wrong length or hash).  The tag may follow other text on the
 * line (a kernel message that did not end its line); a trailing "\r" is ignored. */
int frame_decode(const char *line, size_t n, struct frame *f);

#endif
