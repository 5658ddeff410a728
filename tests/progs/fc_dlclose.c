/* SPDX-License-Identifier: MIT */
/* libfastclock loaded with dlopen, read, and dlclose'd while its ticker thread runs (issue
 * 18): the library is linked -z nodelete, so its code stays mapped and the thread keeps
 * running; without it the thread would jump into unmapped code and the process die.
 *   fc_dlclose PATH/libfastclock.so    prints "ticking N" (threads named fastclock) and
 *                                      "alive" 300 ms after the dlclose */
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int tickers(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        n += fgets(name, sizeof name, f) && strcmp(name, "fastclock\n") == 0;
        fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    uint64_t (*mono)(void) = (uint64_t (*)(void))dlsym(h, "fastclock_monotonic_ns");
    if (!mono)
        return 1;
    struct timespec nap = {0, 10000000};
    int n = 0;
    for (int i = 0; i < 200 && !(n = tickers()); i++) {
        (void)mono();
        nanosleep(&nap, NULL);
    }
    printf("ticking %d\n", n);
    fflush(stdout);
    dlclose(h);
    struct timespec wait = {0, 300000000};
    nanosleep(&wait, NULL);
    printf("alive\n");
    return 0;
}
