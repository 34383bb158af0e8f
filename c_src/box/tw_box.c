/* tw_box.c - the program that plays one sandboxed match of a compiled C or C++ submission, then ends.
 *
 * twentyone/players/c/build.py links it with the student's objects into one program per submission, after
 * moving the student's initialisers (constructors, C++ static initialisers: .init_array, .ctors,
 * .preinit_array) into sections of their own and refusing anything else that would run before main
 * (.init/.fini code, ifunc resolvers).  So nothing of the student's runs before main() has confined the
 * process.  For every match the engine (twentyone/players/sandbox/box.py) has a box forked by the program's
 * fork server (below), or starts one afresh, with
 *   0 a pipe at end of file   1, 2 the match's capture file   3 the request pipe   4 the reply pipe
 * (each its own: no other process holds any of them but the engine)
 * and an empty environment, and writes the configuration (tw_confine.h) on the request pipe.  Then:
 *   1. confine (tw_confine): on failure an 'E' frame saying why, and exit status 90, before any student code;
 *   2. an 'H' frame whose value is the layers that hold, written before any student code;
 *   3. the student's initialisers, under a CPU-time limit of their own (TW_LOAD_USEC, or the decision's if
 *      longer: a profiling timer, as every call has), then a 'P' frame (ready);
 *   4. the match, served by tw_box_serve (tw_serve.c for the course), which never returns.
 * A crash, a forbidden system call (the filter raises SIGSYS) and a call past its CPU limit (SIGPROF) write a
 * 'C' frame (where it happened) before the process dies of its signal.
 *
 * Started as "box zygote ENGINE_PID" (descriptor 3 a socket), the program is the submission's fork server
 * instead (SANDBOX.md, "A fork server for boxes"): it loads what every box loads, once, and for each request
 * (five descriptors, the new box's 0 to 4) forks a child that forks the box and leaves, so that the box, an
 * orphan, is the engine's child (the engine is a subreaper while it asks); the box then goes on as one started
 * afresh, from reading its configuration.  The zygote itself never calls a line of the student's: main()
 * serves it before anything else, and nothing of the student's runs before main().
 * Frames are the 8-byte replies of twentyone/players/sandbox/wire.py: { char tag; char pad[3]; int value; }.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include "tw_confine.h"
#include "tw_box.h"

#define TW_REQUESTS 3
#define TW_REPLIES 4

typedef void (*tw_init_fn)(int, char **, char **);

/* The student's initialisers, moved here by the build (weak: a file may have none). */
extern tw_init_fn __start_tw_preinit_array[] __attribute__((weak, visibility("hidden")));
extern tw_init_fn __stop_tw_preinit_array[] __attribute__((weak, visibility("hidden")));
extern tw_init_fn __start_tw_init_array[] __attribute__((weak, visibility("hidden")));
extern tw_init_fn __stop_tw_init_array[] __attribute__((weak, visibility("hidden")));
extern tw_init_fn __start_tw_ctors[] __attribute__((weak, visibility("hidden")));
extern tw_init_fn __stop_tw_ctors[] __attribute__((weak, visibility("hidden")));

static int tw_read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* One frame in one write (a frame is never split between two writes, so the engine never waits for half). */
int tw_box_frame(int fd, char tag, int value, const char *text, size_t len)
{
    static char buf[8 + 8 * 64 + 4096];
    if (len > sizeof buf - 8) len = sizeof buf - 8;
    memset(buf, 0, 8);
    buf[0] = tag;
    memcpy(buf + 4, &value, sizeof value);
    if (text && len) memcpy(buf + 8, text, len);
    else len = 0;
    return write(fd, buf, 8 + len) == (ssize_t)(8 + len) ? 0 : -1;
}

static void tw_fail(const char *why)
{
    size_t n = strlen(why);
    tw_box_frame(TW_REPLIES, 'E', (int)n, why, n);
    _exit(90);
}

/* Where a crash happened, for the engine to name the source line (it maps the addresses with the program's
 * debug information, outside the box): a 'C' frame whose value is the number of 8-byte words that follow:
 * the signal, the faulting address, the program's load address, the instruction pointer, then the return
 * addresses of the stack.  Then the default action: the engine learns the signal itself from wait4.  Like
 * every frame it is the student's process's word: the engine only uses it to name a line of the file. */
#define TW_CRASH_WORDS 24
extern char __executable_start[];
static char tw_alt_stack[64 * 1024];

/* The serve loop's replies held back (tw_serve.c); a box program without one links none. */
void tw_box_flush(void) __attribute__((weak));

