/* tw_core.h - what the package's own compiled core (twentyone._core) adds to tw_rng.h for Python.
 *
 * cffi reads tw_rng.h and this file as the core's cdef, preprocessor lines dropped
 * (twentyone/_core_build.py); twentyone/core.py is the only module that calls them.
 */
#ifndef TW_CORE_H
#define TW_CORE_H

/* The course's calculate (twentyone.c) on a plain string of at most 19 cards: the C side of a cross-check. */
int tw_calculate(const char *cards, int len);

#endif
