/* tw_msvc.h - stand-ins for the "secure" functions of Microsoft's C library that Visual Studio makes
 * students use (it refuses scanf and strcpy until told otherwise): scanf_s, sprintf_s, strcpy_s,
 * strncpy_s, strcat_s and gets_s, each as the standard function it stands for, honouring the buffer
 * sizes given.  Without them a file written in Visual Studio does not link here.  Header-only and
 * standard C; conio.h includes it, and every course file reaches conio.h through twentyone.h.  A name the
 * file has already made a macro of (#define scanf_s scanf) is left alone.
 *
 * When the engine captures a strategy (TW_CAPTURED) its input is empty: scanf_s and gets_s read
 * end-of-file, as scanf and getchar do there.
 */
#ifndef TW_COMPAT_MSVC_H
#define TW_COMPAT_MSVC_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef sprintf_s
static inline int sprintf_s(char* buf, size_t size, const char* fmt, ...)
{
    va_list ap;
    int n;
    if (buf == NULL || size == 0)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
#endif

#ifndef strcpy_s
static inline int strcpy_s(char* dest, size_t size, const char* src)
{
    if (dest == NULL || size == 0 || src == NULL)
        return 22; /* EINVAL */
    if (strlen(src) >= size) {
        dest[0] = '\0';
        return 34; /* ERANGE */
    }
    memcpy(dest, src, strlen(src) + 1);
    return 0;
}
#endif

#ifndef strncpy_s
static inline int strncpy_s(char* dest, size_t size, const char* src, size_t count)
{
    size_t n;
    if (dest == NULL || size == 0 || src == NULL)
        return 22;
    for (n = 0; n < count && src[n] != '\0'; n++)
        ;
    if (n >= size) {
        dest[0] = '\0';
        return 34;
    }
    memcpy(dest, src, n);
    dest[n] = '\0';
    return 0;
}
#endif

#ifndef strcat_s
static inline int strcat_s(char* dest, size_t size, const char* src)
{
    size_t have;
    if (dest == NULL || size == 0 || src == NULL)
        return 22;
    have = strlen(dest);
    if (have + strlen(src) >= size) {
        dest[0] = '\0';
        return 34;
    }
    memcpy(dest + have, src, strlen(src) + 1);
    return 0;
}
#endif

#ifdef TW_CAPTURED
#ifndef scanf_s
static inline int scanf_s(const char* fmt, ...) { (void)fmt; return EOF; }
#endif
#ifndef gets_s
static inline char* gets_s(char* buf, size_t size) { (void)buf; (void)size; return NULL; }
#endif
#else
#ifndef scanf_s
/* scanf_s: each conversion is read by scanf alone, so that the buffer size after a %s, %c or %[ pointer
 * is taken from the arguments and becomes the conversion's width (one less for the terminating zero). */
static inline int scanf_s(const char* fmt, ...)
{
    va_list ap;
    int assigned = 0;
    char piece[96];
    va_start(ap, fmt);
    while (*fmt != '\0') {
        const char* start = fmt;
        size_t len;
        int pos = -1, got, suppress = 0, width = 0;
        char conv;
        if (*fmt != '%' || fmt[1] == '%') { /* text to match, up to the next conversion */
            do
                fmt += (*fmt == '%') ? 2 : 1;
            while (*fmt != '\0' && (*fmt != '%' || fmt[1] == '%') && fmt - start < 80);
            len = (size_t)(fmt - start);
            memcpy(piece, start, len);
            memcpy(piece + len, "%n", 3);
            got = scanf(piece, &pos);
            if (got == EOF || pos < 0) {
                va_end(ap);
                return (got == EOF && assigned == 0) ? EOF : assigned;
            }
            continue;
        }
        fmt++;
        if (*fmt == '*') {
            suppress = 1;
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        while (*fmt != '\0' && strchr("hlLjztq", *fmt) != NULL)
            fmt++;
        conv = *fmt;
        if (conv == '[') {
            fmt++;
            if (*fmt == '^')
                fmt++;
            if (*fmt == ']')
                fmt++;
            while (*fmt != '\0' && *fmt != ']')
                fmt++;
        }
        if (*fmt != '\0')
            fmt++;
        len = (size_t)(fmt - start);
        if (len > 60)
            break;
        if (!suppress && (conv == 'c' || conv == 's' || conv == '[')) {
            void* p = va_arg(ap, void*);
            unsigned size = va_arg(ap, unsigned);
            const char* rest = start + 1;
            size_t limit = conv == 'c' ? size : (size > 0 ? size - 1 : 0);
            if (size == 0) {
                va_end(ap);
                return assigned;
            }
            while (*rest >= '0' && *rest <= '9')
                rest++;
            if (width == 0 || (size_t)width > limit)
                width = (int)(conv == 'c' && width == 0 ? 1 : limit);
            snprintf(piece, sizeof piece, "%%%d%.*s%%n", width, (int)(fmt - rest), rest);
            got = scanf(piece, p, &pos);
        } else if (suppress || conv == 'n') {
            memcpy(piece, start, len);
            memcpy(piece + len, "%n", 3);
            got = suppress ? scanf(piece, &pos) : (*va_arg(ap, int*) = 0, pos = 0, 0);
            if (suppress && pos < 0) {
                va_end(ap);
                return (got == EOF && assigned == 0) ? EOF : assigned;
            }
            continue;
        } else {
            void* p = va_arg(ap, void*);
            memcpy(piece, start, len);
            memcpy(piece + len, "%n", 3);
            got = scanf(piece, p, &pos);
        }
        if (got == EOF || got < 1) {
            va_end(ap);
            return (got == EOF && assigned == 0) ? EOF : assigned;
        }
        assigned++;
    }
    va_end(ap);
    return assigned;
}
#endif
#ifndef gets_s
static inline char* gets_s(char* buf, size_t size)
{
    size_t n = 0;
    int c;
    if (buf == NULL || size == 0)
        return NULL;
    while ((c = getchar()) != EOF && c != '\n')
        if (n + 1 < size)
            buf[n++] = (char)c;
    buf[n] = '\0';
    return (c == EOF && n == 0) ? NULL : buf;
}
#endif
#endif

#endif
