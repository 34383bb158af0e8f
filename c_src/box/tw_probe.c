/* tw_probe.c - the hostile probe of `twentyone doctor`: a course mycodes.c that tries to get out of its box.
 *
 * The doctor (twentyone/players/sandbox/probes.py) builds it like any student's file and plays no match with
 * it: it starts a box for each attempt and sends one first_action1 whose tmpcards carry the attempt,
 * "NAME:ARGUMENT".  The probe answers 'Y' when the attempt worked and 'N' when the system refused it; a box
 * killed by the system-call filter held too.  The doctor believes none of it: it checks each attempt's effect
 * itself (the file unchanged, the process alive, no connection made, the lock unseen by a second box).
 */
#define _GNU_SOURCE 1
#include "mycodes.h"
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static int counter = 0;

int bet1(int N) { (void)N; counter++; return 10 * counter; }

static void tw_noop(int sig) { (void)sig; }

static char attempt(const char *name, const char *arg)
{
    int n = atoi(arg);
    if (!strcmp(name, "read")) {
        char buf[64];
        int fd = open(arg, O_RDONLY);
        return fd >= 0 && read(fd, buf, sizeof buf) > 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "stat")) {
        struct stat st;
        return stat(arg, &st) == 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "write")) {
        int fd = open(arg, O_WRONLY | O_TRUNC);
        return fd >= 0 && write(fd, "x", 1) == 1 ? 'Y' : 'N';
    }
    if (!strcmp(name, "create")) {
        int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL, 0644);
        return fd >= 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "kill")) return kill(n, SIGKILL) == 0 ? 'Y' : 'N';
    if (!strcmp(name, "killall")) return kill(-1, SIGKILL) == 0 ? 'Y' : 'N';
    if (!strcmp(name, "fork")) {
        pid_t p = fork();
        if (p == 0) _exit(0);
        return p > 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "exec")) {
        char *argv[] = { "true", NULL };
        execve(arg, argv, environ);
        return 'N';
    }
    if (!strcmp(name, "connect")) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons((unsigned short)n);
        a.sin_addr.s_addr = htonl(0x7F000001);
        return s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "ptrace")) return ptrace(PTRACE_ATTACH, n, 0, 0) == 0 ? 'Y' : 'N';
    if (!strcmp(name, "mem")) {
        char path[64];
        strcpy(path, "/proc/");
        strcat(path, arg);
        strcat(path, "/mem");
        return open(path, O_RDONLY) >= 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "prlimit")) {
        struct rlimit r = { 0, 0 };
        return prlimit(n, RLIMIT_NOFILE, &r, NULL) == 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "shm")) return shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600) >= 0 ? 'Y' : 'N';
    if (!strcmp(name, "env")) return environ && environ[0] ? 'Y' : 'N';
    if (!strcmp(name, "fds")) {
        for (int fd = 5; fd < 1024; fd++)
            if (fcntl(fd, F_GETFD) >= 0) return 'Y';
        return 'N';
    }
    if (!strcmp(name, "root")) return getuid() == 0 || geteuid() == 0 ? 'Y' : 'N';
    if (!strcmp(name, "statics")) return counter > 0 ? 'Y' : 'N'; /* a previous match's bet reached this one */
    /* Signals on the box's behalf: the kernel signals a descriptor's owner when I/O becomes possible on it.
     * Set on the request pipe, the engine's next request would send it. */
    if (!strcmp(name, "fsetown"))
        return fcntl(3, F_SETOWN, n) == 0 && fcntl(3, F_SETSIG, SIGKILL) == 0 &&
               fcntl(3, F_SETFL, fcntl(3, F_GETFL) | O_ASYNC) == 0 ? 'Y' : 'N';
    if (!strcmp(name, "setownex")) {
        struct f_owner_ex owner = { F_OWNER_PID, n };
        return fcntl(3, F_SETOWN_EX, &owner) == 0 && fcntl(3, F_SETSIG, SIGKILL) == 0 &&
               fcntl(3, F_SETFL, fcntl(3, F_GETFL) | O_ASYNC) == 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "fioasync")) {
        int on = 1;
        return ioctl(3, FIOSETOWN, &n) == 0 && ioctl(3, FIOASYNC, &on) == 0 ? 'Y' : 'N';
    }
    /* A mark other boxes could see: a lock far out in standard input, held for the rest of the match. */
    if (!strcmp(name, "lockset")) {
        struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = (off_t)1 << 44, .l_len = 1 };
        return fcntl(0, F_SETLK, &l) == 0 ? 'Y' : 'N';
    }
    if (!strcmp(name, "lockget")) {
        struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)1 << 44, .l_len = 1 };
        return fcntl(0, F_GETLK, &l) == 0 && l.l_type != F_UNLCK ? 'Y' : 'N';
    }
    if (!strcmp(name, "flockset")) return flock(0, LOCK_SH) == 0 ? 'Y' : 'N';
    if (!strcmp(name, "flockget")) return flock(0, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK ? 'Y' : 'N';
    /* Another process's CPU time: a channel between boxes running at once. */
    if (!strcmp(name, "cpuclock")) {
        struct timespec t;
        return clock_gettime((clockid_t)((~(unsigned)n << 3) | 2), &t) == 0 ? 'Y' : 'N';
    }
    /* Descriptors past the limit: 'Y' when more than n could be made. */
    if (!strcmp(name, "dup")) {
        int made = 0;
        while (made <= n && dup(0) >= 0) made++;
        return made > n ? 'Y' : 'N';
    }
    /* CPU past the match's limit: it spins until the kernel stops it. */
    if (!strcmp(name, "cpu")) {
        volatile unsigned long i = 0;
        for (;;) i++;
    }
    /* A sleep of n seconds: 'Y' when it took that long (sleeping should cost no one time). */
    if (!strcmp(name, "sleep")) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        sleep((unsigned)n);
        clock_gettime(CLOCK_MONOTONIC, &b);
        return b.tv_sec - a.tv_sec >= n - 1 && n > 1 ? 'Y' : 'N';
    }
    /* A nap no sleep call shows: a wall-clock timer, then a blocking read of the request pipe it interrupts. */
    if (!strcmp(name, "nap")) {
        struct sigaction sa;
        struct itimerval t;
        struct timespec a, b;
        char c;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = tw_noop;
        sigaction(SIGALRM, &sa, NULL);
        memset(&t, 0, sizeof t);
        t.it_value.tv_usec = 200000;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (setitimer(ITIMER_REAL, &t, NULL) != 0) return 'N';
        if (read(3, &c, 1) == 1) return '?';
        clock_gettime(CLOCK_MONOTONIC, &b);
        return (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) >= 150000000L ? 'Y' : 'N';
    }
    /* Its root folder holds something (the host's files are in view). */
    if (!strcmp(name, "rootdir")) {
        struct stat st;
        return stat("/etc", &st) == 0 || stat("/usr", &st) == 0 || stat("/tmp", &st) == 0 ? 'Y' : 'N';
    }
    return '?';
}

char first_action1(char *tmpcards, int len)
{
    char name[64], *arg;
    (void)len;
    strncpy(name, tmpcards, sizeof name - 1);
    name[sizeof name - 1] = 0;
    arg = strchr(name, ':');
    if (arg) *arg++ = 0;
    else arg = "";
    return attempt(name, arg);
}

char continue_action1(Player (*players)[]) { (void)players; return 's'; }
void show1(Banker *pbanker, Player (*players)[], int pNum, int N, int pos)
{
    (void)pbanker; (void)players; (void)pNum; (void)N; (void)pos;
}
