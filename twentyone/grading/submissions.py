"""A class's submissions through the one intake (``players.intake``): each named, each strategy file found.

A submission is a ``mycodes.c`` (or ``.cpp``, or ``.py``), or a folder or zip holding one, named after the
student (its zip or folder, or a ``mycodes.*`` file's folder); names are made unique with ``_2``, ``_3``
... in the order given.  A zip's strategy file and the headers and ``main.c`` beside it are unpacked into
``files/NAME/`` (nothing else of the zip ever is); a file whose path is not UTF-8 is copied there under a
readable name.  Anything that cannot be used gets ``error`` set with one clear line, and the other students
are still graded.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from twentyone.players.files.intake import Intake, IntakeError, readable, student_name, take

__all__ = ["Submission", "find_submissions", "unique_names"]


@dataclass
class Submission:
    """One student's submission: what was given, and what the intake found in it (or why not)."""

    name: str
    #: The path as given, as readable text.
    source: str
    found: Intake | None = None
    error: str | None = None
    #: Why it is graded under another name than its own (another hand-in has that name), or ''.
    renamed: str = ""

    @property
    def path(self) -> Path | None:
        """The strategy file on disk."""
        return self.found.path if self.found else None

    @property
    def kind(self) -> str:
        """``c``, ``cpp`` or ``py``; '' when nothing usable was found."""
        return str(self.found.kind) if self.found else ""

    @property
    def notes(self) -> list[str]:
        """The intake's warnings (other copies of the strategy file, a zip too big to unpack whole), and why it
        was renamed."""
        return ([self.renamed] if self.renamed else []) + (list(self.found.warnings) if self.found else [])


def unique_names(names: list[str], taken: set[str] | None = None) -> list[str]:
    """``names`` with repeats made unique in order: ``li``, ``li_2``, ``li_3`` ..."""
    seen = set(taken or ())
    out = []
    for name in names:
        unique, i = name, 2
        while unique in seen:
            unique, i = f"{name}_{i}", i + 1
        seen.add(unique)
        out.append(unique)
    return out


def find_submissions(paths: list[Path], files: Path, names: list[str] | None = None) -> list[Submission]:
    """One Submission per path; a zip's files unpacked under ``files/NAME``; names made unique."""
    out: list[Submission] = []
    given = names or [student_name(p) for p in paths]
    for p, base, name in zip(paths, given, unique_names(given)):
        sub = Submission(name, readable(p))
        if name != base:
            sub.renamed = (f"{name}: {readable(p)} is graded as {name}, since another hand-in given before it is "
                           f"also named {base}")
        try:
            sub.found = take(p, files / name, name=name)
        except IntakeError as e:
            sub.error = str(e) + _class_hint(p)
        out.append(sub)
    return out


def _holds_code(folder: Path, most: int = 2000) -> bool:
    """Whether ``folder`` holds a .c, .cpp or .py file (looking at ``most`` entries at most)."""
    for n, p in enumerate(folder.rglob("*")):
        if n >= most:
            return False
        if p.suffix.lower() in (".c", ".cpp", ".py"):
            return True
    return False


def _class_hint(path: Path) -> str:
    """For a folder that holds several hand-ins (zips, or folders with code) rather than one: how to give them."""
    try:
        inner = [c for c in path.iterdir() if c.suffix.lower() == ".zip" or (c.is_dir() and _holds_code(c))
                 ] if path.is_dir() else []
    except OSError:
        return ""
    if len(inner) < 2:
        return ""
    return (f"; it holds {len(inner)} zips and folders: a folder given is one student's hand-in, so to grade "
            f"each of them give them one by one (twentyone grade {shlex.quote(str(path).rstrip('/') + '/')}*)")
