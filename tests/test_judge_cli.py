"""``twentyone judge``: the five-test verdict, ``--local``, ``--json``, a class with ``--out`` and ``--resume``."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from twentyone.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "judge"


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None,
        monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_local_reads_a_seed_and_prints_the_statements_messages(capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """--local reads one seed from standard input and prints Accepted or Wrong_answer, then the message."""
    code, out, _ = run(["judge", "strong-bold", "--local"], capsys, "3\n", monkeypatch)
    lines = out.splitlines()
    assert lines[0] in ("Accepted", "Wrong_answer") and len(lines) == 2
    assert code == (0 if lines[0] == "Accepted" else 1)
    assert lines[1].startswith("won: " if code == 0 else "lost: ")
    seeds = {}
    for seed in range(1, 12):
        seeds[seed] = run(["judge", "strong-bold", "--local"], capsys, f"{seed}\n", monkeypatch)[1].split()[0]
    assert set(seeds.values()) == {"Accepted", "Wrong_answer"}  # both verdicts happen in a few seeds


@pytest.mark.parametrize("text", ["", "abc\n", "-4\n", "0\n", "1.5\n"])
def test_local_refuses_input_that_is_not_a_positive_seed(text: str, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Anything but a positive whole number on standard input is one error line, status 2."""
    code, out, err = run(["judge", "strong-bold", "--local"], capsys, text, monkeypatch)
    assert code == 2 and out == "" and err.startswith("twentyone: error: --local reads one positive whole number")


def test_the_verdict_names_the_first_test_not_won_and_replays_it(capsys: pytest.CaptureFixture[str]) -> None:
    """The plain verdict: a line a test, the verdict with the first failure's reason, the pass count, the replay."""
    code, out, _ = run(["judge", "strong-bold", "--seed", "1", "--tests", "5"], capsys)
    lines = out.splitlines()
    assert [ln.split(":")[0] for ln in lines[:5]] == [f"test {k} (seed {k})" for k in range(1, 6)]
    won = sum(": won:" in ln for ln in lines[:5])
    assert lines[6] == f"passed {won} of 5 tests"
    if won < 5:
        first = next(k for k in range(5) if ": won:" not in lines[k]) + 1
        assert code == 1 and lines[5].startswith(f"Wrong_answer: test {first} (seed {first}): ")
        assert lines[7] == f"replay test {first}: echo {first} | twentyone judge strong-bold --local"
    else:
        assert code == 0 and lines[5] == "Accepted"


def test_the_verdict_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    """--json: the verdict, the pass count, the win rate with its interval, and each test's result."""
    code, out, _ = run(["judge", "strong-bold", "--seed", "7", "--tests", "4", "--json"], capsys)
    d = json.loads(out)
    assert d["tests"] == 4 and d["seeds"] == [7, 8, 9, 10] and len(d["results"]) == 4
    assert d["passed"] == sum(r["ending"] == "won" for r in d["results"])
    assert d["verdict"] == ("Accepted" if d["passed"] == 4 else "Wrong_answer") and code == (d["passed"] != 4)
    low, high = d["win_rate_95"]
    assert low <= d["win_rate"] == d["passed"] / 4 <= high


