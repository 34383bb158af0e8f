#define _GNU_SOURCE /* REG_RIP in ucontext_t */
/* tw_dispatch.c - dispatch by function set, and the student's static variables, for the Python engine.
 *
 * Compiled into every student module (twentyone/players/c/build.py).  The course's 20 functions are
 * declared weak and hidden: a set the student did not write reads as a null pointer (tw_missing), and
 * no name is looked up outside the module, so two students' bet1 never meet.
 *
 * The engine calls a set in process through tw_call_*: each call gets fresh zero-filled copies of what the
 * engine packed (as the sandbox's serve loop gives them, c_src/bridge/tw_serve.c), and a crash inside it
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) comes back to the engine as the call's result instead of
 * ending the process: the engine names the player, and the line from tw_crash_report.
 */
#include <execinfo.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "mycodes.h"
#include "tw_bridge.h"

/* The X-macro of the five function sets: X(k) for k = 1..5. */
#define TW_SETS(X) X(1) X(2) X(3) X(4) X(5)

#define TW_WEAK(k)                                                                                        \
    extern int bet##k(int N) __attribute__((weak, visibility("hidden")));                                 \
    extern char first_action##k(char *tmpcards, int len) __attribute__((weak, visibility("hidden")));     \
    extern char continue_action##k(Player (*players)[]) __attribute__((weak, visibility("hidden")));      \
    extern void show##k(Banker *pbanker, Player (*players)[], int pNum, int N, int pos)                   \
        __attribute__((weak, visibility("hidden")));
TW_SETS(TW_WEAK)

int tw_missing(int k)
{
    int m = 0;
    switch (k) {
#define TW_MISSING(k)                                                                                     \
    case k:                                                                                               \
        m = (bet##k ? 0 : 1) | (first_action##k ? 0 : 2) | (continue_action##k ? 0 : 4) | (show##k ? 0 : 8); \
        break;
    TW_SETS(TW_MISSING)
    default: m = 15;
    }
    return m;
}

int tw_bet(int k, int N)
{
    switch (k) {
#define TW_BET(k) case k: return bet##k(N);
    TW_SETS(TW_BET)
    }
    return 0;
}

char tw_first_action(int k, char *tmpcards, int len)
{
    switch (k) {
#define TW_FIRST(k) case k: return first_action##k(tmpcards, len);
    TW_SETS(TW_FIRST)
    }
    return 0;
}

char tw_continue_action(int k, Player *players)
{
    switch (k) {
#define TW_CONTINUE(k) case k: return continue_action##k((Player(*)[])players);
    TW_SETS(TW_CONTINUE)
    }
    return 0;
}

void tw_show(int k, Banker *banker, Player *players, int pNum, int N, int pos)
{
    switch (k) {
#define TW_SHOW(k) case k: show##k(banker, (Player(*)[])players, pNum, N, pos); return;
    TW_SETS(TW_SHOW)
    }
}

/* The student's objects are built first and their .data and .bss renamed to tw_data* and tw_bss, so
 * the linker's __start_/__stop_ symbols bound exactly their statics (and those of the course helpers
 * linked with them); Python snapshots these ranges right after loading and restores them per match. */
extern char __start_tw_data[] __attribute__((weak)), __stop_tw_data[] __attribute__((weak));
extern char __start_tw_data_rel[] __attribute__((weak)), __stop_tw_data_rel[] __attribute__((weak));
extern char __start_tw_bss[] __attribute__((weak)), __stop_tw_bss[] __attribute__((weak));

int tw_segments(uintptr_t *addr, size_t *len, int max)
{
    char *lo[3] = { __start_tw_data, __start_tw_data_rel, __start_tw_bss };
    char *hi[3] = { __stop_tw_data, __stop_tw_data_rel, __stop_tw_bss };
    int n = 0;
    for (int i = 0; i < 3 && n < max; i++) {
        if (!lo[i] || hi[i] <= lo[i]) continue;
        addr[n] = (uintptr_t)lo[i];
        len[n] = (size_t)(hi[i] - lo[i]);
        n++;
    }
    return n;
}

/* ---- the engine's guarded calls ------------------------------------------------------------------------- */

#define TW_MAX_PLAYERS 8
#define TW_MAX_TMPCARDS 64
#define TW_CRASH_WORDS 24
/* A guarded call's result after a crash: below any value a call returns (tw_bridge.h). */
#define TW_CRASHED (-(1LL << 40))

static const int tw_crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define TW_NSIGNALS ((int)(sizeof tw_crash_signals / sizeof tw_crash_signals[0]))
static struct sigaction tw_previous[TW_NSIGNALS];
static int tw_guarding;
static char tw_alt_stack[64 * 1024];
static __thread sigjmp_buf tw_jump;
static __thread volatile sig_atomic_t tw_inside;
static uint64_t tw_crash[TW_CRASH_WORDS];
static volatile int tw_crash_words;
extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));

