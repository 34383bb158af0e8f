"""The engine trusts nothing a strategy returns, and one submission never stops the others (issue 21).

What a strategy returns that is not an action (a lone surrogate, NUL, ESC, a long string, no string at all) or not
a bet (no int, an int no C ``int`` holds) is that player's foul, and the store keeps what it returned so that it is
read back exactly: ``grade``, ``report`` and ``--resume`` all work.  A damaged or unexpected stored row of one
submission is named in one line, and every other student is graded and reported.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from twentyone.grading.commands import Execution, grade
from twentyone.grading.config import config_from_dict
from twentyone.grading.store import DB_NAME, Store
from twentyone.legality import Foul
from twentyone.match import Seating, play_match
from twentyone.roundlog import RoundLog
from twentyone.strategy import Strategy

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "twentyone"]
QUIET = Execution(workers=1, progress=False, warn=lambda m: None)
SMALL = {"seed": 7, "legal": {"matches": 1}, "beat_stand": {"batch": 2, "min_matches": 2, "max_matches": 2},
         "beat_basic": {"batch": 2, "min_matches": 2, "max_matches": 2}, "tournament": {"enabled": False},
         "similarity": {"traces": 1}, "isolation": {"trusted": True}}

#: A course function set that returns ``{action}`` as its first action, and ``{bet}`` as its bet.
FUNCTION_SET = '''
def bet1(N):
    return {bet}
def first_action1(tmpcards, length):
    return {action}
def continue_action1(players):
    return "s"
def show1(banker, players, pNum, N, pos):
    pass
'''

#: Actions that are not one of the course's letters, as Python source: one character that is no action (an
#: illegal action: a foul, the player plays on), or no one-character string (a fault: the player leaves).
BAD_ACTIONS = {"surrogate": '"\\ud800"', "nul": '"\\x00"', "long": '"h" * 100_000'}
#: Bets that are no int, or an int outside C's int.
BAD_BETS = {"big": "2 ** 31", "huge": "10 ** 5000"}


def _hand_ins(folder: Path) -> list[Path]:
    folder.mkdir()
    paths = []
    for name, action in BAD_ACTIONS.items():
        (folder / f"a_{name}.py").write_text(FUNCTION_SET.format(bet=10, action=action), encoding="utf-8")
        paths.append(folder / f"a_{name}.py")
    for name, bet in BAD_BETS.items():
        (folder / f"b_{name}.py").write_text(FUNCTION_SET.format(bet=bet, action='"s"'), encoding="utf-8")
        paths.append(folder / f"b_{name}.py")
    return paths


def _scores(out: Path) -> dict[str, Any]:
    return {s["name"]: (s["total"], s["incident_count"], s["error"])
            for s in json.loads((out / "scores.json").read_text(encoding="utf-8"))["students"]}


@pytest.mark.slow  # three runs of five students' reports, charts and all (10 s here, 30 s under load)
def test_what_a_strategy_returns_is_its_foul_and_read_back_exactly(tmp_path: Path) -> None:
    """Bad actions and bets: each a foul of its player; the store reads every match back (the surrogate exactly);
    report and --resume work and give the same scores."""
    out = tmp_path / "out"
    rep = grade(_hand_ins(tmp_path / "subs"), config_from_dict(SMALL), out, False, QUIET)
    assert all(s.error is None and s.incident_count > 0 for s in rep.students), [(s.name, s.error)
                                                                                 for s in rep.students]
    legal = {s.name: s.criteria[0].detail for s in rep.students}
    for name in ("surrogate", "nul"):
        assert "illegal_action" in legal[f"a_{name}"]
    for name in ("long", *(f"b_{b}" for b in BAD_BETS)):
        assert "error" in legal[name if name.startswith("b_") else f"a_{name}"]
    with Store.open(out) as s:
        rows = list(s.matches())
        assert not s.damaged and len(rows) == s.count()
    traced = {r.subject: r.outcome.trace[0] for r in rows if r.outcome.trace and r.idx == 0}
    assert traced["a_surrogate"].actions[0] == "\ud800" and traced["a_nul"].actions[0] == "\x00"
    assert traced["a_long"].actions[0] == "?" and traced["b_huge"].bet is None
    details = {r.subject: d for r in rows for d in r.outcome.fault_details if d}
    assert "not an int in -2147483648 .. 2147483647" in details["b_big"]
    assert all(len(d) <= 200 and d.isprintable() for d in details.values()), details
    first = _scores(out)
    for args in (["report", out, "-q"], ["grade", "--resume", "--out", out, "-q", "-j", "1"]):
        r = subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert _scores(out) == first


class _Returns(Strategy):
    """A STRATEGY-style player whose first action raises, or returns, what it is given."""

    def __init__(self, value: object, raises: bool = False) -> None:
        self.value, self.raises = value, raises

    def first_action(self, view: Any) -> str:
        if self.raises:
            raise ValueError(self.value)
        return self.value  # type: ignore[return-value]


@pytest.mark.parametrize("value, raises, foul", [
    ("\ud800", False, Foul.ILLEGAL_ACTION), ("\x00", False, Foul.ILLEGAL_ACTION),
    ("\ud800\x1b]0;owned\x07" * 50, False, Foul.ERROR), ("\ud800 \x1b[2J", True, Foul.ERROR)])
def test_a_strategy_class_is_held_to_the_same_and_its_log_is_written(value: object, raises: bool, foul: Foul) -> None:
    """A Strategy's bad return or exception is its foul, and the round log holds only text it can write."""
    from io import StringIO

    stream = StringIO()
    result = play_match([Seating("x", "x", _Returns(value, raises)), Seating("y", "stand", Strategy())], 6, 3,
                        log=RoundLog(stream))
    text = stream.getvalue()
    text.encode("utf-8")  # every line of the log can be written to a file
    rounds = [json.loads(line) for line in text.splitlines() if '"type":"round"' in line]
    assert rounds[0]["players"][0]["foul"] == foul
    assert "\x1b" not in text and "\ud800" not in text and result.by_seat(1).fault_detail.isprintable()


