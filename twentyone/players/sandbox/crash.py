"""Where a compiled submission crashed: its box's crash report (a ``C`` frame) mapped to a line of its file.

The box program (``c_src/box/tw_box.c``) catches a crash signal and sends the instruction pointer and the
return addresses of its stack, with its own load address; the build keeps debug information
(``cbuild.FLAGS`` has ``-g``).  Here, in the engine and never in the box, ``addr2line`` maps each address to a
function and a line; the first one in the student's own file names the crash (``mycodes.c:123 in
continue_action1``).  The report is the crashed process's own word: it is used only to name a line of the
student's file, and addresses outside the program are ignored.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["locate", "locate_python", "STUDENT_FILES"]

#: The names the student's file has in the build's scratch folder (cbuild), as the debug information says.
STUDENT_FILES = ("mycodes.c", "student.cpp", "student.c")
_LINE = re.compile(r"^(.*):(\d+)(?: \(discriminator \d+\))?$")


def locate(program: Path, words: tuple[int, ...], shown_as: str,
           tool: Callable[[Path, str, Sequence[str], float], str | None] | None = None) -> str | None:
    """``FILE:LINE in FUNCTION`` for the first address of a crash report in the student's file, with the file
    shown as ``shown_as``; None when the report names no line of it (or no tool can read it).  ``tool(folder,
    name, args, timeout)`` runs ``addr2line`` (the sandbox's engine passes the build's jail, ``jail.tool_output``);
    without it, addr2line runs as a plain child (a trusted file's crash)."""
    if len(words) < 4 or shutil.which("addr2line") is None:
        return None
    try:
        size = os.stat(program).st_size
    except OSError:
        return None
    base = words[2]
    offsets = []
    # The instruction pointer is exact; the stack's are return addresses, whose call is the byte before (a call
    # to abort() may be the last instruction of its function: its return address is the next function's).
    for addr in (words[3], *(a - 1 for a in words[4:])):
        offset = addr - base
        if 0 <= offset < size and offset not in offsets:
            offsets.append(offset)
    if not offsets:
        return None
    args = ["-f", "-C", "-e", str(program), *(hex(o) for o in offsets)]
    if tool is not None:
        said = tool(program.parent, "addr2line", args, 10.0)
        if said is None:
            return None
        out = said.splitlines()
    else:
        try:
            out = subprocess.run(["addr2line", *args], capture_output=True, text=True, timeout=10,
                                 errors="replace").stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            return None
    for function, where in zip(out[0::2], out[1::2]):
        m = _LINE.match(where.strip())
        if m and Path(m.group(1)).name in STUDENT_FILES and m.group(2) != "0":
            name = function.strip() if function.strip() != "??" else "?"
            return f"{shown_as}:{m.group(2)} in {name}"
    return None


_PY_FRAME = re.compile(rb'^\s*File "([^"\n]*)", line (\d+) in (\S+)\s*$', re.M)


def locate_python(dump: bytes, file_name: str, shown_as: str | None = None) -> str | None:
    """``mine.py:12 in first_action1``: the innermost frame of a Python box's faulthandler dump that lies in the
    student's file, ``file_name`` in the box (faulthandler writes the innermost first), with the file shown as
    ``shown_as`` (default: ``file_name``); None when none does."""
    for m in _PY_FRAME.finditer(dump):
        if os.path.basename(m.group(1).decode("utf-8", "replace")) == file_name:
            function = m.group(3).decode("ascii", "replace")
            return f"{shown_as or file_name}:{int(m.group(2))} in {function}"
    return None

