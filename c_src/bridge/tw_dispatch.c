/* tw_dispatch.c - dispatch by function set, and the student's static variables, for the Python engine.
 *
 * Compiled into every student module (twentyone/players/c/build.py).  The course's 20 functions are
 * declared weak and hidden: a set the student did not write reads as a null pointer (tw_missing), and
 * no name is looked up outside the module, so two students' bet1 never meet.
 */
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
