"""The build step of ``make c-program``: a student's file made ready for the course's C program.

``python -m twentyone.players.c.program MYCODES FOLDER`` writes into FOLDER (``build/c-program``):

- ``manual.c``: the file as it is, for the manual game (``./twentyone-c`` without arguments): with
  ``#define PERSON`` on, the student's functions ask at the keyboard, as in the course, and the program
  shows the table before each question in the course's words (``c_src/tw_person.c``).  Its text is
  turned into UTF-8 (a GBK file's prompts would be unreadable on a UTF-8 terminal), its ``#include <Windows.h>``
  and the like written as the headers are named here, a DOS end-of-file mark dropped; nothing else changes;
- ``auto.c``: the file as ``twentyone match`` compiles it (``source.prepare_source``: PERSON switched
  off by the same renaming, UTF-8 text, LF endings), for the automatic runs (``--seed ...``); the Makefile
  renames every global symbol of its object ``tw_auto_*`` so that both copies link into one program;
- ``main.flags``: the flags ``c_src/main.c`` is compiled with: ``-DTW_AUTO_OBJECT`` (the automatic runs
  play the ``tw_auto_*`` copy), and ``-DTW_PERSON_SWITCHED_OFF`` when PERSON was on (the program then says
  so once in every automatic run).

Both copies are compiled from FOLDER, so a quoted ``#include "twentyone.h"`` finds the project's header,
never a ``twentyone.h`` or ``mycodes.h`` the student keeps beside the file; each such header that differs
from the course's is named in a warning (``players.cheaders``).  A file that cannot be used (not C, no
function set) is one line and exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.handin import read_file
from twentyone.safetext import visible
from twentyone.players.c.source import prepare_source, windows_habits
from twentyone.players.c.headers import headers_beside, own_header_warnings

__all__ = ["prepare_program", "utf8_text", "main"]

PROG = "make c-program"


def utf8_text(raw: bytes) -> bytes:
    """A source file's bytes as UTF-8: a BOM dropped, GBK (Dev-C++ on a Chinese Windows) re-encoded; bytes that
    are neither are kept as they are."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        raw.decode("utf-8")
        return raw
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("gbk").encode("utf-8")
    except UnicodeDecodeError:
        return raw


def prepare_program(mycodes: Path, folder: Path) -> tuple[bool, list[str]]:
    """Write ``manual.c``, ``auto.c`` and ``main.flags`` for ``mycodes`` into ``folder``.

    Returns whether PERSON was switched off in ``auto.c``, and the warnings to show (one line each).
    Raises PlayerSpecError with one line if the file cannot be used.
    """
    said: list[str] = []
    auto = prepare_source(mycodes, said.append)
    person = bool(said)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manual.c").write_bytes(windows_habits(utf8_text(read_file(mycodes))))
    (folder / "auto.c").write_bytes(auto)
    flags = ["-DTW_AUTO_OBJECT"] + (["-DTW_PERSON_SWITCHED_OFF"] if person else [])
    (folder / "main.flags").write_text(" ".join(flags) + "\n", encoding="utf-8")
    warnings = own_header_warnings([(h.name, h) for h in headers_beside(mycodes)], str(mycodes))
    if person:
        warnings.append(f"{mycodes}: #define PERSON is on: ./twentyone-c without arguments plays by hand, as in "
                        "the course; with --seed it plays a copy with PERSON off, as twentyone match does "
                        "(the file is not changed)")
    return person, warnings


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m twentyone.players.c.program MYCODES FOLDER``: see the module docstring."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print(f"{PROG}: error: usage: python -m twentyone.players.c.program MYCODES FOLDER", file=sys.stderr)
        return 2
    mycodes, folder = Path(args[0]), Path(args[1])
    if mycodes.suffix.lower() != ".c":
        print(f"{PROG}: error: {mycodes}: the course's C program takes a .c file (play a .cpp hand-in with "
              "twentyone match)", file=sys.stderr)
        return 2
    try:
        _, warnings = prepare_program(mycodes, folder)
    except PlayerSpecError as e:
        print(f"{PROG}: error: {visible(str(e))}", file=sys.stderr)
        return 2
    for w in warnings:
        print(f"{PROG}: warning: {visible(w)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
