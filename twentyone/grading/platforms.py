"""One student's result in words: Gradescope's and PrairieLearn's ``results.json``, and the terminal's self-check.

A student reads these, so they hold readable names only, never an internal key: a rubric line by its title, a
match as "match 4 against basic, at seat 2" (never ``beat_basic|li|3|2``), a crash with the source line it
happened at ("segmentation fault (signal SIGSEGV) at mycodes.c:38 in continue_action1"), a foul with what was
asked and answered.  The first thing that went wrong leads the output.

- ``gradescope_results``: top-level ``score`` = rubric points + bonus, *not* capped (the bonus is extra credit
  above the assignment's total: set the assignment's points to the rubric maximum, 100 by default).  Each
  rubric line is a test (``score`` / ``max_score``, ``status`` ``passed`` when it has all its points); the
  tournament bonus is a test whose ``max_score`` is the bonus for place 1.  All text is sent with
  ``*_format: text`` so nothing from a student is rendered as HTML; ``stdout_visibility`` is ``hidden`` (the
  grader's terminal output is the instructor's).  ``leaderboard``: the total, each win rate, the incidents.
- ``prairielearn_results``: ``score`` = min(1, (rubric points + bonus) / rubric maximum).  A submission that
  could not be used (it did not compile, no strategy file) is ``gradable: false`` with the reason in
  ``message`` and ``format_errors``; PrairieLearn then neither awards points nor counts the attempt.
- ``student_text``: the same result as lines for the terminal (``twentyone check``).

When one submission is graded alone (a platform's autograder, a student's self-check) the class tournament
cannot be played: ``pending`` is then the sentence that says so, given as a line of 0 points, and the score
holds the rubric points only (``autograder.bonus`` adds the bonus for the whole class later).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from twentyone.grading.incidents import match_label
from twentyone.grading.results import Criterion, Incident, Status, StudentScore, cause_words, replay_words
from twentyone.i18n import N_, _, pgettext
from twentyone.storedtext import retold

__all__ = ["gradescope_results", "prairielearn_results", "student_text", "incident_words", "match_words",
           "criterion_words", "TOURNAMENT_PENDING", "TOURNAMENT_TITLE", "SHORT_NAMES"]

#: What a student reads where the class tournament's bonus will be, when one submission is graded alone (in
#: English, as every text here: each is translated when a result is written, ``twentyone.i18n``).
TOURNAMENT_PENDING = N_("The class tournament's bonus is not in this score: the tournament ranks every student's "
                        "strategy against the others', so it can only be played once every hand-in is in. Your "
                        "instructor adds it after the deadline (up to {top:g} points, by place).")
TOURNAMENT_TITLE = N_("Class tournament bonus (added after the deadline)")
#: Short readable names of the rubric lines (a test's tag and PrairieLearn's description), translated when shown.
SHORT_NAMES = {"legal": N_("legal play"), "beat_stand": N_("beats stand"), "beat_basic": N_("beats basic"),
               "tournament": N_("tournament")}
#: The most incidents listed in words under a rubric line.
LISTED = 10

#: Each kind of incident in words: what the strategy did.
_DID = {
    "illegal_action": N_("answered with a decision the rules do not allow there"),
    "illegal_insurance": N_("took insurance where it is not offered"),
    "unaffordable_insurance": N_("took insurance it could not pay for"),
    "unaffordable_double": N_("doubled without the money to pay for it"),
    "unaffordable_split": N_("split without the money to pay for it"),
    "error": N_("stopped with an error (an exception, or an answer that is not one action character)"),
    "crash": N_("crashed"),
    "timeout": N_("gave no answer in time"),
}
#: The same, short, to count them ("crashed 3x").
_DID_SHORT = {"error": N_("stopped with an error")}
_OPPONENTS = {"beat_stand": "stand", "beat_basic": "basic"}
#: The leaderboard's column of each win rate.
_BOARD = {"beat_stand": N_("win rate against stand"), "beat_basic": N_("win rate against basic"),
          "tournament": N_("tournament win rate")}


def _short(c: Criterion) -> str:
    return _(SHORT_NAMES[c.name]) if c.name in SHORT_NAMES else c.title


def _did(kind: str) -> str:
    """What a strategy did for an incident of ``kind``, in the active language."""
    return _(_DID[kind]) if kind in _DID else cause_words(kind).replace("_", " ")


def _pts(x: float) -> str:
    """Points as people write them: 20, 12.5."""
    return f"{x:g}" if x == round(x, 2) else f"{x:.2f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def match_words(key: str) -> str:
    """A match as the reports name it, in words (``incidents.match_label``: numbered from 0, as the store and the
    replay pages number it): "match 4 against basic, seed 2034, seat 2"; a key it cannot read is "a match", never
    the key itself (the platforms show no internal key)."""
    label = match_label(key)
    return _("a match") if label == key else label


def _fault_detail(i: Incident) -> str:
    """What the fault said (a crash's signal and source line, a time-out's limit), from the incident's round
    record, or its text when it is not one."""
    try:
        record = json.loads(i.excerpt)
    except ValueError:
        return retold(i.excerpt.strip())
    if not isinstance(record, dict):
        return ""
    for f in record.get("faults") or []:
        if isinstance(f, dict) and f.get("seat") == i.seat and f.get("detail"):
            return retold(str(f["detail"]))
    return ""


def incident_words(i: Incident) -> str:
    """One incident in words: what the strategy did, where in its file for a crash, in which round of which
    match: "crashed: segmentation fault (signal SIGSEGV) at mycodes.c:38 in continue_action1 (round 3 of match 4
    against basic, at seat 2)"."""
    kind, space, rest = i.cause.partition(" ")
    what = _did(kind)
    if rest:  # "(confirmed on replay)" ...
        said = replay_words(rest)
        what += ("" if said.startswith("\uff08") else " ") + said  # no space before "（"
    if kind in ("error", "crash", "timeout"):
        detail = _fault_detail(i)
        if detail:
            what = _("{what}: {detail}").format(what=what, detail=detail)
    elif i.asked:
        what = _("{what}: {detail}").format(what=what, detail=_("{asked} answered {answer}").format(
            asked=i.asked, answer=repr(i.answer)) if i.answer else i.asked)
    where = (_("round {round} of {match}").format(round=i.round, match=match_words(i.match_key)) if i.round
             else _("before {match}").format(match=match_words(i.match_key)))
    counted = "" if i.counted else " " + _("[not counted by this rubric]")
    return _("{what} ({where})").format(what=what, where=where) + counted


