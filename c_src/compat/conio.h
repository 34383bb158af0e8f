/* conio.h - a POSIX stand-in for the parts of the DOS/Windows <conio.h> that students use. */
#ifndef TW_COMPAT_CONIO_H
#define TW_COMPAT_CONIO_H

#include <stdio.h>
#include <termios.h>
#include <unistd.h>

static inline int tw_read_key(int echo)
{
    struct termios old, raw;
    int c;
    if (!isatty(0))
        return getchar();
    tcgetattr(0, &old);
    raw = old;
    raw.c_lflag &= ~(tcflag_t)(ICANON | (echo ? 0 : ECHO));
    tcsetattr(0, TCSANOW, &raw);
    c = getchar();
    tcsetattr(0, TCSANOW, &old);
    return c;
}

/* One key, not shown. */
static inline int getch(void) { return tw_read_key(0); }
/* One key, shown. */
static inline int getche(void) { return tw_read_key(1); }
static inline int _getch(void) { return tw_read_key(0); }
static inline int _getche(void) { return tw_read_key(1); }
/* No key is ever waiting (there is no keyboard buffer to peek at). */
static inline int kbhit(void) { return 0; }

#endif
