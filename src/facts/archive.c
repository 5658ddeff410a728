/* SPDX-License-Identifier: MIT */
/* Unpacking a sosreport archive for the doctor (archive.h). */
#include "common/message.h"
#include "facts/archive.h"
#include "common/subprocess.h"
#include "facts/facts.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The names `tar -t` may print, all of them: beyond this the archive is refused. */
#define LISTING_CAP (16u << 20)
#define MAX_MEMBERS 64

bool archive_is_archive(const char *path)
{
    static const char *const tails[] = {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        size_t t = strlen(tails[i]);
        if (n > t && strcmp(path + n - t, tails[i]) == 0)
            return true;
    }
    return false;
}

static bool is_fact_path(const char *p)
{
    for (int i = 0; i < F_COUNT; i++) {
        if (strcmp(p, fact_path(i)) == 0)
            return true;
        for (const char *const *a = fact_alt_paths(i); *a; a++)
            if (strcmp(p, *a) == 0)
                return true;
    }
    return false;
}

/* A top directory's name: plain characters only, not "." or "..", no leading '-' or '.'. */
static bool plain_component(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.' || s[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == '@';
        if (!ok)
            return false;
    }
    return true;
}

bool archive_member_wanted(const char *name, char *top, size_t toplen, bool *have_top)
{
    while (strncmp(name, "./", 2) == 0)
        name += 2;
    const char *slash = strchr(name, '/');
    size_t tn = 0;
    if (!is_fact_path(name)) {
        if (!slash || !plain_component(name, (size_t)(slash - name)) || !is_fact_path(slash + 1))
            return false;
        tn = (size_t)(slash - name);
    }
    if (tn >= toplen)
        return false;
    if (*have_top)
        return strlen(top) == tn && strncmp(top, name, tn) == 0;
    memcpy(top, name, tn);
    top[tn] = 0;
    *have_top = true;
    return true;
}

/* ---- removal, also from a signal handler: only async-signal-safe calls ---- */

struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Removes the directory at path (PATH_MAX bytes of buffer, len used) and all below it.
 * One file descriptor at a time: the directory is closed before a subdirectory is entered
 * (by extending path), so that few free descriptors still suffice.  Every pass over a
 * directory must remove something or the removal stops: a failing unlinkat (EMFILE,
 * EACCES, EROFS...) is never retried forever.  Returns whether path is gone. */
static bool remove_tree(char *path, size_t len, int depth)
{
    chmod(path, 0700); /* an unsearchable directory from the archive; path is a directory */
    char buf[4096] __attribute__((aligned(8)));
    for (bool progress = true; progress;) {
        progress = false;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            break;
        char sub[NAME_MAX + 1] = "";
        long n;
        while (!sub[0] && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct dirent64_raw *e = (struct dirent64_raw *)(buf + off);
                off += e->reclen;
                if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0)
                    continue;
                if (unlinkat(fd, e->name, 0) == 0)
                    progress = true;
                else if (errno == EISDIR && !sub[0] && depth < 64 &&
                         len + 1 + strlen(e->name) < PATH_MAX)
                    memcpy(sub, e->name, strlen(e->name) + 1);
            }
        close(fd);
        if (sub[0]) {
            size_t sl = strlen(sub);
            path[len] = '/';
            memcpy(path + len + 1, sub, sl + 1);
            if (remove_tree(path, len + 1 + sl, depth + 1))
                progress = true;
            path[len] = 0;
        }
    }
    return rmdir(path) == 0;
}

/* remove_tree() of dir (copied into buf, PATH_MAX bytes). */
static bool remove_dir(const char *dir, char *buf)
{
    size_t len = strlen(dir);
    if (len >= PATH_MAX)
        return false;
    memcpy(buf, dir, len + 1);
    return remove_tree(buf, len, 0);
}

/* What a signal handler needs: the one directory being used and tar's pid while it runs. */
static char cleanup_dir[PATH_MAX];
static volatile sig_atomic_t tar_pid;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction saved[sizeof cleanup_signals / sizeof cleanup_signals[0]];

static void on_signal(int sig)
{
    int saved_errno = errno;
    if (tar_pid > 0) {
        kill((pid_t)tar_pid, SIGKILL);
        waitpid((pid_t)tar_pid, NULL, 0);
    }
    static char path[PATH_MAX]; /* not archive_cleanup's: it may be the one interrupted */
    if (cleanup_dir[0])
        remove_dir(cleanup_dir, path);
    errno = saved_errno;
    /* SA_RESETHAND | SA_NODEFER: this ends the process as the signal would have. */
    raise(sig);
}

static void guard_signals(bool on)
{
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
        if (on) {
            struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND | SA_NODEFER};
            sigemptyset(&sa.sa_mask);
            sigaction(cleanup_signals[i], &sa, &saved[i]);
        } else {
            sigaction(cleanup_signals[i], &saved[i], NULL);
        }
    }
}

