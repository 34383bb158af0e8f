"""The French game's commands (``solo``, ``elimination``), players from SPECs in them, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from twentyone.cli import main

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_C = str(ROOT / "c_src" / "mycodes.c")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the command line in this process; return (status, stdout, stderr)."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_elimination_runs_unattended_with_a_c_file_in_the_persons_seat(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """--player puts a course C file in the person's seat: nine rounds, three eliminations, a JSON result, a log."""
    log = tmp_path / "e.jsonl"
    code, out, err = run(["elimination", "--player", TEMPLATE_C, "--level", "expert", "--seed", "4", "--json",
                          "--log", str(log)], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["rules"] == "french" and len(result["winners"]) >= 1
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert records[0]["type"] == "match" and records[-1]["reason"] == "elimination"
    assert all(p["foul"] is None for r in records if r["type"] == "round" for p in r["players"])
    expected, left = eliminations_by_the_rule(records)
    logged = [(r["round"], r["seats"], r["reason"]) for r in records if r["type"] == "eliminated"]
    assert logged == expected and [(e["round"], e["seats"], e["reason"]) for e in result["eliminations"]] == expected
    assert result["rounds"] == 9 or len(left) == 1  # nine rounds, or one player left before


def eliminations_by_the_rule(records: list[dict[str, object]], min_bet: int = 1) -> tuple[list[tuple[int, list[int], str]],
                                                                                          set[int]]:
    """The eliminations RULES.md's **elimination** ruling gives for the money of a game's round log: after every
    round the players who can no longer bet; after rounds 3, 6 and 9 the poorest left (all tied ones, unless that
    leaves nobody), unless a player went broke that round; and the players left at the end."""
    seats = [int(s["seat"]) for s in records[0]["seats"]]  # type: ignore[attr-defined, index]
    money = {s: 0 for s in seats}
    left = set(seats)
    out: list[tuple[int, list[int], str]] = []
    for rec in records:
        if rec["type"] != "round":
            continue
        for p in rec["players"]:  # type: ignore[attr-defined]
            money[int(p["seat"])] = int(p["account_after"])
        rnd = int(rec["round"])  # type: ignore[arg-type]
        broke = sorted(s for s in left if money[s] < min_bet)
        if broke:
            out.append((rnd, broke, "broke"))
            left -= set(broke)
        elif rnd in (3, 6, 9) and len(left) > 1:
            least = min(money[s] for s in left)
            poorest = sorted(s for s in left if money[s] == least)
            if len(poorest) < len(left):
                out.append((rnd, poorest, "poorest"))
                left -= set(poorest)
        if len(left) <= 1:
            break
    return out, left


def test_elimination_prints_french_and_english(capsys: pytest.CaptureFixture[str]) -> None:
    """Eliminations and the winner are announced in French by default, in English with --lang en."""
    code, out, _ = run(["elimination", "--player", "intermediate", "--ai", "amateur", "--seed", "5"], capsys)
    assert code == 0 and "est éliminée : la plus pauvre" in out and "gagnant" in out
    code, out, _ = run(["elimination", "--player", "expert", "--ai", "amateur", "--seed", "5", "--lang", "en"], capsys)
    assert code == 0 and "is eliminated: the poorest" in out and "winner" in out


def test_solo_and_elimination_speak_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    """--lang zh (refused before issue 35) gives the French game in Chinese: eliminations, winner, standings."""
    code, out, _ = run(["elimination", "--player", "intermediate", "--ai", "amateur", "--seed", "5", "--lang", "zh"],
                       capsys)
    assert code == 0 and "被淘汰：赌资最少" in out and "胜者" in out and "淘汰赛，种子 5：9 局" in out
    code, out, _ = run(["solo", "--player", "expert", "--rounds", "2", "--seed", "2", "--lang", "zh"], capsys)
    assert code == 0 and "单人模式，种子 2：2 局，赌资 1000 ->" in out


def test_the_french_game_follows_the_locale() -> None:
    """LANG=zh_CN.UTF-8 makes a person's solo game Chinese; LANG=C leaves it French, the game's own language."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    for lang, want in (("zh_CN.UTF-8", "请下注"), ("C.UTF-8", "votre mise"), ("en_GB.UTF-8", "your bet")):
        r = subprocess.run([sys.executable, "-m", "twentyone", "solo", "--seed", "3"], input="q\n",
                           capture_output=True, text=True, cwd=ROOT, timeout=60, env={**env, "LANG": lang})
        assert want in r.stdout and "Traceback" not in r.stderr, (lang, r.stdout, r.stderr)


def test_elimination_person_at_the_terminal_ends_on_end_of_input() -> None:
    """A person plays seat 1 in French; the end of input stops the game with the standings and status 130."""
    r = subprocess.run([sys.executable, "-m", "twentyone", "elimination", "--seed", "3", "--money", "100"],
                       input="10\nr\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "votre mise (1 .. 100)" in r.stdout and "interrompu" in r.stdout
    assert r.returncode == 130 and "Traceback" not in r.stderr


def test_one_round_is_singular_in_french_and_english(capsys: pytest.CaptureFixture[str]) -> None:
    """solo and elimination say "1 manche" and "1 round", not "1 manches"; more rounds stay plural."""
    code, out, _ = run(["solo", "--player", "expert", "--rounds", "1", "--seed", "2"], capsys)
    assert code == 0 and "solo, graine 2 : 1 manche, budget" in out
    code, out, _ = run(["solo", "--player", "expert", "--rounds", "2", "--seed", "2", "--lang", "en"], capsys)
    assert code == 0 and "solo, seed 2: 2 rounds, money" in out
    code, out, _ = run(["elimination", "--player", "basic", "--rounds", "1", "--every", "1", "--seed", "3"], capsys)
    assert code == 0 and "élimination, graine 3 : 1 manche" in out and "manches" not in out


def test_solo_with_another_player_plays_its_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    """solo --player expert --rounds 5 plays five rounds of the French rules."""
    code, out, _ = run(["solo", "--player", "expert", "--rounds", "5", "--seed", "2", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["rounds"] == 5 and data["rules"] == "french"


def test_c_course_player_never_splits_under_split_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """The course's C template at a split-to-4 table: a whole match, no foul, no split hand in the log."""
    code, out, err = run(["match", "-p", TEMPLATE_C, "-p", "chart:french-expert", "--rules", "s17-3to2-6d",
                          "--seed", "8", "--json"], capsys)
    assert code == 0, err
    ranking = json.loads(out)["ranking"]
    assert all(s["fouls"] == 0 and s["fault"] is None for s in ranking)


@pytest.mark.parametrize("argv, message", [
    (["elimination", "--ai", "amateur", "--ai", "expert"], "--ai given 2 times"),
    (["elimination", "--rule", "split=perhaps"], "bad value for split: 'perhaps'"),
    (["elimination", "--player", "nobody"], "unknown player 'nobody'"),
    (["solo", "--rules", "casino"], "unknown rules: 'casino'"),
    (["solo", "--player", "chart:{tmp}/bad.csv"], "chart"),
    (["solo", "--rounds", "0", "--player", "basic"], "rounds out of range"),
    (["elimination", "--rules", "unix-bj"], "seats out of range: 4 (1 .. 1)"),
    (["elimination", "--every", "0"], "bad elimination schedule"),
    (["match", "-p", "basic", "-p", "basic", "--rules", "judge"], "seats out of range: 2 (1 .. 1)"),
])
def test_bad_input_is_one_line(argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input to the game commands: status 2, one 'twentyone: error:' line naming it, no traceback."""
    (tmp_path / "bad.csv").write_text("hand,2,3\nhard 12,H,S\n", encoding="utf-8")
    code, out, err = run([a.format(tmp=tmp_path) for a in argv], capsys)
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("twentyone: error:") and message in lines[0], err
