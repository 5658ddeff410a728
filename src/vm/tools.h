/* Running the host's tools (apt-get, dpkg-deb, tar, gzip) without a shell. */
#ifndef CLOCKSCOPE_VM_TOOLS_H
#define CLOCKSCOPE_VM_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

/* Writes all n bytes, retrying after EINTR and short writes; false on an error. */
bool write_fully(int fd, const void *data, size_t n);

/* Appends n bytes to the NUL-terminated text in buf (capacity cap), keeping the last
 * cap-1 bytes: the tail of a stream, for error reports. */
void text_tail_append(char *buf, size_t cap, const char *p, size_t n);

/* Whether PROGRAM is an executable in $PATH (or, when it contains '/', that file). */
bool tool_exists(const char *program);

/* Runs argv in directory cwd (NULL: ours) with stdin from /dev/null.  stdout goes to
 * stdout_fd when >= 0; otherwise it is captured, with stderr, into out (NUL-terminated,
 * the last outlen-1 bytes kept).  With stdout_fd >= 0, stderr alone is captured.
 * Returns the exit status, or -1 when the program could not be run or died by a signal. */
int tool_run(char *const argv[], const char *cwd, int stdout_fd, char *out, size_t outlen);

/* Runs `left | right` (each argv in cwd), capturing both stderrs into err.  Returns 0
 * when both exit 0, else -1. */
int tool_pipe(char *const left[], char *const right[], const char *cwd, char *err, size_t errlen);

#endif