/* ---- tar ---- */

/* In the forked child: tar with every file it writes capped at ARCHIVE_MEMBER_MAX (past it
 * the kernel kills it with SIGXFSZ), no input, and its stderr on errfd. */
static _Noreturn void exec_tar(char *const argv[], int errfd, pid_t parent)
{
    subprocess_die_with_parent(parent);
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0) {
        rl.rlim_cur = ARCHIVE_MEMBER_MAX;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
            rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    signal(SIGXFSZ, SIG_DFL);
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(errfd, 2) < 0)
        _exit(127);
    execv(argv[0], argv);
    _exit(127);
}

/* Keeps the tail of what tar says on fd in err until it closes it, or kills tar at
 * ARCHIVE_TIMEOUT_MS.  Returns whether the deadline passed. */
static bool read_tar_stderr(int fd, pid_t pid, char *why, size_t whylen)
{
    if (whylen)
        why[0] = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char chunk[1024];
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = ARCHIVE_TIMEOUT_MS - ((t.tv_sec - t0.tv_sec) * 1000 +
                                          (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) {
            kill(pid, SIGKILL);
            return true;
        }
        /* poll, not select: a descriptor above FD_SETSIZE must not overflow an fd_set. */
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue;   /* the deadline is checked above */
        if (r < 0)
            return false;   /* never retried without progress */
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        subprocess_tail_append(why, whylen, chunk, (size_t)n);
    }
}

/* Runs tar (argv) with stdout and stdin on /dev/null, a file size limit, a deadline; the
 * tail of its stderr in err.  Returns its exit status, or -1 with why. */
