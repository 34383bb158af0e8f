"""The command line: normal use, JSON and log output, and one clear line for every bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from twentyone.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m twentyone ARGS`` as a user would run it."""
    return subprocess.run([sys.executable, "-m", "twentyone", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def test_match_prints_ranking(capsys: pytest.CaptureFixture[str]) -> None:
    """A normal match exits 0 and prints a ranking table with every seat."""
    assert main(["match", "-p", "basic", "-p", "stand", "-p", "hilo", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "rank" in out and "basic" in out and "stand" in out and "hilo" in out


def test_match_json(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one JSON object with the ranking."""
    assert main(["match", "-p", "basic", "-p", "stand", "--json", "--seed", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["seat"] for r in data["ranking"]] != [] and data["seed"] == 4 and data["reason"] in ("rounds", "shuffles", "broke")


def test_match_log(tmp_path: Path) -> None:
    """--log writes valid JSONL: a match record first, an end record last."""
    log = tmp_path / "m.jsonl"
    r = run("match", "-p", "basic", "-p", "mycodes/mycodes.py:2", "--log", str(log), "--seed", "9")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["type"] == "match" and lines[0]["seats"][1]["player"] == "mycodes/mycodes.py:2"
    assert lines[1]["type"] == "shuffle" and lines[-1]["type"] == "end"


def test_same_seed_same_log_file(tmp_path: Path) -> None:
    """Two runs with one seed write the same log bytes."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for f in (a, b):
        assert main(["match", "-p", "hilo", "-p", "basic", "--seed", "12", "--log", str(f)]) == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("args, message", [
    (["-p", "foo"], "unknown player 'foo'"),
    (["-p", "basic", "--decks", "0"], "decks out of range: 0"),
    (["-p", "basic", "--decks", "9"], "decks out of range: 9"),
    (["-p", "basic"] * 6, "too many players: 6"),
    (["-p", "no/such/file.py"], "cannot read player file"),
    (["-p", "mycodes/charts.py"], "has no function set 1"),
    (["-p", "mycodes/mycodes.py:7"], "function set out of range"),
    (["-p", "basic", "--log", "/no/such/dir/x.jsonl"], "cannot write log"),
    (["-p", "basic", "--seed", "-1"], "seed out of range"),
    ([], "no players"),
])
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    """Bad input exits 2 with one 'twentyone: error:' line naming the problem, and no traceback."""
    r = run("match", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("twentyone: error:") and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_rules_command(capsys: pytest.CaptureFixture[str]) -> None:
    """twentyone rules prints RULES.md; --presets lists the rule sets."""
    assert main(["rules"]) == 0
    assert "bj_payout" in capsys.readouterr().out
    assert main(["rules", "--presets"]) == 0
    assert "course-h17" in capsys.readouterr().out


def test_play_at_the_terminal() -> None:
    """play asks for bets and decisions, re-asks bad input with a reason, and ends on end of input."""
    answers = "abc\n10\nq\ns\n" * 3
    r = subprocess.run([sys.executable, "-m", "twentyone", "play", "--seed", "3", "--with", "basic"],
                       input=answers, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "a bet is a whole number" in r.stdout
    assert "'q' is not one of" in r.stdout or "dealer" in r.stdout
    assert "Traceback" not in r.stderr and r.returncode in (0, 1, 130)
