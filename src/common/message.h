/* SPDX-License-Identifier: MIT */
/* The sizes of the buffers a message is built in: a refusal, an error, a reason, a line of a
 * report.  Every message is written with snprintf (or a helper that cuts the same way), so a
 * size is where a message is cut, never a limit it can overflow.  Each size is the longest
 * message of its kind, with room.  Buffers that hold data read from the machine (a /proc
 * line, a file's chunk) and libfastclock's, which mirror its public struct fastclock_info,
 * keep sizes of their own. */
#ifndef CLOCKSCOPE_COMMON_MESSAGE_H
#define CLOCKSCOPE_COMMON_MESSAGE_H

#include <limits.h>

/* A word or a figure with its unit: an id, a clocksource's name, a process's comm (16),
 * "12.3 ns". */
#define MSG_WORD 64

/* One line: a refusal or an error with the call and errno that caused it.  Fits a terminal
 * line three times over; a message longer than that should be a paragraph. */
#define MSG_LINE 256

/* A reason that quotes something: a line of the kernel's log, a list of the values allowed,
 * a command that was run. */
#define MSG_REASON 640

/* Several sentences: what a fix does and why, a summary with its evidence. */
#define MSG_PARAGRAPH 1400

/* A sentence around a path: the path may be as long as PATH_MAX. */
#define MSG_WITH_PATH (PATH_MAX + 512)

/* Pages of text: another program's stderr, a report, several paths with reasons. */
#define MSG_TEXT 8192

/* "/proc/<pid>/task/<tid>/<file>": two ids printed as longs (20 digits at most) and a short
 * file name such as "status" come to 59 bytes. */
#define MSG_PROC_PATH 64

#endif
