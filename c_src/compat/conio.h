/* conio.h - a POSIX stand-in for the parts of the DOS/Windows <conio.h> that course files use.
 *
 * getch() reads one key without echo, getche() one key with echo.  At a terminal the key is
 * read at once (non-canonical mode, restored afterwards); from a pipe or a file it is simply the
 * next character.  Line ends are skipped: on Windows the console key reader never sees the newline
 * that a scanf() before it left in stdin, so a course file's scanf("%d") then getche() reads the
 * key typed next, here too.  When the Python engine captures a strategy's input and output
 * (tw_capture.h is force-included, TW_CAPTURED), the terminal is never touched: a key is getchar(),
 * which reads end-of-file there, and everything here is static inline.
 *
 * This header includes only standard C: the key reader, which needs <termios.h> and <unistd.h>, is
 * tw_compat.c, compiled on its own and linked into every program built with these headers.  So a
 * student's file sees no POSIX names through it, as on Windows, where a global called pause, link or
 * sleep compiles.
 */
#ifndef TW_COMPAT_CONIO_H
#define TW_COMPAT_CONIO_H

#include <stdio.h>

#ifdef TW_CAPTURED
static inline int tw_read_key(int echo)
{
    (void)echo;
    return getchar();
}
#else
#ifdef __cplusplus
extern "C" {
#endif
/* One key from stdin, shown when echo is non-zero (tw_compat.c). */
int tw_read_key(int echo);
#ifdef __cplusplus
}
#endif
#endif

/* One key, not shown. */
static inline int getch(void) { return tw_read_key(0); }
/* One key, shown. */
static inline int getche(void) { return tw_read_key(1); }
static inline int _getch(void) { return tw_read_key(0); }
static inline int _getche(void) { return tw_read_key(1); }
/* No key is ever reported waiting: there is no keyboard buffer to peek at. */
static inline int kbhit(void) { return 0; }
static inline int _kbhit(void) { return 0; }

/* Visual Studio's scanf_s, sprintf_s, strcpy_s ...: every course file reaches them through here. */
#include "tw_msvc.h"

#endif
