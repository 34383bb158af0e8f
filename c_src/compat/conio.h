/* conio.h - a POSIX stand-in for the parts of the DOS/Windows <conio.h> that course files use.
 *
 * getch() reads one key without echo, getche() one key with echo.  At a terminal the key is
 * read at once (non-canonical mode, restored afterwards); from a pipe or a file it is simply the
 * next character.  Line ends are skipped: on Windows the console key reader never sees the newline
 * that a scanf() before it left in stdin, so a course file's scanf("%d") then getche() reads the
 * key typed next, here too.  Everything is static inline, so a file that includes this needs nothing more
 * to link.  When the Python engine captures a strategy's input and output (tw_capture.h is
 * force-included, TW_CAPTURED), the terminal is never touched.
 */
#ifndef TW_COMPAT_CONIO_H
#define TW_COMPAT_CONIO_H

#include <stdio.h>
#include <termios.h>
#include <unistd.h>

static inline int tw_read_key(int echo)
{
#ifdef TW_CAPTURED
    (void)echo;
    return getchar();
#else
    struct termios old, raw;
    int c;
    if (!isatty(0) || tcgetattr(0, &old) != 0) {
        do c = getchar(); while (c == '\n' || c == '\r');
        return c;
    }
    fflush(stdout);
    raw = old;
    raw.c_lflag &= ~(tcflag_t)ICANON;
    if (!echo)
        raw.c_lflag &= ~(tcflag_t)ECHO;
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(0, TCSANOW, &raw);
    do c = getchar(); while (c == '\n' || c == '\r');
    tcsetattr(0, TCSANOW, &old);
    return c;
#endif
}

/* One key, not shown. */
static inline int getch(void) { return tw_read_key(0); }
/* One key, shown. */
static inline int getche(void) { return tw_read_key(1); }
static inline int _getch(void) { return tw_read_key(0); }
static inline int _getche(void) { return tw_read_key(1); }
/* No key is ever reported waiting: there is no keyboard buffer to peek at. */
static inline int kbhit(void) { return 0; }
static inline int _kbhit(void) { return 0; }

#endif
