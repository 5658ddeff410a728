/* /init of the minimal initramfs of tools/doctor_vm/run.sh: mounts proc, sys, dev,
 * runs the doctor (JSON, then text) and powers off. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <unistd.h>
static void run(char *const argv[]) {
    pid_t p = fork();
    if (p == 0) { execv(argv[0], argv); _exit(127); }
    int st; waitpid(p, &st, 0);
    printf("[init] exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    fflush(stdout);
}
int main(void) {
    mount("proc", "/proc", "proc", 0, NULL);
    mount("sysfs", "/sys", "sysfs", 0, NULL);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    char *a[] = {"/clockscope", "doctor", "--json", NULL};
    run(a);
    char *b[] = {"/clockscope", "doctor", NULL};
    run(b);
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
