/* tw_capture.h - force-included (gcc -include) before a student's mycodes.c when the Python
 * engine loads it.  It sends everything the file prints to a per-match log file with a size cap,
 * and makes keyboard input read end-of-file, so a strategy never writes to the terminal or waits
 * for a key.  The course's own headers and the student's file are not changed.
 *
 * It defines no feature-test macro: the student's file sees the names its compile flags allow (C99's
 * and POSIX's, STUDENT_C_FLAGS in twentyone/players/c/build.py), not glibc's index or random.  A file
 * that defines _GNU_SOURCE (or another feature-test macro) itself, too late to count after this
 * header's <stdio.h>, is given -D_GNU_SOURCE by the build.
 */
#ifndef TW_CAPTURE_H
#define TW_CAPTURE_H

#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
int tw_printf(const char *fmt, ...);
int tw_vprintf(const char *fmt, va_list ap);
int tw_puts(const char *s);
int tw_putchar(int c);
int tw_fprintf(FILE *f, const char *fmt, ...);
int tw_fputs(const char *s, FILE *f);
int tw_fputc(int c, FILE *f);
size_t tw_fwrite(const void *p, size_t size, size_t n, FILE *f);
int tw_scanf(const char *fmt, ...);
int tw_getchar(void);
int tw_fflush(FILE *f);
int tw_system(const char *cmd);
#ifdef __cplusplus
}
#endif

#define printf(...) tw_printf(__VA_ARGS__)
#define vprintf(fmt, ap) tw_vprintf(fmt, ap)
#define puts(s) tw_puts(s)
#define putchar(c) tw_putchar(c)
#define fprintf(...) tw_fprintf(__VA_ARGS__)
#define fputs(s, f) tw_fputs(s, f)
#define fputc(c, f) tw_fputc(c, f)
#define putc(c, f) tw_fputc(c, f)
#define fwrite(p, s, n, f) tw_fwrite(p, s, n, f)
#define scanf(...) tw_scanf(__VA_ARGS__)
#define getchar() tw_getchar()
#define fflush(f) tw_fflush(f)
#define system(cmd) tw_system(cmd)
#define TW_CAPTURED 1

#endif
