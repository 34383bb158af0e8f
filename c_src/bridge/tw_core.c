/* tw_core.c - the package's core glue: the course helpers of twentyone.c made callable on plain strings. */
#include <string.h>
#include "twentyone.h"
#include "tw_core.h"

int tw_calculate(const char *cards, int len)
{
    char buf[20] = { 0 };
    if (len > 19) len = 19;
    if (len < 0) len = 0;
    memcpy(buf, cards, (size_t)len);
    return calculate(&buf, len);
}
