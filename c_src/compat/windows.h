/* windows.h - a POSIX stand-in for the few parts of <windows.h> that course files use:
 * Sleep(ms), system("cls") / system("pause") made harmless, and the console calls used for
 * colours and cursor moves, which do nothing here.
 *
 * Sleep(ms) pauses for a human watching the course's program (the sleep itself is tw_compat.c, linked
 * into every program built with these headers).  When the Python engine captures a strategy
 * (tw_capture.h is force-included, TW_CAPTURED) nobody watches, so Sleep returns at once: a
 * Sleep(1000) in show1 would otherwise cost every match a minute or more.
 *
 * This header includes only standard C (no <unistd.h>), so a student's file sees no POSIX names
 * through it, as on Windows, where a global called pause, link or sleep compiles.
 */
#ifndef TW_COMPAT_WINDOWS_H
#define TW_COMPAT_WINDOWS_H

#include <stdlib.h>
#include <string.h>

typedef unsigned long DWORD;
typedef unsigned short WORD;
typedef int BOOL;
typedef void* HANDLE;
typedef struct { short X; short Y; } COORD;
typedef struct { DWORD dwSize; BOOL bVisible; } CONSOLE_CURSOR_INFO;
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#define STD_INPUT_HANDLE ((DWORD)-10)
#define STD_OUTPUT_HANDLE ((DWORD)-11)
#define STD_ERROR_HANDLE ((DWORD)-12)
#define FOREGROUND_BLUE 0x0001
#define FOREGROUND_GREEN 0x0002
#define FOREGROUND_RED 0x0004
#define FOREGROUND_INTENSITY 0x0008
#define BACKGROUND_BLUE 0x0010
#define BACKGROUND_GREEN 0x0020
#define BACKGROUND_RED 0x0040
#define BACKGROUND_INTENSITY 0x0080

#ifdef TW_CAPTURED
static inline void Sleep(DWORD ms) { (void)ms; }
#else
#ifdef __cplusplus
extern "C" {
#endif
/* Sleeps ms milliseconds (tw_compat.c). */
void tw_sleep_ms(unsigned long ms);
#ifdef __cplusplus
}
#endif
static inline void Sleep(DWORD ms) { tw_sleep_ms(ms); }
#endif
static inline HANDLE GetStdHandle(DWORD which) { (void)which; return (HANDLE)0; }
static inline BOOL SetConsoleTextAttribute(HANDLE h, WORD attr) { (void)h; (void)attr; return TRUE; }
static inline BOOL SetConsoleCursorPosition(HANDLE h, COORD pos) { (void)h; (void)pos; return TRUE; }
static inline BOOL SetConsoleCursorInfo(HANDLE h, const CONSOLE_CURSOR_INFO* info) { (void)h; (void)info; return TRUE; }
static inline BOOL SetConsoleTitleA(const char* title) { (void)title; return TRUE; }
#define SetConsoleTitle SetConsoleTitleA

/* system("cls"), system("pause") and the like do nothing; any other command runs as usual.
 * (When the Python engine captures a strategy, tw_capture.h already makes system() harmless.) */
#ifndef TW_CAPTURED
static inline int tw_system_compat(const char* cmd)
{
    static const char* const ignored[] = { "cls", "CLS", "pause", "PAUSE", "color", "COLOR", "mode", "MODE",
                                           "title", "TITLE" };
    if (cmd == NULL)
        return system(cmd);
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
        size_t n = strlen(ignored[i]);
        if (strncmp(cmd, ignored[i], n) == 0 && (cmd[n] == 0 || cmd[n] == ' '))
            return 0;
    }
    return system(cmd);
}
#define system(cmd) tw_system_compat(cmd)
#endif

#endif