static int run_tar_extract(char *const argv[], char *err, size_t errlen, char *why, size_t whylen)
{
    int pe[2];
    if (pipe2(pe, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        close(pe[0]);
        close(pe[1]);
        return -1;
    }
    if (pid == 0)
        exec_tar(argv, pe[1], parent);
    tar_pid = pid;
    close(pe[1]);
    bool timed_out = read_tar_stderr(pe[0], pid, err, errlen);
    close(pe[0]);
    int st = 0;
    subprocess_reap(pid, &st);
    tar_pid = 0;
    if (timed_out) {
        snprintf(why, whylen, "tar took longer than %d s", ARCHIVE_TIMEOUT_MS / 1000);
        return -1;
    }
    if (WIFSIGNALED(st)) {
        if (WTERMSIG(st) == SIGXFSZ)
            snprintf(why, whylen, "a member is larger than %u MiB (refused)",
                     ARCHIVE_MEMBER_MAX >> 20);
        else
            snprintf(why, whylen, "tar died of signal %d", WTERMSIG(st));
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One line of `tar -tv` (GNU or bsdtar): its member's type (the mode's first character:
 * '-' file, 'h' hard link, 'l' symbolic link, 'd', 'c', 'b', 'p'...) and its name, cut in
 * place: the last field, or the one before " -> " / " link to ".  Fact paths hold no
 * spaces, so a name that does is never wanted anyway. */
static char *verbose_name(char *line, char *type)
{
    *type = line[0];
    char *cut = *type == 'l' ? strstr(line, " -> ") : *type == 'h' ? strstr(line, " link to ")
                                                                   : NULL;
    if (cut)
        *cut = 0;
    char *space = strrchr(line, ' ');
    return space ? space + 1 : line;
}

/* Members extracted at all: files and links (which the reader resolves beneath the root).
 * A device node, FIFO or socket is never made: tar as root would create it, and opening
 * some devices has effects (a watchdog arms). */
static bool extractable_type(char type)
{
    return type == '-' || type == 'h' || type == 'l';
}

/* Lists the archive (`tar -tv`: names and types) and picks its facts: names into names[]
 * (pointers into *listing); a fact path that is a device, FIFO or directory in the archive
 * (any member of that name) is left out. */
static int select_members(const char *tar, const char *path, char **listing, char **names,
                          char *top, size_t toplen, char *why, size_t whylen)
{
    char *argv[] = {(char *)tar, "-t", "-v", "-f", (char *)path, NULL};
    char err[MSG_REASON], ewhy[MSG_LINE];
    size_t len;
    struct run_outcome oc;
    *listing = NULL;
    if (!run_capture_all(argv, ARCHIVE_TIMEOUT_MS, LISTING_CAP, listing, &len, err, sizeof err,
                         &oc, ewhy, sizeof ewhy)) {
        snprintf(why, whylen, "cannot run tar: %s", ewhy);
        return -1;
    }
    if (oc.timed_out || oc.truncated || oc.exit_status != 0) {
        char *nl = strrchr(err, '\n');
        if (nl && nl[1] == 0)
            *nl = 0;
        if (oc.timed_out)
            snprintf(why, whylen, "tar could not list it within %d s", ARCHIVE_TIMEOUT_MS / 1000);
        else if (oc.truncated)
            snprintf(why, whylen, "more than %u MiB of member names (refused)", LISTING_CAP >> 20);
        else
            snprintf(why, whylen, "tar cannot read it: %s", err[0] ? err : "(no message)");
        return -1;
    }
    int n = 0, nbad = 0;
    bool have_top = false;
    const char *bad[MAX_MEMBERS];
    for (char *line = *listing, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char type;
        char *name = verbose_name(line, &type);
        if (n >= MAX_MEMBERS || !archive_member_wanted(name, top, toplen, &have_top))
            continue;
        if (!extractable_type(type)) {
            if (nbad < MAX_MEMBERS)
                bad[nbad++] = name;
            continue;
        }
        /* A name listed twice (a later member replaces an earlier one) is named once:
         * tar extracts every member of that name. */
        bool dup = false;
        for (int i = 0; i < n && !dup; i++)
            dup = strcmp(names[i], name) == 0;
        if (!dup)
            names[n++] = name;
    }
    /* tar extracts every member of a name: one that is a device anywhere goes entirely. */
    int kept = 0;
    for (int i = 0; i < n; i++) {
        bool drop = false;
        for (int b = 0; b < nbad && !drop; b++)
            drop = strcmp(names[i], bad[b]) == 0;
        if (!drop)
            names[kept++] = names[i];
    }
    n = kept;
    if (n == 0)
        snprintf(why, whylen, "no facts in it (no facts-root path such as proc/cpuinfo or "
                              "sos_commands/kernel/dmesg at its top or one directory down)");
    return n;
}

bool archive_unpack(const char *path, struct archive_unpacked *u, char *why, size_t whylen)
{
    memset(u, 0, sizeof *u);
    char tar[PATH_MAX];
    if (subprocess_find_program("tar", tar, sizeof tar) != 0) {
        snprintf(why, whylen, "archive '%s': no tar program on PATH", path);
        return false;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "archive '%s': %s", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "archive '%s' is not a regular file", path);
        return false;
    }
    char *listing, *names[MAX_MEMBERS], top[256], msg[MSG_PARAGRAPH];
    int n = select_members(tar, path, &listing, names, top, sizeof top, msg, sizeof msg);
    if (n <= 0) {
        snprintf(why, whylen, "archive '%s': %s", path, msg);
        free(listing);
        return false;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(u->tmpdir, sizeof u->tmpdir, "%s/clockscope-sos-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    /* Before mkdtemp: a signal between the two must find the name to remove. */
    guard_signals(true);
    if (!mkdtemp(u->tmpdir)) {
        snprintf(why, whylen, "archive '%s': cannot create a temporary directory: %s", path,
                 strerror(errno));
        u->tmpdir[0] = 0;
        guard_signals(false);
        free(listing);
        return false;
    }
    snprintf(cleanup_dir, sizeof cleanup_dir, "%s", u->tmpdir);
    char *argv[8 + MAX_MEMBERS + 1];
    int a = 0;
    argv[a++] = tar;
    argv[a++] = "-x";
    argv[a++] = "--no-same-owner";
    argv[a++] = "--no-same-permissions";
    argv[a++] = "--no-recursion";
    argv[a++] = "-f";
    argv[a++] = (char *)path;
    argv[a++] = "-C";
    argv[a++] = u->tmpdir;
    for (int i = 0; i < n; i++)
        argv[a++] = names[i];
    argv[a] = NULL;
    char err[MSG_REASON];
    msg[0] = 0;
    int status = run_tar_extract(argv, err, sizeof err, msg, sizeof msg);
    free(listing);
    if (status != 0) {
        char *nl = strrchr(err, '\n');
        if (nl && nl[1] == 0)
            *nl = 0;
        snprintf(why, whylen, "archive '%s': %s", path,
                 status < 0 ? msg : err[0] ? err : "tar failed");
        archive_cleanup(u);
        return false;
    }
    snprintf(u->root, sizeof u->root, "%s%s%s", u->tmpdir, top[0] ? "/" : "", top);
    return true;
}

void archive_cleanup(struct archive_unpacked *u)
{
    if (u->tmpdir[0]) {
        static char path[PATH_MAX];
        if (!remove_dir(u->tmpdir, path))
            fprintf(stderr, "clockscope: cannot remove the temporary directory %s: %s\n",
                    u->tmpdir, strerror(errno));
        u->tmpdir[0] = 0;
        cleanup_dir[0] = 0;
        guard_signals(false);
    }
}

bool archive_load_root(const char *root, struct facts *fs, char *why, size_t whylen)
{
    if (!archive_is_archive(root))
        return facts_load_root(root, fs, why, whylen);
    struct archive_unpacked u;
    if (!archive_unpack(root, &u, why, whylen)) {
        memset(fs, 0, sizeof *fs);
        return false;
    }
    bool ok = facts_load_root(u.root, fs, why, whylen);
    archive_cleanup(&u);
    if (ok)
        snprintf(fs->origin, sizeof fs->origin, "%s", root);
    return ok;
}