def criterion_words(c: Criterion, s: StudentScore) -> str:
    """A rubric line's result in a few sentences a student understands, then why (the statistics), if given."""
    words = _criterion_words(c, s)
    # The why without its references to the rules' names (a student's result file names no internal key).
    why = re.sub(r"\s*\(RULES\.md, [a-z_]+(?: and [a-z_]+)?\)", "", str(getattr(c, "why", "") or ""))
    return words + "\n" + _("why: {why}").format(why=why) if why else words


def _criterion_words(c: Criterion, s: StudentScore) -> str:
    if c.status == Status.NOT_PLAYED:
        return _("Not played: {why}.").format(why=s.error or c.detail)
    if c.name == "legal":
        if c.points >= c.max_points:
            return _("No foul, crash or time-out in {n} matches.").format(n=c.matches)
        kinds = Counter(i.cause.split(" ", 1)[0] for i in s.incidents if i.counted)
        what = _(", ").join(_("{what} {n}x").format(what=_(_DID_SHORT[k]) if k in _DID_SHORT else _did(k), n=n)
                            for k, n in kinds.most_common())
        lines = [_("{n} incident(s) in {matches} matches: {what}.").format(n=s.incident_count, matches=c.matches,
                                                                           what=what)]
        lines += [f"- {incident_words(i)}" for i in s.incidents[:LISTED]]
        if s.incident_count > LISTED:
            lines.append("- " + _("... and {n} more").format(n=s.incident_count - LISTED))
        return "\n".join(lines)
    if c.name == "tournament":
        return c.detail[:1].upper() + c.detail[1:] + "."
    opponent = _OPPONENTS.get(c.name, _("its opponent"))
    wins = c.matches - c.ties - c.losses
    ties = "" if not c.ties else _(" (a tie counts half)") if c.wins > wins else _(" (a tie counts as a loss)")
    won = _("Won {wins}, tied {ties}, lost {losses} of {n} matches against {opponent}{rule}: {rate}, {confidence:.0%} "
            "interval {low} to {high}.").format(wins=wins, ties=c.ties, losses=c.losses, n=c.matches,
                                               opponent=opponent, rule=ties, rate=_pct(c.rate),
                                               confidence=c.confidence, low=_pct(c.low), high=_pct(c.high))
    if c.status == Status.PASS:
        verdict = _("The line is {line}: passed.")
    elif c.status == Status.FAIL:
        verdict = _("The line is {line}: failed (the matches stop as soon as the result is certain).")
    elif c.status == Status.BORDERLINE:
        verdict = _("The line is {line}: borderline: after the most matches the rubric plays, the interval still "
                    "holds the line, so the points follow the rate ({points} of {most}).")
    else:
        verdict = _("Not decided: the run stopped before it was.")
    return _("{first} {then}").format(first=won, then=verdict.format(line=_pct(c.threshold), points=_pts(c.points),
                                                                     most=_pts(c.max_points)))


def _first_wrong(s: StudentScore) -> str:
    """The first thing that went wrong, for the top of the output ('' when nothing did)."""
    if s.error:
        return s.error
    counted = [i for i in s.incidents if i.counted]
    return incident_words(counted[0]) if counted else ""


def _pending(s: StudentScore, bonus_top: float) -> str:
    return _(TOURNAMENT_PENDING).format(top=bonus_top)