static void tw_crashed(int sig, siginfo_t *info, void *context)
{
    if (tw_box_flush) tw_box_flush(); /* the replies of the calls that did return, before the crash's report */
    uint64_t words[TW_CRASH_WORDS];
    int n = 0;
    void *frames[TW_CRASH_WORDS - 4];
    words[n++] = (uint64_t)sig;
    words[n++] = (uint64_t)(uintptr_t)info->si_addr;
    words[n++] = (uint64_t)(uintptr_t)__executable_start;
#if defined(__x86_64__)
    words[n++] = (uint64_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    words[n++] = (uint64_t)((ucontext_t *)context)->uc_mcontext.pc;
#else
    (void)context;
    words[n++] = 0;
#endif
    int depth = backtrace(frames, TW_CRASH_WORDS - 4);
    for (int i = 0; i < depth && n < TW_CRASH_WORDS; i++) words[n++] = (uint64_t)(uintptr_t)frames[i];
    tw_box_frame(TW_REPLIES, 'C', n, (const char *)words, (size_t)n * sizeof words[0]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Before confinement: the crash handlers on a stack of their own, and backtrace() run once so that the
 * unwinder it loads (libgcc_s) is loaded while files can still be opened. */
static void tw_catch_crashes(void)
{
    void *warm[2];
    backtrace(warm, 2);
    stack_t st;
    st.ss_sp = tw_alt_stack;
    st.ss_size = sizeof tw_alt_stack;
    st.ss_flags = 0;
    sigaltstack(&st, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = tw_crashed;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    int signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGPROF };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &sa, NULL);
}

static void tw_run_initialisers(void)
{
    static char *argv[] = { "twentyone-box", NULL };
    static char *envp[] = { NULL };
    if (__start_tw_preinit_array)
        for (tw_init_fn *f = __start_tw_preinit_array; f < __stop_tw_preinit_array; f++) (*f)(1, argv, envp);
    if (__start_tw_ctors) /* .ctors run last to first; 0 and -1 are markers */
        for (tw_init_fn *f = __stop_tw_ctors; f-- > __start_tw_ctors;)
            if (*f && *f != (tw_init_fn)-1) (*f)(1, argv, envp);
    if (__start_tw_init_array)
        for (tw_init_fn *f = __start_tw_init_array; f < __stop_tw_init_array; f++) (*f)(1, argv, envp);
}

/* The CPU time the student's initialisers may take (or a decision's, if longer): counted on the process's own
 * CPU clock, so that whether a constructor is too slow never depends on the machine's load. */
#define TW_LOAD_USEC 1000000L

static void tw_arm_load(long decision_usec)
{
    long usec = decision_usec > TW_LOAD_USEC ? decision_usec : TW_LOAD_USEC;
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = usec / 1000000;
    t.it_value.tv_usec = usec % 1000000;
    setitimer(ITIMER_PROF, &t, NULL);
}

/* The fork server (see the head of this file).  Returns in each new box, its descriptors 0 to 4 in place and
 * no other; the zygote itself only ever ends, when the engine's end of its socket closes or, checked every
 * second, when the engine is no longer its parent. */
static void tw_zygote(long engine)
{
    if (engine && getppid() != (pid_t)engine) _exit(0);
    void *warm[2];
    backtrace(warm, 2); /* the unwinder a crash report needs, loaded once for every box */
    for (;;) {
        struct pollfd p = { 3, POLLIN, 0 };
        int r = poll(&p, 1, 1000);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) _exit(0);
        if (r == 0) {
            if (engine && getppid() != (pid_t)engine) _exit(0);
            continue;
        }
        char msg[16];
        union { char buf[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } u;
        struct iovec io = { msg, sizeof msg };
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = &io;
        mh.msg_iovlen = 1;
        mh.msg_control = u.buf;
        mh.msg_controllen = sizeof u.buf;
        ssize_t n = recvmsg(3, &mh, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(0);
        int fds[8], nfds = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                if (nfds < 8) fds[nfds++] = fd;
                else close(fd);
            }
        }
        int32_t got = -1;
        int pp[2];
        if (nfds == 5 && msg[0] == 'S' && !(mh.msg_flags & MSG_CTRUNC) && pipe2(pp, O_CLOEXEC) == 0) {
            pid_t middle = fork();
            if (middle == 0) {
                pid_t box = fork();
                if (box != 0) {
                    int32_t b = box > 0 ? (int32_t)box : -1;
                    if (write(pp[1], &b, sizeof b) != sizeof b) _exit(1);
                    _exit(0);
                }
                int high[5];
                for (int i = 0; i < 5; i++) high[i] = fcntl(fds[i], F_DUPFD, 16); /* out of the way of 0 to 4 */
                for (int i = 0; i < 5; i++) close(fds[i]);
                for (int i = 0; i < 5; i++) {
                    if (high[i] < 0 || dup2(high[i], i) != i) _exit(91);
                    close(high[i]);
                }
                close(pp[0]);
                close(pp[1]);
                return; /* the box: main() goes on */
            }
            close(pp[1]);
            if (middle > 0) {
                while (waitpid(middle, NULL, 0) < 0 && errno == EINTR) {}
                int32_t b;
                if (read(pp[0], &b, sizeof b) == sizeof b) got = b; /* now the engine's child */
            }
            close(pp[0]);
        }
        for (int i = 0; i < nfds; i++) close(fds[i]);
        if (send(3, &got, sizeof got, MSG_NOSIGNAL) != sizeof got) _exit(0);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "zygote")) tw_zygote(argc >= 3 ? strtol(argv[2], NULL, 10) : 0);
    static tw_box_config cfg;
    static char root[TW_BOX_MAX_ROOT + 1];
    static unsigned char bpf[TW_BOX_MAX_BPF];
    if (tw_read_all(TW_REQUESTS, &cfg, sizeof cfg)) _exit(91);
    if (cfg.root_len > TW_BOX_MAX_ROOT || cfg.bpf_len > TW_BOX_MAX_BPF || cfg.extra_len != 0) tw_fail("bad configuration");
    if (tw_read_all(TW_REQUESTS, root, cfg.root_len) || tw_read_all(TW_REQUESTS, bpf, cfg.bpf_len)) _exit(91);
    root[cfg.root_len] = 0;
    tw_box_prepare(&cfg); /* what the serve loop sets up before confinement (its output) */
    tw_catch_crashes();
    char why[256];
    int layers = tw_confine(&cfg, root, bpf, cfg.bpf_len, why, sizeof why);
    if (layers < 0) tw_fail(why);
    if (tw_box_frame(TW_REPLIES, 'H', layers, NULL, 0)) _exit(92);
    tw_arm_load((long)cfg.decision_usec);
    tw_run_initialisers();
    if (tw_box_frame(TW_REPLIES, 'P', 0, NULL, 0)) _exit(92);
    tw_box_serve(TW_REQUESTS, TW_REPLIES, cfg.k, (long)cfg.decision_usec);
    _exit(0);
}