static void tw_on_crash(int sig, siginfo_t *info, void *context)
{
    if (tw_inside) {
        /* the student's call crashed: note where (as the box does, c_src/box/tw_box.c) and go back to the call */
        void *frames[TW_CRASH_WORDS - 4];
        int n = 0;
        tw_inside = 0;
        tw_crash[n++] = (uint64_t)sig;
        tw_crash[n++] = (uint64_t)(uintptr_t)info->si_addr;
        tw_crash[n++] = (uint64_t)(uintptr_t)__ehdr_start;
#if defined(__x86_64__)
        tw_crash[n++] = (uint64_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
        tw_crash[n++] = (uint64_t)((ucontext_t *)context)->uc_mcontext.pc;
#else
        tw_crash[n++] = 0;
#endif
        int depth = backtrace(frames, TW_CRASH_WORDS - 4);
        for (int i = 0; i < depth && n < TW_CRASH_WORDS; i++) tw_crash[n++] = (uint64_t)(uintptr_t)frames[i];
        tw_crash_words = n;
        siglongjmp(tw_jump, sig);
    }
    /* Not a call of this module's student: the handler that was there before ours (another student's module,
     * Python's faulthandler, or the default action, which ends the process). */
    for (int i = 0; i < TW_NSIGNALS; i++) {
        if (tw_crash_signals[i] != sig) continue;
        struct sigaction *old = &tw_previous[i];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
            old->sa_sigaction(sig, info, context);
        } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
            old->sa_handler(sig);
        } else {
            signal(sig, SIG_DFL);
            raise(sig);
        }
        return;
    }
}

int tw_guard(void)
{
    if (tw_guarding) return 0;
    void *warm[2];
    backtrace(warm, 2); /* the unwinder it loads (libgcc_s) is loaded now, not in a signal handler */
    stack_t st;
    if (sigaltstack(NULL, &st) == 0 && (st.ss_flags & SS_DISABLE)) { /* a stack overflow needs a stack of its own */
        st.ss_sp = tw_alt_stack;
        st.ss_size = sizeof tw_alt_stack;
        st.ss_flags = 0;
        sigaltstack(&st, NULL);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = tw_on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < TW_NSIGNALS; i++)
        if (sigaction(tw_crash_signals[i], &sa, &tw_previous[i])) return -1;
    tw_guarding = 1;
    return 0;
}

int tw_crash_report(uint64_t *words, int max)
{
    int n = tw_crash_words < max ? tw_crash_words : max;
    memcpy(words, tw_crash, (size_t)n * sizeof words[0]);
    return n;
}

/* sigsetjmp without the signal mask (no system call): SA_NODEFER leaves the mask as it was in the handler. */
#define TW_GUARDED(call)                                                                                  \
    do {                                                                                                  \
        int tw_sig_ = sigsetjmp(tw_jump, 0);                                                              \
        if (tw_sig_) return TW_CRASHED - tw_sig_;                                                         \
        tw_inside = 1;                                                                                    \
        call;                                                                                             \
        tw_inside = 0;                                                                                    \
    } while (0)

long long tw_call_bet(int k, int N)
{
    volatile int value = 0;
    TW_GUARDED(value = tw_bet(k, N));
    return value;
}

long long tw_call_first_action(int k, const char *tmpcards, int n, int len)
{
    char copy[TW_MAX_TMPCARDS];
    volatile unsigned char value = 0;
    memset(copy, 0, sizeof copy);
    memcpy(copy, tmpcards, n < 0 ? 0 : n < TW_MAX_TMPCARDS ? (size_t)n : TW_MAX_TMPCARDS - 1);
    TW_GUARDED(value = (unsigned char)tw_first_action(k, copy, len));
    return value;
}

long long tw_call_continue_action(int k, const char *players, int n)
{
    Player copy[TW_MAX_PLAYERS];
    volatile unsigned char value = 0;
    memset(copy, 0, sizeof copy);
    memcpy(copy, players, (size_t)(n < 0 ? 0 : n < TW_MAX_PLAYERS ? n : TW_MAX_PLAYERS) * sizeof(Player));
    TW_GUARDED(value = (unsigned char)tw_continue_action(k, copy));
    return value;
}

long long tw_call_show(int k, const char *banker, const char *players, int n, int pNum, int N, int pos)
{
    Banker b;
    Player copy[TW_MAX_PLAYERS];
    memcpy(&b, banker, sizeof b);
    memset(copy, 0, sizeof copy);
    memcpy(copy, players, (size_t)(n < 0 ? 0 : n < TW_MAX_PLAYERS ? n : TW_MAX_PLAYERS) * sizeof(Player));
    TW_GUARDED(tw_show(k, &b, copy, pNum, N, pos));
    return 0;
}