def student_text(s: StudentScore, pending: bool = False, bonus_top: float = 0.0) -> list[str]:
    """The result as lines for a student: the total, what went wrong first, each rubric line, the notes."""
    lines = []
    graded = s.graded or s.source
    if graded.startswith("/"):  # a file given by its path: its name (the grader's folders are nobody's business)
        graded = graded.rsplit("/", 1)[-1]
    if pending:
        lines.append(_("{file}: {points} of {most} points by the course rubric").format(
            file=graded, points=_pts(s.score), most=_pts(s.max_score)))
    else:
        lines.append(_("{file}: {points} of {most} points (rubric {rubric} + tournament bonus {bonus})").format(
            file=graded, points=_pts(s.total), most=_pts(s.max_score), rubric=_pts(s.score), bonus=_pts(s.bonus)))
    wrong = _first_wrong(s)
    if wrong:
        lines.append(_("What went wrong first: {what}").format(what=wrong))
    for c in s.criteria:
        lines.append("* " + _("{criterion}: {points} of {most}").format(criterion=c.title, points=_pts(c.points),
                                                                         most=_pts(c.max_points)))
        lines += [f"  {ln}" for ln in criterion_words(c, s).splitlines()]
    if pending:
        lines.append(f"* {_(TOURNAMENT_TITLE)}")
        lines.append(f"  {_pending(s, bonus_top)}")
    lines += [_("Note: {note}").format(note=retold(n)) for n in s.notes]
    if s.messages:
        lines += [_("Compiler messages:"), *s.messages.splitlines()]
    return lines


def gradescope_results(s: StudentScore, pending: bool = False, bonus_top: float = 0.0) -> dict[str, Any]:
    """Gradescope's ``results.json`` for one student (see the module docstring); ``pending``: graded alone, the
    tournament bonus (up to ``bonus_top``) comes later."""
    tests: list[dict[str, Any]] = []
    if s.error:
        tests.append({"name": _("Your hand-in can be played"), "number": "0", "score": 0.0, "max_score": 0.0,
                      "status": "failed", "output": s.error + ("\n\n" + s.messages if s.messages else ""),
                      "tags": [_("hand-in")], "visibility": "visible"})
    for k, c in enumerate(s.criteria, 1):
        passed = c.status == Status.BONUS or c.points >= c.max_points
        tests.append({"name": c.title, "number": str(k), "score": round(c.points, 4),
                      "max_score": round(c.max_points, 4), "status": "passed" if passed else "failed",
                      "output": criterion_words(c, s), "tags": [_short(c)],
                      "visibility": "visible"})
    if pending:
        tests.append({"name": _(TOURNAMENT_TITLE), "number": str(len(s.criteria) + 1), "score": 0.0,
                      "max_score": 0.0, "output": _pending(s, bonus_top), "tags": [_(SHORT_NAMES["tournament"])],
                      "visibility": "visible"})
    score = s.score if pending else s.total
    board: list[dict[str, Any]] = [{"name": pgettext("leaderboard", "total"), "value": round(score, 4)}]
    board += [{"name": _(_BOARD[c.name]) if c.name in _BOARD else c.title, "value": round(c.rate, 4)}
              for c in s.criteria if c.rate is not None and c.matches]
    board.append({"name": pgettext("leaderboard", "incidents"), "value": s.incident_count, "order": "asc"})
    out: dict[str, Any] = {"score": round(score, 4), "output": "\n".join(student_text(s, pending, bonus_top)),
                           "output_format": "text", "test_output_format": "text", "test_name_format": "text",
                           "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
                           "leaderboard": board}
    if pending:
        out["extra_data"] = {"tournament_bonus": "pending"}
    return out


def prairielearn_results(s: StudentScore, pending: bool = False, bonus_top: float = 0.0) -> dict[str, Any]:
    """PrairieLearn's external-grader ``results.json`` for one student (see the module docstring)."""
    gradable = s.error is None
    total = s.score if pending else s.total
    score = min(1.0, max(0.0, total / s.max_score)) if gradable and s.max_score > 0 else 0.0
    tests = [{"name": c.title, "description": _short(c), "points": round(c.points, 4),
              "max_points": round(c.max_points, 4), "message": criterion_words(c, s).splitlines()[0],
              "output": criterion_words(c, s)} for c in s.criteria]
    if pending:
        tests.append({"name": _(TOURNAMENT_TITLE), "description": _(SHORT_NAMES["tournament"]), "points": 0.0,
                      "max_points": 0.0,
                      "message": _pending(s, bonus_top), "output": _pending(s, bonus_top)})
    if s.error:
        message = s.error
    elif pending:
        message = _("{points} of {most} points by the rubric; {n} incident(s)").format(
            points=_pts(s.score), most=_pts(s.max_score), n=s.incident_count)
    else:
        message = _("{points} of {most} points (rubric {rubric} + bonus {bonus}); {n} incident(s)").format(
            points=_pts(s.total), most=_pts(s.max_score), rubric=_pts(s.score), bonus=_pts(s.bonus), n=s.incident_count)
    out: dict[str, Any] = {"gradable": gradable, "score": round(score, 6), "message": message,
                           "output": "\n".join(student_text(s, pending, bonus_top)), "tests": tests}
    if not gradable:
        out["format_errors"] = [e for e in (s.error, s.messages) if e]
    return out
