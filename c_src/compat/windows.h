/* windows.h - a POSIX stand-in for the parts of <windows.h> that students use: Sleep, and
 * system("cls") / system("pause") made harmless. */
#ifndef TW_COMPAT_WINDOWS_H
#define TW_COMPAT_WINDOWS_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef unsigned long DWORD;
typedef int BOOL;
#ifndef TRUE
#define TRUE 1
#define FALSE 0
#endif

static inline void Sleep(DWORD ms) { usleep((useconds_t)ms * 1000u); }

#ifndef TW_CAPTURED
static inline int tw_system_compat(const char *cmd)
{
    if (cmd && (strcmp(cmd, "cls") == 0 || strcmp(cmd, "pause") == 0 || strcmp(cmd, "CLS") == 0))
        return 0;
    return system(cmd);
}
#define system(cmd) tw_system_compat(cmd)
#endif

#endif
