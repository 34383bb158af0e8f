"""A student's C file made ready to compile: read, checked to be a course file, its habits taken care of.

``prepare_source`` reads the file (a regular file of at most ``handin.MAX_SOURCE`` bytes), turns GBK or
UTF-8 text with any line ends into UTF-8 with LF ends, checks that it is C and a course file, switches
``#define PERSON`` off (with a warning; the student's file is never changed) and makes good what Windows
lets a file do (``windows_habits``).  Every pattern here is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.handin import read_file, source_text

__all__ = ["prepare_source", "windows_habits"]

# Possessive quantifiers (``*+``, ``++``) never give back what they took: each pattern is linear in the
# student's text (``int`` and 300,000 spaces took minutes with two adjacent ``\s*``).
_PERSON = re.compile(rb"^([ \t]*+#[ \t]*+define[ \t]++)PERSON\b", re.MULTILINE)
_COURSE_FUNCTION = re.compile(rb"\b(?:bet|first_action|continue_action|show)[1-5]\s*+\(")
#: ``return "h";``: an action written as a string (a beginner's slip: a char function then returns a pointer).
_STRING_ANSWER = re.compile(rb'\breturn[ \t]*+\(?+[ \t]*+"([hsdpiyHSDPIY])"')


def prepare_source(path: Path, warn: Callable[[str], None] | None = None) -> bytes:
    """Read a student's file and return the text to compile: UTF-8, LF endings, PERSON off.

    Raises PlayerSpecError with one line if the file cannot be read (it is read only when it is a regular file
    of at most ``handin.MAX_SOURCE`` bytes) or is not C.  Every pattern here is linear in the text.
    """
    raw = read_file(path, f"C file {str(path)!r}")
    if b"\0" in raw or not raw.strip():
        what = "empty" if not raw.strip() else "binary data"
        raise PlayerSpecError(f"{path} is not a C source file ({what})")
    text = source_text(raw)
    data = windows_habits(text.replace("\r\n", "\n").replace("\r", "\n").encode("utf-8"))
    if not _looks_like_c(text):
        raise PlayerSpecError(f"{path} is not C source (it defines no C function; "
                              "is it another language's file named .c?)")
    if not _COURSE_FUNCTION.search(data):
        raise PlayerSpecError(f"{path} is not a course mycodes.c file (no bet1..5, first_action1..5, "
                              "continue_action1..5 or show1..5 in it)")
    quoted = _STRING_ANSWER.search(data)
    if quoted is not None and warn is not None:
        line = data.count(b"\n", 0, quoted.start()) + 1
        letter = quoted.group(1).decode("ascii")
        warn(f"{path}:{line}: returns the string \"{letter}\" where the character '{letter}' is meant (single "
             "quotes): the function returns a pointer, and the engine reads a garbage letter")
    if _PERSON.search(data):
        # The macro is renamed, not commented out: the rest of the line (a comment, even one that
        # goes on to the next lines) stays as it was, and PERSON is simply not defined.
        data = _PERSON.sub(rb"\1TWENTYONE_PERSON_SWITCHED_OFF", data)
        if warn is not None:
            warn(f"{path}: #define PERSON is on; playing automatically from a copy (the file is not changed)")
    return data


#: An #include line's header name (possessive and bounded: linear in the text).
_INCLUDE = re.compile(rb'^([ \t]*+#[ \t]*+include[ \t]*+[<"])([^<>"\n]{1,80}+)([>"])', re.MULTILINE)
#: Headers a course file includes, by their name in lower case: Windows finds ``<Windows.h>`` or
#: ``"MyCodes.h"`` whatever the case, Linux only as written.
_CASELESS = {n.lower(): n for n in (b"twentyone.h", b"mycodes.h", b"conio.h", b"windows.h", b"stdio.h", b"stdlib.h",
                                    b"string.h", b"time.h", b"math.h", b"ctype.h", b"stdbool.h", b"limits.h")}


def windows_habits(data: bytes) -> bytes:
    """``data`` (a C file's text) with two Windows habits made good: the course's and the C library's headers
    included in any case (``#include <Windows.h>``, ``"MyCodes.h"``: Windows' file names are case-blind) are
    written as the files are named here, and a DOS end-of-file mark (^Z) after the last line is dropped."""
    tail = data.rstrip(b" \t\r\n\x1a")
    if b"\x1a" in data[len(tail):]:
        data = tail + b"\n"

    def fix(m: re.Match[bytes]) -> bytes:
        return m.group(1) + _CASELESS.get(m.group(2).lower(), m.group(2)) + m.group(3)

    return _INCLUDE.sub(fix, data)


_C_DEFINITION = re.compile(r"\b(?:int|char|void)\s*+\*?+\s*+\w++\s*+\([^()]*+\)\s*+\{")


def _looks_like_c(text: str) -> bool:
    """True when the text defines at least one C function (``int``, ``char`` or ``void`` name(...) {)."""
    return _C_DEFINITION.search(text) is not None
