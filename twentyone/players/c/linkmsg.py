"""What a failed build says: the tools' messages about the student's own file, under its own name.

The tools' messages are untrusted text (they quote the student's file), and they name the build's scratch folder
and the project's objects, which mean nothing to a student.  ``compiler_messages`` keeps the lines about the
student's file, names link errors by the student's function (``printf``, not ``tw_printf``; ``tools::helper()``
as the linker demangled it), and when neither says why, the linker's or assembler's own lines, trimmed: the
scratch folder's paths cut to file names, the driver's last words dropped, each line and their number capped.
A file the jail did not let the tools read is named as the text named it.  The caller shows it through
``safetext.visible``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["compiler_messages", "MAX_LINES", "MAX_LINE"]

#: At most so many lines of messages, each at most so long.
MAX_LINES = 40
MAX_LINE = 300
#: At most so many lines of the linker's own when nothing else says why.
MAX_TOOL_LINES = 8

_LINK = re.compile(r"(multiple definition of|undefined reference to) [`'‘](?:tw_)?([^'’`\n]{1,200})['’]")
#: The project's objects, by the names they have in a build's scratch folder: what a student knows them as.
_OURS = {"boxed.o": "", "student.o": "", "part0.o": "", "module.o": "", "wrapper.o": "the module's wrapper"}


def compiler_messages(raw: bytes, scratch: Path, copy: Path, original: Path, refused: Sequence[str] = ()) -> str:
    """The messages of a failed build about the student's file ``original`` (compiled as ``copy`` in ``scratch``);
    nothing quoted from any other file."""
    text = raw.decode("utf-8", errors="replace")
    text = text.replace(str(copy), str(original)).replace(str(copy.parent / "mycodes.cpp"), str(original))
    prefix = f"{original}:"
    keep = [_cut(ln) for ln in text.splitlines() if ln.startswith(prefix)]
    for name in refused:
        keep.append(_cut(f"{original}: the build reads only the submission and the toolchain: {name} was refused"))
    links: list[str] = []
    for m in _LINK.finditer(text):
        line = f"{original}: link error: {m.group(1)} `{m.group(2)}'"
        if m.group(1).startswith("multiple"):
            line += " (the course's program or the project's output capture already defines it)"
        if line not in links:
            links.append(_cut(line))
    keep += links
    if not keep:
        stage, lines = _tool_lines(text, scratch)
        keep = [f"{original}: the build failed ({stage})" + (":" if lines else "")]
        keep += [f"  {ln}" for ln in lines]
    return "\n".join(keep[:MAX_LINES])


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 1] + "…"


def _tool_lines(text: str, scratch: Path) -> tuple[str, list[str]]:
    """Which step of the build failed, and its tool's own lines, trimmed (the scratch folder cut out)."""
    if "Assembler messages" in text or "Error:" in text:
        stage = "the assembler refused it"
    elif "ld:" in text or "collect2" in text:
        stage = "the linker refused it"
    else:
        return "the compiler stopped without a message about the file", []
    lines = []
    for ln in text.splitlines():
        ln = ln.strip()
        if not ln or ln.startswith("collect2:") or ln.endswith("Assembler messages:"):
            continue
        ln = re.sub(r"^\S*/ld(?:\.bfd|\.gold)?: ", "", ln)
        ln = re.sub(re.escape(str(scratch)) + r"/(?:[\w.-]+/)*([\w.-]+)", lambda m: _OURS.get(m.group(1), m.group(1))
                    or "your file", ln)
        ln = re.sub(r"/\S*/", "", ln)  # other folders: only the file's name is its business
        if ln not in lines:
            lines.append(_cut(ln))
    return stage, lines[:MAX_TOOL_LINES]
