/* SPDX-License-Identifier: MIT */
/* A program that opens its data file first thing, so that when it is started with stderr
 * closed (`2>&-`) the file becomes fd 2; then reads the clock, writes a line of its own and
 * keeps the file open to the end.  With a second argument it changes to that directory
 * before exiting (a relative --output must still land where it was named). */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: stderr_reuser DATAFILE [DIR]\n");
        return 2;
    }
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return 1;
    struct timespec t;
    for (int i = 0; i < 1000; i++)
        clock_gettime(CLOCK_MONOTONIC, &t);
    dprintf(fd, "own data on fd %d\n", fd);
    if (argc > 2 && chdir(argv[2]) != 0)
        return 1;
    return 0;
}