def test_an_unexpected_row_is_named_and_the_others_reported(tmp_path: Path) -> None:
    """A stored match of a subject that is no entry, and one with three ranks for two seats: each named in one line,
    left out, and every student still graded; report exits 1."""
    out = tmp_path / "out"
    subs = _hand_ins(tmp_path / "subs")[:2]
    grade(subs, config_from_dict(SMALL), out, False, QUIET)
    db = sqlite3.connect(out / DB_NAME)
    # (these hand-ins foul at once, so their legal-play matches are never played: RULES.md, grade_legal)
    db.execute("UPDATE matches SET subject = 'ghost' "
               "WHERE key = (SELECT MIN(key) FROM matches WHERE purpose = 'beat_stand')")
    db.execute("UPDATE matches SET outcome = json_set(outcome, '$.ranks', json('[1, 2, 3]')) "
               "WHERE key = (SELECT MAX(key) FROM matches WHERE purpose = 'beat_basic')")
    db.commit()
    db.close()
    r = subprocess.run([*CLI, "report", str(out), "-q"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2, lines
    assert "is not a match of this run (subject 'ghost'" in lines[1] and "3 ranks for 2 seats" in lines[0]
    scores = _scores(out)
    damaged = next(n for n in scores if f"(of {n})" in lines[0])
    assert "not graded" in scores[damaged][2]
    assert [n for n, s in scores.items() if s[2] is None] == [n for n in scores if n != damaged]
    assert "is damaged" in (out / "index.html").read_text(encoding="utf-8")
    keys = re.findall(r"match '([^']+)'", "\n".join(lines))
    assert len(keys) == 2 and not any(k in (out / "scores.json").read_text(encoding="utf-8") for k in keys)


def test_a_tournament_draws_a_secret_seed_unless_one_is_given(tmp_path: Path) -> None:
    """tournament without --seed: a secret seed drawn, stored, printed at the end, kept out of scores.json; --seed
    pins it."""
    seeds = []
    for run, extra in (("a", []), ("b", []), ("c", ["--seed", "5"])):
        out = tmp_path / run
        r = subprocess.run([*CLI, "tournament", "basic", "stand", "--matches", "2", "--out", str(out), "-j", "1",
                            *extra], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        with Store.open(out) as s:
            seeds.append(s.meta("config")["seed"])
        assert f"seed: {seeds[-1]} (" in r.stdout
        assert "seed" not in json.loads((out / "scores.json").read_text(encoding="utf-8"))["config"]
    assert seeds[0] != seeds[1] and seeds[2] == 5


#: A window title, a screen clear and a clipboard write (OSC 52), as a student's text may hold them.
ESCAPES = "\x1b]0;owned\x07 \x1b[2J \x1b]52;c;aGk=\x07"


def _raw(data: bytes) -> bool:
    """True when ``data`` holds an escape or a bell as it came, not made visible."""
    return b"\x1b" in data or b"\x07" in data


@pytest.mark.slow
def test_a_students_escapes_reach_neither_the_terminal_nor_a_file_raw(tmp_path: Path) -> None:
    """A fault text and a #error line holding a title, a screen clear and an OSC 52 clipboard write: on the terminal
    and in every page, CSV, JSON and platform file they are shown as text (\\x1b), never as they came."""
    subs = tmp_path / "subs"
    subs.mkdir()
    fault = FUNCTION_SET.format(bet="_fault()", action='"s"') + f"def _fault():\n    raise ValueError({ESCAPES!r})\n"
    (subs / "fault.py").write_text(fault, encoding="utf-8")
    (subs / "err").mkdir()
    (subs / "err" / "mycodes.c").write_text(f"int bet1(int N) {{ return 10; }}\n#error {ESCAPES}\n", encoding="utf-8")
    cfg = tmp_path / "g.toml"
    cfg.write_text("seed = 3\n[legal]\nmatches = 1\n[beat_stand]\nbatch = 2\nmin_matches = 2\nmax_matches = 2\n"
                   "[beat_basic]\nbatch = 2\nmin_matches = 2\nmax_matches = 2\n[tournament]\nenabled = false\n"
                   "[isolation]\ntrusted = true\n")
    out = tmp_path / "out"
    ran = [subprocess.run([*CLI, "grade", str(subs / "fault.py"), str(subs / "err"), str(ROOT / "tests" / "fixtures"
                                                                                          / "py" / "stand_py.py"),
                           "--config", str(cfg), "--out", str(out), "-j", "1"], capture_output=True, timeout=300)]
    assert ran[0].returncode == 1, ran[0].stderr
    ran.append(subprocess.run([*CLI, "match", "-p", str(subs / "fault.py"), "-p", "stand"], capture_output=True,
                              timeout=120))
    ran.append(subprocess.run([*CLI, "match", "-p", str(subs / "err" / "mycodes.c"), "-p", "stand"],
                              capture_output=True, timeout=120))
    for r in ran:
        assert not _raw(r.stdout + r.stderr), (r.args, r.stdout + r.stderr)
    shown = b"".join(r.stdout + r.stderr for r in ran)
    assert shown.count(b"\\x1b]0;owned\\x07") >= 3, shown  # the grade's warning, the ranking's line, the compiler's
    files = [f for f in out.rglob("*") if f.is_file() and f.suffix in (".html", ".json", ".csv")]
    assert any("gradescope" in f.parts for f in files) and any("prairielearn" in f.parts for f in files)
    for f in files:
        assert not _raw(f.read_bytes()), f.relative_to(out)
    page = (out / "students" / "err.html").read_text(encoding="utf-8")
    assert "#error \\x1b]0;owned\\x07" in page
    assert "\\x1b[2J" in (out / "students" / "fault.html").read_text(encoding="utf-8")
