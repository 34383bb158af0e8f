"""Late and resubmitted hand-ins into a stored grade: what is new or changed is graded, the rest kept."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from twentyone.grading import runner
from twentyone.grading.commands import Execution, grade
from twentyone.grading.store import Store

from tests.test_grading import FOULS_PY, STAND_PY, _scores, _small_toml, small

ROOT = Path(__file__).resolve().parent.parent
HILO_PY = ROOT / "mycodes" / "mycodes.py"
CLI = [sys.executable, "-m", "twentyone"]


def late_class(tmp_path: Path, fmt: str) -> tuple[Path, Path, Path, Any]:
    """A class of two (stand_py, wang) graded into grades/, wang's file then changed and li's handed in late:
    (grades, wang's file, li's file, the configuration)."""
    wang = tmp_path / "wang" / "mycodes.py"
    wang.parent.mkdir()
    shutil.copy(STAND_PY, wang)
    li = tmp_path / "li.py"
    shutil.copy(HILO_PY, li)
    cfg = small(tournament={"format": fmt, "matches": 2, "max_matches": 2})
    out = tmp_path / "grades"
    grade([STAND_PY, wang], cfg, out, False, Execution(workers=1, progress=False, warn=lambda m: None))
    wang.write_text(FOULS_PY.read_text(encoding="utf-8"), encoding="utf-8")
    return out, wang, li, cfg


@pytest.mark.slow
def test_late_hand_ins_play_only_what_is_new_or_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--resume with a changed hand-in and a late one says so first, plays none of the unchanged student's own
    matches again, sets the changed one's aside (kept in 'replaced'), and every page is remade with all three."""
    out, wang, li, _ = late_class(tmp_path, "table5")
    with Store.open(out) as s:
        stand_keys = {k for k in s.keys() if k.split("|")[1:2] == ["stand_py"]}
        before = s.count()
    played: list[str] = []
    real = runner.play_batch

    def spy(jobs: Any) -> Any:
        played.extend(j.key for j in jobs)
        return real(jobs)

    monkeypatch.setattr(runner, "play_batch", spy)
    said: list[str] = []
    grade([wang.parent, li], None, out, True, Execution(workers=1, progress=False, warn=lambda m: None,
                                                          info=said.append))
    assert said[0].startswith("late hand-ins: added li; replaced wang (its file changed); ")
    assert "every deal is played again for the new field (deals 1-2, on the same seeds" in said[1]
    assert not {k for k in played if k.split("|")[1:2] == ["stand_py"]}  # unchanged: nothing of its own replayed
    assert any(k.startswith("beat_stand|li|") for k in played) and any(k.startswith("beat_stand|wang|") for k in played)
    with Store.open(out) as s:
        assert stand_keys <= s.keys() and s.replaced_count() > 0
        assert [e.name for e in s.entries()] == ["stand_py", "wang", "li"]
        assert s.meta("title") == "Grading of 3 submissions"
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert [st["name"] for st in data["students"]] == ["stand_py", "wang", "li"]
    assert {st["name"]: st["tournament_size"] for st in data["students"]}["li"] == 3
    assert before > 0


@pytest.mark.slow
def test_resume_with_nothing_new_changes_nothing(tmp_path: Path) -> None:
    """The same hand-ins given again with --resume: nothing new or changed, said in one line, scores unchanged."""
    wang = tmp_path / "wang.py"
    shutil.copy(STAND_PY, wang)
    out = tmp_path / "grades"
    cfg = _small_toml(tmp_path)
    r = subprocess.run(CLI + ["grade", str(wang), str(FOULS_PY), "--config", str(cfg), "--out", str(out), "-q",
                              "-j", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    before = _scores(out)
    r = subprocess.run(CLI + ["grade", "--resume", "--out", str(out), str(wang), "-q", "-j", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "late hand-ins: nothing new or changed (unchanged: wang); the run continues" in r.stderr
    assert _scores(out) == before


@pytest.mark.slow
def test_a_hand_in_edited_since_the_run_began_says_how_to_grade_it_anew(tmp_path: Path) -> None:
    """--resume alone with a file changed since the run began refuses, and says to give the hand-in again; given
    again, it is graded anew (exit 0)."""
    wang = tmp_path / "wang.py"
    shutil.copy(STAND_PY, wang)
    out = tmp_path / "grades"
    cfg = _small_toml(tmp_path)
    r = subprocess.run(CLI + ["grade", str(wang), str(FOULS_PY), "--config", str(cfg), "--out", str(out), "-q",
                              "-j", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    wang.write_text(HILO_PY.read_text(encoding="utf-8"), encoding="utf-8")
    r = subprocess.run(CLI + ["grade", "--resume", "--out", str(out), "-q"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 2 and "give the hand-in again to grade it anew" in r.stderr, r.stderr
    r = subprocess.run(CLI + ["grade", "--resume", "--out", str(out), str(wang), "-q", "-j", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "replaced wang (its file changed)" in r.stderr, r.stderr
