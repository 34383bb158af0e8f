"""One submission graded by the course rubric on its own: a platform's autograder, a student's self-check.

Everything of the rubric is played as ``grade`` plays it (the same intake, sandbox, seeds and decision rule),
except the class tournament: it ranks every student against the others, so it waits for the class
(``autograder.bonus``); the result says so.  The run lives in a temporary folder unless one is given.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from twentyone.errors import TwentyOneError
from twentyone.grading.commands import Execution, grade
from twentyone.grading.config import GradingConfig
from twentyone.grading.results import StudentScore
from twentyone.players.files.intake import IGNORED_DIRS, readable

__all__ = ["Alone", "grade_alone", "one_handin"]


@dataclass(frozen=True)
class Alone:
    """One submission's result, graded alone."""

    student: StudentScore
    #: The bonus the class tournament gives its first place (what the student can still gain).
    bonus_top: float
    #: The run's folder (its ``results.sqlite``).
    out: Path


def one_handin(path: Path) -> Path:
    """The hand-in a platform gives: ``path`` itself, or the one zip a folder holds when it holds nothing else
    (a student who uploaded ``li.zip`` to Gradescope gets a folder with that zip in it)."""
    if not path.is_dir():
        return path
    try:
        inside = [c for c in path.iterdir() if not c.name.startswith(".") and c.name.lower() not in IGNORED_DIRS]
    except OSError as e:
        raise TwentyOneError(f"{readable(path)}: cannot read the folder: {e.strerror or e}") from None
    if len(inside) == 1 and inside[0].is_file() and inside[0].suffix.lower() == ".zip":
        return inside[0]
    return path


def grade_alone(submission: Path, config: GradingConfig, execution: Execution, out: Path | None = None) -> Alone:
    """Grade ``submission`` alone by ``config``'s rubric, the tournament left for the class; in ``out`` (which must
    not hold a run), or in a temporary folder removed afterwards (then ``Alone.out`` no longer exists)."""
    top = max(config.tournament.bonus, default=0.0) if config.tournament.enabled else 0.0
    alone = replace(config, tournament=replace(config.tournament, enabled=False))
    handin = one_handin(submission)
    if out is not None:
        rep = grade([handin], alone, out, False, execution, reports=False)
        return Alone(_the_student(rep.students), top, out)
    with tempfile.TemporaryDirectory(prefix="twentyone-alone-") as tmp:
        run = Path(tmp) / "run"
        rep = grade([handin], alone, run, False, execution, reports=False)
        return Alone(_the_student(rep.students), top, run)


def _the_student(students: list[StudentScore]) -> StudentScore:
    graded = [s for s in students if not s.reference]
    if len(graded) != 1:  # grade was given one hand-in: one student comes back
        raise TwentyOneError(f"expected one graded submission, got {len(graded)}")
    return graded[0]