def test_a_class_is_judged_on_the_same_seeds_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--out: every test stored as it ends; the page, CSV and JSON written; --resume plays only what is missing,
    on the stored seeds, and gives the same table."""
    out = tmp_path / "class"
    py = str(FIXTURES / "sample.py")
    broken = tmp_path / "broken.cpp"
    broken.write_text('#include "Blackjack.h"\nvoid play() { init_game(1) }\n')
    code, text, _ = run(["judge", "strong-bold", py, str(broken), "--trusted", "--out", str(out), "--seed", "20",
                         "--tests", "3"], capsys)
    assert code == 1 and text.splitlines()[-1] == f"report: {out / 'index.html'}"  # one could not be judged
    assert "broken: Not_judged, passed 0 of 3: " in text and "does not compile" in text
    page = (out / "index.html").read_text()
    assert 'id="scores"' in page and "strong-bold" in page and "sample" in page and "Not_judged" in page
    assert "broken: the compiler's messages" in page and "broken.cpp:2:" in page
    first = json.loads((out / "results.json").read_text())
    assert [s["seeds"] for s in first["solutions"]] == [[20, 21, 22]] * 3
    assert [len(s["results"]) for s in first["solutions"]] == [3, 3, 0]
    with sqlite3.connect(out / "results.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 6
        db.execute("DELETE FROM matches WHERE key = 'judge/sample/2'")
    code, again, _ = run(["judge", "--out", str(out), "--resume", "--trusted", "-q"], capsys)
    assert code == 1
    with sqlite3.connect(out / "results.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 6
    second = json.loads((out / "results.json").read_text())

    def played(run: dict[str, Any]) -> list[list[dict[str, Any]]]:
        return [[{k: v for k, v in r.items() if k != "seconds"} for r in s["results"]] for s in run["solutions"]]

    assert played(second) == played(first)
    # UTF-8 with a BOM (Excel on a Chinese Windows reads a CSV without one as GBK), as grade's scores.csv
    assert (out / "results.csv").read_bytes().startswith("\ufeffname,solution,kind,verdict,passed".encode())
    code, _, err = run(["judge", "strong", "--out", str(out), "--seed", "20"], capsys)
    assert code == 2 and "already holds a run: add --resume" in err
    (out / "index.html").unlink()
    code, text, _ = run(["report", str(out)], capsys)  # the pages again, from the store alone
    assert code == 0 and (out / "index.html").read_text() == page and text.startswith("strong-bold: ")


@pytest.mark.parametrize(("args", "words"), [
    (["judge", "strong", "strong-bold"], "2 solutions: judge a class with --out DIR"),
    (["judge", str(FIXTURES / "sample.py")], "add --trusted if you have read it"),
    (["judge", "nowhere.cpp"], "no such solution: 'nowhere.cpp'"),
    (["judge", str(FIXTURES)], "is a folder"),
    (["judge", "strong", "--resume"], "--resume continues a class run"),
    (["judge", "strong", "--local", "--out", "x"], "--local plays one test of one solution"),
    (["judge", "strong", "--tests", "0"], "tests out of range"),
    (["judge", str(FIXTURES / "scenarios.cpp") + "x"], "no such solution"),
])
def test_bad_commands_are_one_line(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every bad command line is one error line and status 2."""
    try:
        code = main(args)
    except SystemExit as e:  # argparse's own refusals
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("twentyone: error: ") and words in err and len(err.splitlines()) == 1


def test_the_class_page_fits_1400_and_800_pixels(tmp_path: Path) -> None:
    """The judge's class page with five tests a solution and long reasons (an illegal call with the hand so far):
    at 1,400 pixels every column, Reason included, is in view and no word is broken; at 800 pixels the page never
    scrolls sideways (the table scrolls in its own frame).  Measured in Chromium."""
    from tests.browser import Browser
    from tests.pagefit import fit
    from tests.test_report import chromium
    from twentyone.grading.outcome import EntryKind
    from twentyone.grading.store import EntryRow, Store
    from twentyone.judge.classrun import write_pages
    from twentyone.judge.game import TARGET, Ending, Illegal, TestResult
    from twentyone.judge.verdict import Judgement

    seeds = [20, 21, 22, 23, 24]
    illegal = Illegal("hit()", "the hand is already over: stand() ended it", 37, 4, 412, 1_250_300,
                      ("init_game(100000) -> {1, 9, 5}", "hit() -> 7", "stand()"))
    won = [TestResult(s, Ending.WON, TARGET + 1, 800, 4200, [1_000_000 + 400 * k for k in range(800)]) for s in seeds]
    found = [Judgement("strong-bold", "strong-bold", "builtin", seeds, won),
             Judgement("2023001_zhang", "/home/instructor/judge/2023001_zhang/solution.cpp", "cpp", seeds,
                       won[:2] + [TestResult(22, Ending.ILLEGAL, 1_250_300, 37, 412, [1_000_000] * 37, illegal)]
                       + won[3:]),
             Judgement("2023002_li", "/home/instructor/judge/2023002_li/solution.cpp", "cpp", seeds, [],
                       "/home/instructor/judge/2023002_li/solution.cpp does not compile", "solution.cpp:3:1: error")]
    out = tmp_path / "class"
    with Store.open(out, create=True) as store:
        store.set_meta("title", "Judge problem (seed 004): 3 solutions")
        store.set_meta("config", {"seed": 20, "tests": 5, "cpu_seconds": 10, "wall_seconds": 40})
        store.set_entries([EntryRow(j.name, i, j.spec, j.spec, EntryKind.CPP, j.error, j.messages)
                           for i, j in enumerate(found)])
        write_pages(found, store, out)
    with Browser(chromium()) as b:
        assert fit(b, out / "index.html", 1400) == []
        assert [p for p in fit(b, out / "index.html", 800) if p[0] != "hidden"] == []
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 2 and "illegal call: hit()" in page  # one money chart a solution that played
