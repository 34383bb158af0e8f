/* tw_compat.c - the parts of the <conio.h> and <windows.h> stand-ins (this folder) that need POSIX
 * headers: the terminal key reader behind getch()/getche() and the sleep behind Sleep().
 *
 * They are compiled here, on their own, so the headers a student's file includes stay standard C: on
 * Windows <conio.h> and <windows.h> bring no pause(), link() or sleep(), and a student's globals of
 * those names compile there, so they must here too.  Every program built with the stand-ins links
 * this file: the course's C program (make c-program) and the engine's modules and box programs
 * (twentyone/players/c/build.py, with the glue).  Under TW_CAPTURED (the engine's builds) the
 * headers never call it: a key is getchar() there and Sleep returns at once.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "conio.h"
#include "windows.h"

int tw_read_key(int echo)
{
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
}

void tw_sleep_ms(unsigned long ms)
{
    struct timespec left = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        continue;
}
