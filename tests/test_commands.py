"""The grade, tournament and report commands as an instructor meets them: refused commands leave nothing,
Ctrl-C says exactly how to continue, and the options are the ones the README names."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import default_sigint
from twentyone.cli import _build_parser, main
from twentyone.grading.store import Store

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
STAND_PY = FIX / "py" / "stand_py.py"
BASIC_C = FIX / "c" / "students" / "basic.c"
STRATEGY_PY = FIX / "py" / "variants_py.py"
CLI = [sys.executable, "-m", "twentyone"]
SMALL = ('[legal]\nmatches = 2\n[beat_stand]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n'
         '[beat_basic]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n[tournament]\nenabled = false\n')


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``twentyone ARGS`` in process: (exit status, stdout, stderr)."""
    try:
        code = main(args)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def small_config(tmp_path: Path) -> Path:
    cfg = tmp_path / "small.toml"
    cfg.write_text(SMALL)
    return cfg


@pytest.mark.parametrize("args, message", [
    (["grade", "--out", "{out}"], "no submissions"),
    (["grade", "--resume", "--out", "{out}"], "holds no run to continue"),
    (["grade", str(STAND_PY), "--resume", "--out", "{out}"], "holds no run to continue"),
    (["tournament", "--resume", "--out", "{out}"], "holds no run to continue"),
    (["tournament", "basic", "--out", "{out}"], "needs at least 2 players"),
    (["tournament", "basic", "{bad}", "--out", "{out}"], "fewer than 2 players can play"),
    (["similar", str(STAND_PY), "--config", "{bad}", "--out", "{out}"], "not valid TOML"),
])
def test_a_refused_command_leaves_nothing_behind(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                                 message: str) -> None:
    """A refused grade, tournament or similar is one line and exit 2, and writes nothing in --out: no results
    database that the corrected command would have to --resume."""
    out = tmp_path / "run"
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip = [")
    code, _, err = run([a.format(out=out, bad=bad) for a in args] + ["--quiet"], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) <= 2, err
    assert not out.exists()
    out.mkdir()
    code, _, err = run([a.format(out=out, bad=bad) for a in args] + ["--quiet"], capsys)
    assert code == 2 and list(out.iterdir()) == [], err  # an existing folder is left as it was


def test_the_corrected_command_runs_after_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """grade --out X with no submissions, then the right command: it starts, not 'already holds a run'."""
    out = tmp_path / "x"
    assert run(["grade", "--out", str(out), "-q"], capsys)[0] == 2
    assert run(["grade", "--resume", "--out", str(out), "-q"], capsys)[0] == 2
    code, _, err = run(["grade", str(STAND_PY), "--config", str(small_config(tmp_path)), "--trusted", "-j", "1",
                        "--out", str(out), "-q"], capsys)
    assert code == 0, err
    assert json.loads((out / "scores.json").read_text())["students"][0]["score"] == 60


def test_a_store_without_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty results.sqlite (left by an older version's refused command): report says so in one line with
    exit 2, --resume refuses, and a new grade simply replaces it."""
    out = tmp_path / "x"
    Store.open(out, create=True).close()
    code, _, err = run(["report", str(out), "-q"], capsys)
    assert code == 2 and "holds no run" in err and len(err.strip().splitlines()) == 1, err
    assert not (out / "index.html").exists()
    code, _, err = run(["grade", "--resume", "--out", str(out), "-q"], capsys)
    assert code == 2 and "holds no run" in err and "None" not in err, err
    code, _, err = run(["grade", str(STAND_PY), "--config", str(small_config(tmp_path)), "--trusted", "-j", "1",
                        "--out", str(out), "-q"], capsys)
    assert code == 0, err


def test_tournament_resume_needs_no_specs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tournament --resume --out DIR, with no SPEC, plays the missing matches of the stored run."""
    out = tmp_path / "t"
    code, _, err = run(["tournament", "basic", "stand", "hilo", "-m", "4", "-j", "1", "--out", str(out), "-q"], capsys)
    assert code == 0, err
    first = json.loads((out / "scores.json").read_text())["standings"]
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("DELETE FROM matches WHERE rowid IN (SELECT rowid FROM matches LIMIT 5)")
    code, _, err = run(["tournament", "--resume", "--out", str(out), "-j", "1", "-q"], capsys)
    assert code == 0, err
    with Store.open(out) as s:
        assert s.count() == 12
    assert json.loads((out / "scores.json").read_text())["standings"] == first


def _wait_for_matches(out: Path, n: int, proc: subprocess.Popen[str], deadline: float) -> None:
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        try:
            with Store.open(out) as s:
                if s.meta("kind") is not None and s.count() >= n:
                    return
        except Exception:  # noqa: BLE001 - the store is being created
            continue
    raise AssertionError(f"no {n} matches stored in time (exit {proc.poll()})")


@pytest.mark.parametrize("command", ["grade", "tournament"])
@pytest.mark.slow
def test_ctrl_c_exits_130_and_the_printed_command_continues(tmp_path: Path, command: str) -> None:
    """Ctrl-C: exit 130 and one line; the command it prints (a --out with a space, quoted) continues the run
    exactly as printed, to the end."""
    out = tmp_path / "run folder"
    cfg = tmp_path / "g.toml"
    # Enough matches that the run is still playing when Ctrl-C comes after the 20th stored (at most ~50 more are
    # played in the 0.2 s that takes), few enough that continuing it to the end is cheap.
    cfg.write_text('[legal]\nmatches = 4\n[beat_stand]\nbatch = 40\nmin_matches = 160\nmax_matches = 160\n'
                   '[beat_basic]\nbatch = 40\nmin_matches = 160\nmax_matches = 160\n[tournament]\nenabled = false\n'
                   '[isolation]\ntrusted = true\n')
    args = (["grade", str(BASIC_C), "--config", str(cfg)] if command == "grade" else
            ["tournament", "basic", "stand", "hilo", "-m", "400"])
    proc = subprocess.Popen(CLI + args + ["--out", str(out), "-j", "1", "-q"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path,
                            preexec_fn=default_sigint)
    try:
        _wait_for_matches(out, 20, proc, time.time() + 300)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    lines = [ln for ln in err.strip().splitlines() if "error" in ln]
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("twentyone: error: interrupted:") and "Traceback" not in err
    printed = line.split("continue with: ", 1)[1]
    argv = shlex.split(printed)
    assert argv[:2] == ["twentyone", command] and Path(argv[-1]) == out
    r = subprocess.run(CLI + argv[1:] + ["-q"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (out / "index.html").is_file()


def test_a_strategy_class_gets_the_true_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A .py defining STRATEGY is refused in the sandbox with the true reason and what to do, by grade and
    tournament alike; with --trusted it is graded as that class."""
    cfg = small_config(tmp_path)
    code, _, err = run(["grade", str(STRATEGY_PY), "--config", str(cfg), "--out", str(tmp_path / "g"), "-q"], capsys)
    assert code == 1 and "a STRATEGY class runs in process only" in err and "--trusted" in err, err
    assert "has no function set" not in err
    code, _, err = run(["tournament", str(STRATEGY_PY), "basic", "--out", str(tmp_path / "t"), "-q"], capsys)
    assert code == 2 and "a STRATEGY class runs in process only" in err and "has no function set" not in err, err
    code, _, err = run(["grade", str(STRATEGY_PY), "--config", str(cfg), "--trusted", "-j", "1",
                        "--out", str(tmp_path / "g2"), "-q"], capsys)
    assert code == 0, err
    (st,) = json.loads((tmp_path / "g2" / "scores.json").read_text())["students"]
    assert st["error"] is None and st["criteria"][0]["status"] == "pass" and st["criteria"][1]["matches"] > 0


def test_grade_takes_seed_and_decks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """grade --seed and --decks, as the README says tournament's are; a resumed run keeps its own."""
    out = tmp_path / "g"
    code, _, err = run(["grade", str(STAND_PY), "--config", str(small_config(tmp_path)), "--trusted", "-j", "1",
                        "--seed", "77", "--decks", "2", "--out", str(out), "-q"], capsys)
    assert code == 0, err
    with Store.open(out) as s:
        assert (s.meta("config")["seed"], s.meta("config")["decks"]) == (77, 2)
        assert {r.seed for r in s.matches("beat_stand")} <= set(range(77, 77 + 20))
    code, _, err = run(["grade", "--resume", "--seed", "78", "--out", str(out), "-q"], capsys)
    assert code == 2 and "configuration differs" in err


def test_each_subcommand_points_to_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown option of any subcommand names that subcommand's --help, not the top-level one."""
    parser = _build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None and {"grade", "tournament", "report", "similar"} <= set(commands)
    for name in commands:
        code, _, err = run([name, "--no-such-option"], capsys)
        assert code == 2 and f"(see 'twentyone {name} --help')" in err, (name, err)


def _options(command: str) -> set[str]:
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]  # type: ignore[index]
    return {o for a in sub._actions for o in a.option_strings}


def test_the_options_agree_with_the_readme() -> None:
    """Every option the grading manual gives grade, and every grade option it says tournament takes, exists."""
    text = (ROOT / "twentyone" / "grading" / "GRADING.md").read_text(encoding="utf-8")
    grade_part = text[text.index("## `twentyone grade`"):text.index("## `twentyone tournament`")]
    said = set(re.findall(r"`(--[a-z-]+)", grade_part[grade_part.index("Options:"):]))
    assert {"--seed", "--decks", "--rules", "--resume"} <= said and said <= _options("grade"), said - _options("grade")
    tour = text[text.index("## `twentyone tournament`"):text.index("## `twentyone report")]
    shared = set(re.findall(r"`(--[a-z-]+)`", tour[tour.index("Other options are as for"):tour.index("SPEC")]))
    assert len(shared) >= 10 and shared <= _options("grade") & _options("tournament"), shared - _options("grade")


def test_every_warning_names_its_student(tmp_path: Path) -> None:
    """The notes of grade and similar name their student: two students' shared-statics notes that differ only in
    their variables are two lines, each saying whose; a note that names the file already is not prefixed."""
    import shutil
    from dataclasses import replace

    from twentyone.grading.commands import Execution, entry_notes
    from twentyone.grading.config import GradingConfig, Similarity
    from twentyone.grading.grader import prepare_entries
    from twentyone.grading.similarity.command import similar

    handins = FIX / "handins"
    for name in ("li_lei", "han_meimei"):
        shutil.copytree(handins / "real_course", tmp_path / name)
    subs = [handins / "own_main", tmp_path / "li_lei", tmp_path / "han_meimei"]
    entries = prepare_entries(subs, tmp_path / "files", GradingConfig())
    lines = entry_notes(entries)
    own = f"{handins / 'own_main' / 'mycodes.c'}: "
    assert any(ln.startswith(own + "the student's own main.c calls advantage()") for ln in lines), lines
    shared = sorted(ln.split("/mycodes.c: ", 1)[0] for ln in lines if "also change" in ln)
    assert shared == sorted(str(p) for p in subs), lines
    person = [ln for ln in lines if "PERSON" in ln]
    assert person and all(str(tmp_path / ln.split(":", 1)[0]) in ln for ln in person if not ln.startswith("own_main"))
    said: list[str] = []
    cfg = replace(GradingConfig(), similarity=Similarity(traces=0))
    similar(subs, cfg, tmp_path / "sim", Execution(progress=False, warn=said.append))
    assert sorted(ln.split("/mycodes.c: ", 1)[0] for ln in said if "also change" in ln) == shared


def test_every_command_says_the_same_of_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bare mycodes.c with the student's own main.c (calling advantage(), which resets the count) and mycodes.h
    beside it: match, play, tournament, grade and similar say the same three things of it, from one function."""
    from twentyone.grading.commands import entry_notes, tournament_entries
    from twentyone.grading.config import GradingConfig
    from twentyone.grading.grader import prepare_entries

    src = FIX / "handins" / "own_main" / "mycodes.c"
    wanted = ("calls advantage(), which is not part of the course interface", "its own "
              f"{src.parent / 'mycodes.h'} differs from the course's mycodes.h", "set 1 uses running, which sets 2")

    def said(lines: list[str]) -> list[str]:
        return sorted(w for w in wanted for ln in lines if w in ln)

    code, _, err = run(["match", "-p", str(src), "-p", "basic", "--output-dir", str(tmp_path / "out")], capsys)
    assert code == 0 and said(err.splitlines()) == sorted(wanted), err
    code, _, err = run(["play", "--with", str(src), "--output-dir", str(tmp_path / "out")], capsys)  # stdin: EOF
    assert said(err.splitlines()) == sorted(wanted), err
    assert said(entry_notes(tournament_entries([str(src), "basic"], tmp_path / "t"))) == sorted(wanted)
    assert said(entry_notes(prepare_entries([src], tmp_path / "g", GradingConfig()))) == sorted(wanted)


def test_tournament_refuses_a_person_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tournament basic human: one line that says a person cannot sit through a tournament and what to use
    instead, exit 2, nothing written; the tournament's --help does not offer human."""
    code, out, err = run(["tournament", "basic", "human", "--out", str(tmp_path / "t")], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("twentyone: error: human cannot play in a tournament")
    assert "twentyone play --with SPEC" in err and "no such file" not in err and not (tmp_path / "t").exists()
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    assert "human" not in capsys.readouterr().out


def test_similar_refuses_a_single_submission(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """similar with one submission: one line (it has nothing to compare it with), exit 2, nothing compiled or
    written, never an empty table with exit 0."""
    code, out, err = run(["similar", str(BASIC_C), "--out", str(tmp_path / "s")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("twentyone: error: similar compares submissions with each other: give two or more (1 given)")
    assert not (tmp_path / "s").exists()
