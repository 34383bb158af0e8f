"""The command lines of one submission at a time: ``twentyone autograder ...`` and ``twentyone check``.

- ``autograder gradescope --out autograder.zip`` and ``autograder prairielearn --out DIR``: the bundles
  (``bundle``);
- ``autograder run gradescope|prairielearn``: what the bundles run for each submission (``run``);
- ``autograder bonus SOURCE... --out DIR``: the class tournament's bonus, once every hand-in is in (``bonus``);
- ``check FILE``: a student's self-check: the file graded by the rubric, alone, its result in words.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from twentyone.i18n import _, add_lang_option
from twentyone.isolation import int_range

__all__ = ["add_parsers"]


def add_parsers(sub: Any) -> None:
    """Add ``autograder`` and ``check`` to the ``twentyone`` command line (``sub``: its subparsers)."""
    a = sub.add_parser("autograder", help="Gradescope and PrairieLearn autograders, and the class bonus after them",
                       description="Build the course platforms' autograders (each grades one submission by the "
                                   "rubric, in the sandbox), run one as the platform does, or add the class "
                                   "tournament's bonus once every hand-in is in.")
    kinds = a.add_subparsers(dest="autograder", metavar="KIND", parser_class=type(a))
    kinds.required = True
    for name, out, what in (("gradescope", "autograder.zip", "the zip to upload as the assignment's autograder"),
                            ("prairielearn", "DIR", "a new folder: the Dockerfile, the grading script, a question")):
        b = kinds.add_parser(name, help=f"build the {name.title()} autograder ({what})",
                             description=f"Build the {name.title()} autograder: {what}. A wheel of twentyone is "
                                         "built from this checkout for this Python.")
        b.add_argument("--out", type=Path, required=True, metavar=out, help=what)
        b.add_argument("--config", type=Path, metavar="RUBRIC.toml",
                       help="the rubric (grade --example-config); a secret seed is drawn if it pins none")
        b.add_argument("--wheelhouse", type=Path, metavar="DIR",
                       help="a folder of wheels of twentyone's dependencies, put in the bundle so that setup.sh "
                            "needs no network")
        add_lang_option(b)  # the students' results.json: written into the bundle's script
        b.set_defaults(grading_run=_build)
    r = kinds.add_parser("run", help="grade one submission as the platform's autograder does",
                         description="Grade one submission by the rubric, alone (the class tournament waits for the "
                                     "class), and write the platform's results.json.")
    r.add_argument("platform", choices=("gradescope", "prairielearn"), help="the platform's layout")
    r.add_argument("--submission", type=Path, metavar="PATH",
                   help="the submission (/autograder/submission or /grade/student)")
    r.add_argument("--results", type=Path, metavar="FILE",
                   help="where results.json goes (/autograder/results/results.json or /grade/results/results.json)")
    r.add_argument("--config", type=Path, metavar="RUBRIC.toml", help="the rubric (the course's by default)")
    r.add_argument("--workers", "-j", type=int_range(1, 256, "workers"), default=0, metavar="N",
                   help="local worker processes (default: one per core)")
    add_lang_option(r)
    r.set_defaults(grading_run=_run)
    bo = kinds.add_parser("bonus", help="play the class tournament and write each student's bonus (bonus.csv)",
                          description="Play the class tournament of the rubric between the hand-ins and the graded "
                                      "submissions of results.sqlite files, and write bonus.csv into --out.")
    bo.add_argument("sources", nargs="*", type=Path, metavar="SOURCE",
                    help="a hand-in (file, folder, zip; submissions/*), a results.sqlite or its run folder")
    bo.add_argument("--out", type=Path, default=Path("bonus"), metavar="DIR", help="run folder (bonus)")
    bo.add_argument("--config", type=Path, metavar="RUBRIC.toml", help="the rubric, its [tournament] (the bundle's)")
    bo.add_argument("--resume", action="store_true", help="continue the run stored in --out")
    bo.add_argument("--workers", "-j", type=int_range(1, 256, "workers"), default=0, metavar="N",
                    help="local worker processes (default: one per core)")
    bo.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no table")
    bo.set_defaults(grading_run=_bonus)

    c = sub.add_parser("check", help="your file by the course rubric, alone: points and what went wrong, in words",
                       description="Grade one hand-in (mycodes.c, a .py, or a folder or zip holding one) by the course "
                                   "rubric, as the class grade will, except the class tournament, and say the result "
                                   "in words. The shoes differ from the class grade's (its seed is secret).")
    c.add_argument("submission", type=Path, metavar="SUBMISSION", help="mycodes.c, .py, folder or zip")
    c.add_argument("--config", type=Path, metavar="RUBRIC.toml", help="the rubric (the course's by default)")
    c.add_argument("--out", type=Path, metavar="DIR", help="keep the run here (results.sqlite); default: nowhere")
    c.add_argument("--workers", "-j", type=int_range(1, 256, "workers"), default=0, metavar="N",
                   help="local worker processes (default: one per core)")
    c.add_argument("--trusted", action="store_true", help="run your file in process, faster: only code you trust")
    c.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_lang_option(c)
    c.set_defaults(grading_run=_check)


def _say(line: str) -> None:
    print(f"twentyone: {line}", file=sys.stderr)


def _build(args: argparse.Namespace) -> int:
    from twentyone.grading.autograder.bundle import gradescope_bundle, prairielearn_bundle

    if args.autograder == "gradescope":
        path = gradescope_bundle(args.out, args.config, args.wheelhouse, _say, lang=args.lang)
        print(f"autograder: {path} (upload it as the assignment's autograder; README.txt inside says more)")
    else:
        path = prairielearn_bundle(args.out, args.config, args.wheelhouse, _say, lang=args.lang)
        print(f"external grader: {path}/ (README.txt says how to build the image and set up the question)")
    return 0


def _run(args: argparse.Namespace) -> int:
    from twentyone.grading.autograder.run import run_platform

    return run_platform(args.platform, args.submission, args.results, args.config, args.workers)


def _bonus(args: argparse.Namespace) -> int:
    from twentyone.grading.autograder.bonus import class_bonus
    from twentyone.grading.commands import Execution
    from twentyone.grading.config import load_config

    config = load_config(args.config)
    rep, path = class_bonus(args.sources, config, args.out, args.resume,
                            Execution(workers=args.workers, progress=not args.quiet))
    graded = [s for s in rep.students if not s.reference]
    if not args.quiet:
        from rich.console import Console
        from rich.table import Table

        t = Table(title="class tournament bonus")
        for col in ("place", "submission", "bonus", "why"):
            t.add_column(col, overflow="fold", justify="right" if col in ("place", "bonus") else "left")
        for s in sorted(graded, key=lambda s: (s.tournament_rank is None, s.tournament_rank or 0, s.name)):
            line = next((c for c in s.criteria if c.name == "tournament"), None)
            t.add_row(str(s.tournament_rank or "-"), s.name, f"{s.bonus:g}",
                      s.error or (line.detail if line else "not in the tournament"))
        Console(width=None if sys.stdout.isatty() else 200, highlight=False).print(t)
    print(f"bonus: {path}")
    return 1 if any(s.error for s in graded) or rep.damaged else 0


def _check(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from twentyone.errors import TwentyOneError
    from twentyone.grading.autograder.alone import grade_alone
    from twentyone.grading.commands import Execution
    from twentyone.grading.config import load_config
    from twentyone.grading.platforms import student_text

    config = load_config(args.config)
    if args.trusted:
        config = replace(config, isolation=replace(config.isolation, trusted=True))
    if args.submission.is_dir():
        from twentyone.grading.submissions import several_handins

        several = several_handins(args.submission, "check")
        if several:
            raise TwentyOneError(several)
    alone = grade_alone(args.submission, config, Execution(workers=args.workers, progress=not args.quiet),
                        args.out)
    for line in student_text(alone.student, pending=True, bonus_top=alone.bonus_top):
        print(line)
    if alone.student.error is None:
        print(_("This is a self-check: the class grade plays other shoes (its seed is secret), so a borderline line "
                "can go either way there."))
    return 1 if alone.student.error else 0
