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

from twentyone.players.files.intake import Intake, IntakeError, handins_inside, readable, student_name, take

__all__ = ["Submission", "find_submissions", "unique_names", "several_handins"]


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
        several = several_handins(p)
        if several is not None:  # never one student's grade: that entry is not graded, and says why
            sub.error = several
            out.append(sub)
            continue
        try:
            sub.found = take(p, files / name, name=name)
        except IntakeError as e:
            sub.error = str(e)
        out.append(sub)
    return out


def several_handins(path: Path, command: str = "grade") -> str | None:
    """For a folder that holds several hand-ins and no strategy file of its own (``intake.handins_inside``): the
    one line that says so and how to give them (``command``: ``grade`` gives them all, ``check`` one); None for
    anything else.  Such a folder is never graded as one student (GRADING.md, "A folder of hand-ins")."""
    inner = handins_inside(path) if path.is_dir() else []
    if not inner:
        return None
    shown = readable(path).rstrip("/")
    some = ", ".join(inner[:3]) + (f" and {len(inner) - 3} more" if len(inner) > 3 else "")
    how = (f"give each of them: twentyone {command} {shlex.quote(shown + '/')}*" if command != "check" else
           f"give the one to check: twentyone check {shlex.quote(shown + '/' + inner[0].rstrip('/'))}")
    return (f"{shown} holds {len(inner)} hand-ins ({some}) and no strategy file of its own: a folder is one "
            f"student's hand-in, so {how}")
