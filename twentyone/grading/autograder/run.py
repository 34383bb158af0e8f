"""What a platform runs for each submission: grade it alone, write the platform's ``results.json``.

``twentyone autograder run gradescope`` (the bundle's ``run_autograder``) grades ``/autograder/submission`` and
writes ``/autograder/results/results.json``; ``twentyone autograder run prairielearn`` (the bundle's
``grade.sh``) grades ``/grade/student`` and writes ``/grade/results/results.json``.  A ``results.json`` is
written whatever happens: a submission that cannot be played gets its reason (0 points, as ``grade`` gives
it), and a grader that cannot run (a host that cannot confine the code, a bad rubric) says so, for the
instructor to see, and exits 1.  The terminal output (Gradescope shows it to instructors only) ends with the
command that adds the class tournament's bonus once every hand-in is in.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.grading.autograder.alone import grade_alone, one_handin
from twentyone.grading.commands import Execution
from twentyone.grading.config import GradingConfig, load_config
from twentyone.grading.platforms import gradescope_results, prairielearn_results, student_text
from twentyone.i18n import _
from twentyone.players.files.intake import handins_inside
from twentyone.safetext import visible

__all__ = ["PLATFORMS", "run_platform", "bonus_command"]

#: Each platform's layout: where the submission is, where its results go.
PLATFORMS = {
    "gradescope": (Path("/autograder/submission"), Path("/autograder/results/results.json")),
    "prairielearn": (Path("/grade/student"), Path("/grade/results/results.json")),
}


def bonus_command(platform: str) -> str:
    """The instructor's command that adds the class tournament's bonus, for the platform's downloads."""
    where = ("the submissions downloaded from Gradescope (Review Grades, Export Submissions), one folder each"
             if platform == "gradescope" else "the students' files downloaded from PrairieLearn, one folder each")
    return (f"twentyone autograder bonus --config rubric.toml --out bonus submissions/*   # submissions/: {where}; "
            "or the class's results.sqlite files")


def _failed(platform: str, reason: str) -> dict[str, Any]:
    """The results of a grader that could not grade (not the student's fault): 0 points, the reason said."""
    text = _("The autograder could not grade this submission: {reason}. Your instructor has been told.").format(
        reason=reason)
    if platform == "gradescope":
        return {"score": 0.0, "output": text, "output_format": "text", "visibility": "visible",
                "stdout_visibility": "hidden", "tests": []}
    return {"gradable": False, "score": 0.0, "message": text, "format_errors": [text], "tests": []}


def _refused(platform: str, reason: str) -> dict[str, Any]:
    """The results of an upload that holds no single hand-in (the student's to fix): 0 points, the reason."""
    text = _("Your upload was not graded: {reason}. Upload one hand-in: mycodes.c, or one folder or zip holding "
             "it.").format(reason=reason)
    if platform == "gradescope":
        return {"score": 0.0, "output": text, "output_format": "text", "visibility": "visible",
                "stdout_visibility": "hidden", "tests": []}
    return {"gradable": False, "score": 0.0, "message": text, "format_errors": [text], "tests": []}


def _write(path: Path, data: dict[str, Any]) -> None:
    """Write ``results.json`` whole (a temporary file renamed), its folder made if needed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        raise TwentyOneError(f"cannot write {path}: {e.strerror or e}") from None


def run_platform(platform: str, submission: Path | None, results: Path | None, config_path: Path | None,
                 workers: int = 0) -> int:
    """Grade one submission for ``platform`` and write its ``results.json``; the exit status (0: graded, even with
    0 points; 1: the grader could not grade, and ``results.json`` says so)."""
    where, out = PLATFORMS[platform]
    submission = submission or where
    results = results or out
    notes: list[str] = []

    def say(line: str) -> None:
        print(f"twentyone: {visible(line)}", flush=True)

    execution = Execution(workers=workers, progress=False, warn=lambda m: notes.append(m), info=say)
    try:
        config = load_config(config_path) if config_path is not None else GradingConfig()
        if not submission.exists():
            raise TwentyOneError(f"no submission at {submission}")
        handin = one_handin(submission)
        inner = handins_inside(handin) if handin.is_dir() else []
        if inner:  # the student's to fix, not the grader's failure
            _write(results, _refused(platform, _("it holds {n} hand-ins ({names})").format(
                n=len(inner), names=", ".join(inner[:5]))))
            print(f"twentyone: the upload holds {len(inner)} hand-ins: not graded")
            return 0
        alone = grade_alone(submission, config, execution)
    except TwentyOneError as e:
        _write(results, _failed(platform, str(e)))
        print(f"twentyone: error: {visible(str(e))}", file=sys.stderr)
        return 1
    except Exception as e:  # the grader's own failure: the student still gets a results.json that says so
        _write(results, _failed(platform, _("an internal error of the grader")))
        print(f"twentyone: error: internal error of the grader: {type(e).__name__}: {visible(str(e))}",
              file=sys.stderr)
        return 1
    s = alone.student
    data = (gradescope_results(s, pending=True, bonus_top=alone.bonus_top) if platform == "gradescope" else
            prairielearn_results(s, pending=True, bonus_top=alone.bonus_top))
    _write(results, data)
    for line in student_text(s, pending=True, bonus_top=alone.bonus_top):
        print(line)
    print(f"results: {results}")
    if alone.bonus_top:
        print("tournament bonus: it needs the whole class; once every hand-in is in, add it with:\n  "  # english: the instructor's
              + bonus_command(platform))
    return 0
