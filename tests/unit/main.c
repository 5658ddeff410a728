#include "check.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TESTS 512

static struct {
    const char *name;
    void (*fn)(void);
} tests[MAX_TESTS];
static int ntests;
bool check_current_failed;

void check_register(const char *name, void (*fn)(void))
{
    if (ntests < MAX_TESTS)
        tests[ntests++] = (__typeof__(tests[0])){name, fn};
}

void check_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", file, line, what);
    check_current_failed = true;
}

static bool wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (!wanted(argc, argv, tests[i].name))
            continue;
        check_current_failed = false;
        tests[i].fn();
        if (check_current_failed) {
            failed++;
            printf("FAIL %s\n", tests[i].name);
        } else {
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
