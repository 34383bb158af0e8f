"""The class tournament's bonus, for a class graded one submission at a time (``twentyone autograder bonus``).

A platform's autograder grades each submission alone, so it cannot play the class tournament (every student
against the others).  Once every hand-in is in, the instructor gives the class, as either or both of:

- **hand-ins**, as ``grade`` takes them: the submissions downloaded from the platform, one folder (or file, or
  zip) each (``submissions/*``).  Gradescope's export also holds ``submission_metadata.yml``: it is read for each
  folder's student (name, student id, email), which ``bonus.csv`` then shows;
- **results databases**: a ``results.sqlite`` (or the run folder holding one) of earlier ``grade`` runs, such
  as one per section: each graded submission enters with the very file it was graded with (the store keeps
  its text).

The tournament is played exactly as ``grade`` plays it (the rubric's ``[tournament]``: its format, seeds,
stop rule and bonus places, in the sandbox) and nothing else of the rubric; it is stored in ``--out`` like any
run (``--resume`` continues it).  ``--out`` then holds ``bonus.csv`` (UTF-8 with a BOM, so Excel opens it as
it is): one line per student with its place, its bonus points and why, to add to the platform's grades.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from pathlib import Path

from twentyone.errors import TwentyOneError
from twentyone.grading.commands import FILES, Execution, grade
from twentyone.grading.config import GradingConfig
from twentyone.grading.results import ClassReport, StudentScore
from twentyone.grading.store import DB_NAME, Store
from twentyone.grading.submissions import unique_names
from twentyone.players.files.intake import readable

__all__ = ["Submitter", "class_bonus", "read_metadata", "METADATA", "BONUS_CSV"]

#: Gradescope's list of an export's submissions and their students.
METADATA = "submission_metadata.yml"
BONUS_CSV = "bonus.csv"
#: Where the files kept in results databases are written out to play.
STORED = "from-results"


@dataclass(frozen=True)
class Submitter:
    """A student as Gradescope's export names one."""

    name: str = ""
    sid: str = ""
    email: str = ""


def read_metadata(path: Path) -> dict[str, Submitter]:
    """Each submission folder's first submitter, from Gradescope's ``submission_metadata.yml`` (read line by line:
    its layout is fixed, ``submission_N:`` then ``:submitters:`` with ``- :name:``, ``:sid:``, ``:email:``)."""
    out: dict[str, Submitter] = {}
    folder = ""
    fields: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise TwentyOneError(f"{readable(path)}: cannot be read: {e.strerror or e}") from None
    for line in lines:
        top = re.match(r"^(\S[^:]*):\s*$", line)
        if top:
            if folder and fields:
                out[folder] = Submitter(**fields)
            folder, fields = top.group(1).strip("'\""), {}
            continue
        item = re.match(r"^\s*-?\s*:(name|sid|email):\s*(.*?)\s*$", line)
        if item and folder and item.group(1) not in fields:
            fields[item.group(1)] = item.group(2).strip("'\"")
    if folder and fields:
        out[folder] = Submitter(**fields)
    return out


def _stored_handins(path: Path, into: Path, taken: set[str]) -> list[tuple[Path, str]]:
    """The graded submissions of the run in ``path`` (a results.sqlite, or its folder) as files written under
    ``into``, each with its name: (file, name)."""
    folder = path.parent if path.is_file() else path
    with Store.open(folder) as store:
        if store.meta("kind") != "grade":
            raise TwentyOneError(f"{readable(path)}: not the results of a grade run")
        usable = {e.name for e in store.entries() if e.error is None}
        sources = [s for s in store.sources() if s.role == "submission" and s.name in usable]
    names = unique_names([s.name for s in sources], taken)
    out = []
    for s, name in zip(sources, names):
        file = into / name / f"mycodes.{s.language}"  # named by its folder, as grade names a mycodes file
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(s.text, encoding="utf-8")
        out.append((file, name))
        taken.add(name)
    return out


def _tournament_only(config: GradingConfig) -> GradingConfig:
    """``config`` playing the class tournament and nothing else of the rubric."""
    t = config.tournament
    if not t.enabled or not any(t.bonus):
        raise TwentyOneError("the rubric gives no tournament bonus ([tournament] enabled = false, or no bonus "
                             "points): there is nothing to add")
    return replace(config, legal=replace(config.legal, matches=0),
                   beat_stand=replace(config.beat_stand, weight=0), beat_basic=replace(config.beat_basic, weight=0),
                   similarity=replace(config.similarity, traces=0))


def class_bonus(sources: list[Path], config: GradingConfig, out: Path, resume: bool,
                execution: Execution) -> tuple[ClassReport, Path]:
    """Play the class tournament between ``sources`` (hand-ins and results databases) into ``out``, or continue
    the run there; write ``bonus.csv``; (the report, the CSV's path)."""
    people: dict[str, Submitter] = {}
    handins: list[Path] = []
    if not resume and Store.exists(out):
        raise TwentyOneError(f"{out} already holds a run: add --resume to continue it, or choose another --out")
    if not resume and not sources:
        raise TwentyOneError("no class given: give the hand-ins (submissions/*) or results.sqlite files")
    stores = [p for p in sources if p.name == DB_NAME or (p.is_dir() and (p / DB_NAME).is_file())]
    taken: set[str] = set()
    for p in sources:
        if p.name == METADATA:
            people.update(read_metadata(p))
        elif p not in stores:
            handins.append(p)
    from twentyone.players.files.intake import student_name

    taken.update(unique_names([student_name(p) for p in handins]))
    for p in stores:
        handins += [file for file, _ in _stored_handins(p, out / FILES / STORED, taken)]
    if not resume and not handins:
        raise TwentyOneError("no hand-in in what was given: give the hand-ins (submissions/*) or results.sqlite "
                             "files")
    cfg = _tournament_only(config)
    rep = grade(handins, cfg, out, resume, execution, reports=False)
    with Store.open(out) as store:  # the students Gradescope's export named, kept for --resume
        known = {k: Submitter(**v) for k, v in (store.meta("submitters", {}) or {}).items()}
        if people:
            known.update(people)
            store.set_meta("submitters", {k: vars(v) for k, v in known.items()})
    people = known
    path = out / BONUS_CSV
    _write_csv(path, [s for s in rep.students if not s.reference], people)
    return rep, path


def _write_csv(path: Path, students: list[StudentScore], people: dict[str, Submitter]) -> None:
    try:
        with open(path, "w", encoding="utf-8-sig", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["submission", "name", "sid", "email", "place", "bonus", "why"])
            for s in sorted(students, key=lambda s: (s.tournament_rank is None, s.tournament_rank or 0, s.name)):
                who = people.get(s.name, Submitter())
                line = next((c for c in s.criteria if c.name == "tournament"), None)
                why = s.error or (line.detail if line else "not in the tournament")
                w.writerow([s.name, who.name, who.sid, who.email, s.tournament_rank or "", f"{s.bonus:g}", why])
    except OSError as e:
        raise TwentyOneError(f"cannot write {path}: {e.strerror or e}") from None
