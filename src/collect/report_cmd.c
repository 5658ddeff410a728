/* SPDX-License-Identifier: MIT */
/* clockscope report: hands over to the Python package clockscope_report (report/ in the
 * source tree), which runs on the analyst's machine.  This command only finds python3 and
 * the package, and says what to install when either is missing. */
#include "commands.h"
#include "common/environment.h"
#include "common/exit_status.h"
#include "common/subprocess.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Run by python3 -c: puts the package's directory (argv[1], empty when it should be
 * importable from the installed site-packages) first on sys.path instead of the current
 * directory, so that a clockscope_report lying in the current directory is never run. */
#define EXIT_MISSING_DEPENDENCY_TEXT "7" /* EXIT_MISSING_DEPENDENCY, spelled in Python */
_Static_assert(EXIT_MISSING_DEPENDENCY == 7, "the bootstrap's status");

static const char bootstrap[] =
    "import sys\n"
    "d = sys.argv.pop(1)\n"
    "sys.path[:1] = [d] if d else []\n"
    "if sys.version_info < (3, 8):\n"
    "    sys.stderr.write('clockscope report: needs Python 3.8 or newer; this python3 is %s\\n'"
    " % sys.version.split()[0])\n"
    "    sys.exit(" EXIT_MISSING_DEPENDENCY_TEXT ")\n"
    "try:\n"
    "    from clockscope_report.cli import main\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('clockscope report: the Python package clockscope_report cannot be "
    "imported (%s).\\n  install it: python3 -m pip install ./report   (from the clockscope "
    "source tree), or make install\\n' % e)\n"
    "    sys.exit(" EXIT_MISSING_DEPENDENCY_TEXT ")\n"
    "sys.argv[0] = 'clockscope report'\n"
    "sys.exit(main())\n";

static bool is_package_dir(const char *dir)
{
    char init[PATH_MAX + 64];
    struct stat st;
    if ((size_t)snprintf(init, sizeof init, "%s/clockscope_report/__init__.py", dir) >= sizeof init)
        return false;
    return stat(init, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory holding clockscope_report/: $CLOCKSCOPE_REPORT_PATH, the source tree's
 * report/ above the binary (build/clockscope, build/san/clockscope), or the installed
 * PREFIX/share/clockscope/report beside PREFIX/bin.  Empty: none (importable, perhaps). */
static void find_package(char *out, size_t len)
{
    out[0] = '\0';
    const char *env = getenv(ENV_REPORT_PATH);
    if (env && env[0]) {
        snprintf(out, len, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';                      /* exe is now the binary's directory */
    static const char *const relative[] = {"../report", "../../report", "../../../report",
                                           "../share/clockscope/report"};
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++) {
        char dir[PATH_MAX + 64];
        if ((size_t)snprintf(dir, sizeof dir, "%s/%s", exe, relative[i]) >= sizeof dir)
            continue;
        char real[PATH_MAX];
        if (is_package_dir(dir) && realpath(dir, real)) {
            snprintf(out, len, "%s", real);
            return;
        }
    }
}

int cmd_report(int argc, char **argv)
{
    char python[PATH_MAX];
    const char *py_env = getenv(ENV_PYTHON);
    const char *py = py_env && py_env[0] ? py_env : "python3";
    if (subprocess_find_program(py, python, sizeof python) != 0) {
        fprintf(stderr,
                "clockscope report: %s not found: the report is made by a Python package "
                "(report/ in the source tree).\n"
                "  install Python 3 and matplotlib, e.g.: apt install python3 python3-matplotlib\n"
                "  (or make the report on another machine: the bundles are plain JSON files)\n",
                py);
        return EXIT_MISSING_DEPENDENCY;
    }
    char pkg[PATH_MAX];
    find_package(pkg, sizeof pkg);
    /* python3 -c BOOTSTRAP PKGDIR ARGS... */
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) {
        fprintf(stderr, "clockscope report: out of memory\n");
        return EXIT_FAILED;
    }
    int k = 0;
    args[k++] = python;
    args[k++] = "-c";
    args[k++] = (char *)bootstrap;
    args[k++] = pkg;
    for (int i = 1; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;
    execv(python, args);
    fprintf(stderr, "clockscope report: cannot run %s: %s\n", python, strerror(errno));
    free(args);
    return EXIT_MISSING_DEPENDENCY;
}
