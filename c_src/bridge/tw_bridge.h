/* tw_bridge.h - what Python sees of every compiled student module (twentyone/players/c/module.py).
 *
 * cffi reads this file as its cdef, with the preprocessor lines dropped and the course's Player and
 * Banker typedefs taken from twentyone.h (twentyone/players/c/build.py, bridge_cdef).  The glue that
 * implements it is tw_dispatch.c and tw_capture.c, compiled into every student module (tw_serve.c, the
 * sandbox's serve loop, goes into the submission's box program instead).
 */
#ifndef TW_BRIDGE_H
#define TW_BRIDGE_H
#include <stddef.h>
#include <stdint.h>
#include "twentyone.h"

/* Bit w set when function w (0 bet, 1 first_action, 2 continue_action, 3 show) of set k is missing. */
int tw_missing(int k);
/* Function set k's four functions, called with the course's arguments. */
int tw_bet(int k, int N);
char tw_first_action(int k, char *tmpcards, int len);
char tw_continue_action(int k, Player *players);
void tw_show(int k, Banker *banker, Player *players, int pNum, int N, int pos);
/* The engine's calls of function set k in process (tw_dispatch.c): each on fresh zero-filled copies of n
 * packed records (n bytes of tmpcards, n Player structs, one Banker), with a crash caught.  The result is
 * the bet, the action as an unsigned char, or 0 for show; after a crash -(2^40) - the signal's number. */
long long tw_call_bet(int k, int N);
long long tw_call_first_action(int k, const char *tmpcards, int n, int len);
long long tw_call_continue_action(int k, const char *players, int n);
long long tw_call_show(int k, const char *banker, const char *players, int n, int pNum, int N, int pos);
/* Catch crashes in the calls above from now on (once per process); 0 when it holds. */
int tw_guard(void);
/* Where the last caught crash was: signal, faulting address, the module's load address, the instruction
 * pointer, then the stack's return addresses (as c_src/box/tw_box.c reports them); the number of words. */
int tw_crash_report(uint64_t *words, int max);
/* The student's static variables: up to max (address, length) ranges, their number returned. */
int tw_segments(uintptr_t *addr, size_t *len, int max);
/* Everything the student's code prints goes to path, at most cap bytes (tw_capture.h renames stdio). */
int tw_capture_open(const char *path, long cap);
/* The same on an open descriptor (a sandboxed child's capture file, opened by the engine); it is taken over. */
int tw_capture_fd(int fd, long cap);
void tw_capture_close(void);
long tw_capture_written(void);

#endif
