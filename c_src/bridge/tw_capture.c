/* tw_capture.c - where a student's output goes: a per-match file with a size cap, never the terminal.
 *
 * tw_capture.h, force-included before the student's file (gcc -include), renames printf, puts, scanf,
 * system ... to the tw_ functions below; this file itself is compiled without it and calls real stdio.
 * Keyboard input reads end-of-file and system() does nothing, so a strategy never waits for a key.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tw_bridge.h"

static FILE *tw_out = NULL;
static long tw_cap = 0, tw_written = 0;

int tw_capture_open(const char *path, long cap)
{
    if (tw_out) fclose(tw_out);
    tw_out = fopen(path, "w");
    if (tw_out) setvbuf(tw_out, NULL, _IOLBF, 0); /* the file is complete at every line */
    tw_cap = cap;
    tw_written = 0;
    return tw_out ? 0 : -1;
}

int tw_capture_fd(int fd, long cap)
{
    /* Its own buffer: stdio need not ask fstat() for a size, which a confined process may not call. */
    static char buffer[4096];
    if (tw_out) fclose(tw_out);
    tw_out = fdopen(fd, "w");
    if (tw_out) setvbuf(tw_out, buffer, _IOLBF, sizeof buffer);
    tw_cap = cap;
    tw_written = 0;
    return tw_out ? 0 : -1;
}

void tw_capture_close(void)
{
    if (tw_out) fclose(tw_out);
    tw_out = NULL;
}

long tw_capture_written(void) { return tw_written; }

static int tw_emit(const char *s, size_t n)
{
    tw_written += (long)n;
    if (!tw_out) return (int)n;
    long room = tw_cap - (tw_written - (long)n);
    if (room <= 0) return (int)n;
    if ((long)n > room) n = (size_t)room;
    fwrite(s, 1, n, tw_out);
    return (int)n;
}

int tw_vprintf(const char *fmt, va_list ap)
{
    char buf[4096];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0) return n;
    tw_emit(buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
    return n;
}

int tw_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = tw_vprintf(fmt, ap);
    va_end(ap);
    return n;
}

int tw_puts(const char *s) { tw_emit(s, strlen(s)); tw_emit("\n", 1); return 1; }
int tw_putchar(int c) { char ch = (char)c; tw_emit(&ch, 1); return c; }

int tw_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = (f == stdout || f == stderr) ? tw_vprintf(fmt, ap) : vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int tw_fputs(const char *s, FILE *f) { if (f == stdout || f == stderr) return tw_puts(s) - 1; return fputs(s, f); }
int tw_fputc(int c, FILE *f) { if (f == stdout || f == stderr) return tw_putchar(c); return fputc(c, f); }

size_t tw_fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    if (f == stdout || f == stderr) { tw_emit((const char *)p, size * n); return n; }
    return fwrite(p, size, n, f);
}

int tw_scanf(const char *fmt, ...) { (void)fmt; return EOF; }
int tw_getchar(void) { return EOF; }
int tw_fflush(FILE *f) { if (f == stdout || f == stderr) return tw_out ? fflush(tw_out) : 0; return fflush(f); }
int tw_system(const char *cmd) { (void)cmd; return 0; }
