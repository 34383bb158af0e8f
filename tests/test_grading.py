"""Grading a class: the rubric, the decision rule, fairness, the store, resume after kill -9, Dask."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from twentyone.grading import runner
from twentyone.grading.config import GradingConfig, config_from_dict
from twentyone.grading.grader import Grader, prepare_entries
from twentyone.grading.plan import criterion_job
from twentyone.grading.rubric import winner_of

from tests.conftest import require_module
from tests.outcomes import outcome
from twentyone.grading.commands import Execution, grade
from twentyone.grading.scoring import class_report
from twentyone.grading.store import Store
from twentyone.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
BASIC_C = FIX / "c" / "students" / "basic.c"
STAND_PY = FIX / "py" / "stand_py.py"
FOULS_PY = FIX / "py" / "fouls_py.py"
SYNTAX_C = FIX / "c" / "hostile" / "syntax_error.c"
SEGV_C = FIX / "c" / "hostile" / "segfault_first_action1.c"
CLI = [sys.executable, "-m", "twentyone"]

#: A small budget: batches of 20, decided from 20 matches, at most 60.
SMALL: dict[str, Any] = {
    "seed": 2026,  # pinned: two runs of the same configuration are compared
    "legal": {"matches": 5},
    "beat_stand": {"batch": 20, "min_matches": 20, "max_matches": 60},
    "beat_basic": {"batch": 20, "min_matches": 20, "max_matches": 60},
    "tournament": {"matches": 3},
    "isolation": {"trusted": True},
}


def small(**changes: Any) -> GradingConfig:
    d = json.loads(json.dumps(SMALL))
    for k, v in changes.items():
        if isinstance(v, dict):
            d.setdefault(k, {}).update(v)
        else:
            d[k] = v
    return config_from_dict(d)


QUIET = Execution(workers=1, progress=False, warn=lambda m: None)


def _scores(out: Path) -> dict[str, Any]:
    with Store.open(out) as s:
        rep = class_report(s)
    return {st.name: (st.total, [(c.name, c.points, c.status, c.matches, c.rate) for c in st.criteria])
            for st in rep.students}


def test_prepare_entries_compiles_and_checks(tmp_path: Path) -> None:
    """A good C file and a .py are ready; a file that does not compile keeps the compiler's file:line."""
    rows = prepare_entries([BASIC_C, STAND_PY, SYNTAX_C], tmp_path, GradingConfig())
    assert [(r.name, r.kind, r.error is None) for r in rows] == [("basic", "c", True), ("stand_py", "py", True),
                                                                 ("syntax_error", "c", False)]
    assert rows[0].spec.endswith("basic.c:1")
    assert "does not compile" in (rows[2].error or "") and "syntax_error.c:" in rows[2].messages


def test_criterion_matches_share_seeds_and_swap_seats() -> None:
    """Match 2j and 2j+1 use seed seed+j with the submission at seat 1 then seat 2, for every submission."""
    c = GradingConfig(seed=2026)
    a = [criterion_job(c, "beat_basic", c.beat_basic, "li", "li.c:1", i, None) for i in range(4)]
    b = [criterion_job(c, "beat_basic", c.beat_basic, "wang", "w.c:1", i, None) for i in range(4)]
    assert [j.seed for j in a] == [j.seed for j in b] == [c.seed, c.seed, c.seed + 1, c.seed + 1]
    assert [j.specs for j in a] == [("li.c:1", "basic"), ("basic", "li.c:1")] * 2


def test_winner_of_counts_a_fault_as_a_loss() -> None:
    """A richer submission that faulted still loses the match; a fault of the opponent is a win."""
    o = outcome([2, 1], [None, "crash"])
    assert winner_of(o, 1) == "win" and winner_of(o, 2) == "loss"
    assert winner_of(outcome([1, 1]), 1) == "tie"


def test_decision_stops_as_soon_as_the_test_decides(tmp_path: Path) -> None:
    """An always-stand submission fails both win criteria by the sequential test within 20 matches; matches are
    asked for 10 at a time, so none past the task of the verdict is played."""
    rep = grade([STAND_PY], small(tournament={"enabled": False}), tmp_path, False, QUIET)
    (st,) = rep.students
    by = {c.name: c for c in st.criteria}
    assert by["beat_stand"].status == "fail" and by["beat_stand"].matches == 18
    assert by["beat_stand"].detail.startswith("Failed after 18 matches against stand") and "sequential" in by[
        "beat_stand"].why
    assert by["beat_basic"].status == "fail" and by["beat_basic"].high is not None and by["beat_basic"].high < 0.6
    assert by["legal"].status == "pass" and st.score == 60
    with Store.open(tmp_path) as s:  # tasks of 10: nothing after the task holding the verdict (18) was asked for
        assert len(list(s.matches("beat_stand"))) == 20 and len(list(s.matches("legal"))) == 5
    # The looks (rule = "looks") at 20: settled within the first task, whose successor is dropped unplayed.
    looks = small(tournament={"enabled": False}, beat_stand={"rule": "looks"}, beat_basic={"rule": "looks"})
    rep = grade([STAND_PY], looks, tmp_path / "looks", False, QUIET)
    c = {c.name: c for c in rep.students[0].criteria}["beat_stand"]
    assert c.status == "fail" and c.matches < 20 and "Decided after" in c.why
    with Store.open(tmp_path / "looks") as s:
        assert len(list(s.matches("beat_stand"))) == 10


def test_borderline_at_the_maximum(tmp_path: Path) -> None:
    """Basic strategy against stand stays near 90%: at the maximum the result is borderline, said so."""
    rep = grade([BASIC_C], small(tournament={"enabled": False}), tmp_path, False, QUIET)
    c = {c.name: c for c in rep.students[0].criteria}["beat_stand"]
    assert c.status == "borderline" and c.matches == 60 and c.low is not None and c.low < 0.9 < (c.high or 0)
    assert c.detail.startswith("Borderline: after all 60 matches against stand") and "borderline" in c.why
    assert [r[0] for r in c.running] == [10, 20, 30, 40, 50, 60]  # the rate and its interval every 10 matches
    assert c.points == (20 if (c.rate or 0) >= 0.9 else 0)  # the 'estimate' rule


def test_incidents_are_reported_with_their_round_log_excerpt(tmp_path: Path) -> None:
    """An illegal action fails legal play; each incident carries its round record."""
    rep = grade([FOULS_PY], small(tournament={"enabled": False}), tmp_path, False, QUIET)
    (st,) = rep.students
    legal = st.criteria[0]
    assert legal.name == "legal" and legal.status == "fail" and legal.points == 0
    assert st.incident_count > 0 and "illegal_action" in legal.detail
    rec = json.loads(st.incidents[0].excerpt)
    assert rec["type"] == "round" and any(p["foul"] == "illegal_action" for p in rec["players"])


@pytest.mark.slow
def test_bad_submissions_are_reported_and_the_others_graded(tmp_path: Path) -> None:
    """A file that does not compile and a zip without a strategy get one line each; the rest is graded."""
    z = tmp_path / "zhao.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("zhao/readme.txt", "no code")
    out = tmp_path / "out"
    cfg = tmp_path / "g.toml"
    cfg.write_text('[legal]\nmatches = 2\n[beat_stand]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n'
                   '[beat_basic]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n[tournament]\nenabled = false\n')
    r = subprocess.run(CLI + ["grade", str(SYNTAX_C), str(z), str(STAND_PY), "--config", str(cfg), "--out", str(out),
                              "--trusted", "-j", "1"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("twentyone: warning:")]
    assert any("syntax_error" in ln and "does not compile" in ln for ln in lines)
    assert any("zhao" in ln and "no strategy file" in ln for ln in lines)
    scores = json.loads((out / "scores.json").read_text())
    by = {s["name"]: s for s in scores["students"]}
    assert by["syntax_error"]["error"] and by["zhao"]["error"] and by["stand_py"]["score"] == 60
    assert "syntax_error.c:" in by["syntax_error"]["messages"]


@pytest.mark.parametrize("args, message", [
    (["--config", "{cfg}"], "unknown key 'treshold' in [beat_stand]"),
    (["--decision-timeout", "0"], "--decision-timeout out of range"),
    ([], "no submissions"),
])
def test_bad_grade_arguments_get_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    """A config with an unknown key, a bad limit or no submissions: one line, exit 2, nothing played."""
    cfg = tmp_path / "g.toml"
    cfg.write_text("[beat_stand]\ntreshold = 0.9\n")
    subs = [] if message == "no submissions" else [str(STAND_PY)]
    r = subprocess.run(CLI + ["grade", *subs, "--out", str(tmp_path / "o")] + [a.format(cfg=cfg) for a in args],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_an_existing_run_needs_resume(tmp_path: Path) -> None:
    """Grading into a folder that holds a run refuses without --resume, and loses nothing."""
    grade([STAND_PY], small(tournament={"enabled": False}), tmp_path, False, QUIET)
    before = _scores(tmp_path)
    r = subprocess.run(CLI + ["grade", str(STAND_PY), "--out", str(tmp_path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "--resume" in r.stderr
    assert _scores(tmp_path) == before


def test_ctrl_c_while_the_reports_are_written_says_how_to_write_them(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after the last match, while the pages are written: exit 130 with a line that says every match is
    stored and how to write the reports, which then works."""
    from twentyone.grading import commands
    from twentyone.grading.commands import RunInterrupted, report

    real = commands.write_all

    def interrupted(*a: Any, **k: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "write_all", interrupted)
    out = tmp_path / "the grades"
    with pytest.raises(RunInterrupted) as e:
        grade([STAND_PY], small(tournament={"enabled": False}), out, False, QUIET)
    with Store.open(out) as store:
        stored = store.count()
    assert e.value.status == 130 and str(e.value) == (
        f"interrupted while writing the reports: all {stored} matches are stored in {out}; write the reports with: "
        f"twentyone report '{out}'")
    monkeypatch.setattr(commands, "write_all", real)
    assert report(out, QUIET).students[0].name == "stand_py" and (out / "scores.json").is_file()


def test_a_link_error_is_named_on_the_terminal(tmp_path: Path) -> None:
    """A student who pasted the course's calculate() into mycodes.c gets a link error; grade's one line for the
    entry names it (it showed "does not compile" and nothing more)."""
    from twentyone.grading.commands import entry_error_line

    own = tmp_path / "li" / "mycodes.c"
    own.parent.mkdir()
    own.write_text(BASIC_C.read_text(encoding="utf-8") + "\n/* 从 twentyone.c 复制的 */\n"
                   "int calculate(char (*mycards)[20], int len) { return 0; }\n", encoding="utf-8")
    (entry,) = prepare_entries([own.parent], tmp_path / "files", small())
    line = entry_error_line(entry)
    assert line.startswith("li: ") and "does not compile" in line
    assert "link error: multiple definition of `calculate'" in line


def test_a_hand_in_renamed_for_a_clash_says_so(tmp_path: Path) -> None:
    """Two hand-ins of one name (li.zip from two download folders) are graded as li and li_2, and li_2's
    notes say which file that is and why; a name of its own gets no such note."""
    from twentyone.grading.submissions import find_submissions

    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        with zipfile.ZipFile(tmp_path / folder / "li.zip", "w") as z:
            z.writestr("li/mycodes.c", BASIC_C.read_text())
    first, second, own = find_submissions([tmp_path / "a" / "li.zip", tmp_path / "b" / "li.zip", STAND_PY],
                                          tmp_path / "files")
    assert (first.name, second.name, own.name) == ("li", "li_2", "stand_py")
    assert not first.renamed and not own.renamed
    assert second.notes[0] == (f"li_2: {tmp_path / 'b' / 'li.zip'} is graded as li_2, since another hand-in given "
                               "before it is also named li")


def test_a_folder_of_hand_ins_says_how_to_give_them(tmp_path: Path) -> None:
    """A folder given is one student's hand-in; a folder of several (two student folders and a zip) gets a
    line that says so and how to give them; the other submission is graded."""
    cls = tmp_path / "class 1"
    for name in ("zhao", "qian"):
        (cls / name).mkdir(parents=True)
        (cls / name / "mycodes.c").write_bytes(BASIC_C.read_bytes())
    with zipfile.ZipFile(cls / "sun.zip", "w") as z:
        z.writestr("sun/mycodes.c", BASIC_C.read_text())
    r = subprocess.run(CLI + ["grade", str(cls), str(STAND_PY), "--config", str(_small_toml(tmp_path)), "--out",
                              str(tmp_path / "o"), "-q", "-j", "1"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (line,) = [ln for ln in r.stderr.splitlines() if "class 1" in ln]
    assert "holds 3 hand-ins (qian/, sun.zip, zhao/)" in line and "a folder is one student's hand-in" in line
    assert f"give each of them: twentyone grade '{cls}/'*" in line
    graded = {s["name"]: s for s in json.loads((tmp_path / "o" / "scores.json").read_text())["students"]}
    assert graded["stand_py"]["error"] is None and len(graded) == 2
    # One student's folder with no code but two folders of something else is not a class: no hint.
    lone = tmp_path / "wu"
    for sub in ("Debug", "docs"):
        (lone / sub).mkdir(parents=True)
        (lone / sub / "notes.txt").write_text("x")
    from twentyone.grading.submissions import find_submissions

    (wu,) = find_submissions([lone], tmp_path / "files")
    assert wu.error and "no strategy file" in wu.error and "give each of them" not in wu.error
    assert all(s["error"] for n, s in graded.items() if n != "stand_py")


def test_a_folder_of_hand_ins_alone_is_refused_never_graded_as_one_student(tmp_path: Path) -> None:
    """grade handins (two students' folders, one file deeper than the other, which the intake alone would take as
    one student's file and its other copy) is refused in one line that says how to give them, exit 2, nothing
    written; check says which one to give; a student's folder with Debug/ and __MACOSX/ copies is one hand-in."""
    handins = tmp_path / "handins"
    (handins / "li").mkdir(parents=True)
    (handins / "li" / "mycodes.c").write_bytes(BASIC_C.read_bytes())
    (handins / "wang" / "src").mkdir(parents=True)
    (handins / "wang" / "src" / "mycodes.c").write_bytes(BASIC_C.read_bytes())
    out = tmp_path / "o"
    for command in (["grade", str(handins), "--out", str(out)], ["check", str(handins)]):
        r = subprocess.run(CLI + command + ["--config", str(_small_toml(tmp_path)), "-q"], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
        assert "holds 2 hand-ins (li/, wang/)" in r.stderr and "a folder is one student's hand-in" in r.stderr
    assert not out.exists()
    r = subprocess.run(CLI + ["grade", str(handins), "--out", str(out), "-q"], capture_output=True, text=True,
                       timeout=300)
    assert f"give each of them: twentyone grade {handins}/*" in r.stderr
    one = tmp_path / "zhou"
    for sub in ("21点", "Debug", "__MACOSX/21点"):
        (one / sub).mkdir(parents=True)
    (one / "21点" / "mycodes.c").write_bytes(BASIC_C.read_bytes())
    (one / "__MACOSX" / "21点" / "._mycodes.c").write_bytes(b"\x00\x05")
    (one / "Debug" / "mycodes.obj").write_bytes(b"\x00")
    from twentyone.grading.submissions import find_submissions

    (zhou,) = find_submissions([one], tmp_path / "files")
    assert zhou.error is None and zhou.found is not None and zhou.found.shown == "21点/mycodes.c"


@pytest.mark.parametrize("change", ["edited", "removed"])
@pytest.mark.slow
def test_resume_refuses_a_graded_file_changed_since(tmp_path: Path, change: str) -> None:
    """A plain file is graded from where it lies: resumed after it was edited or removed, the run would mix two
    versions (or charge the student a fault for the missing file).  --resume refuses in one line, exit 2, and
    the stored run is kept as it was."""
    (tmp_path / "wang").mkdir()
    graded = tmp_path / "wang" / "mycodes.py"
    graded.write_text(STAND_PY.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "o"
    grade([tmp_path / "wang", STAND_PY], small(tournament={"enabled": False}), out, False, QUIET)
    before = _scores(out)
    again = subprocess.run(CLI + ["grade", "--resume", "--out", str(out), "-q"], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr  # unchanged: resuming a finished run just writes it again
    if change == "edited":
        graded.write_text("# a better bet\n" + graded.read_text(encoding="utf-8"), encoding="utf-8")
    else:
        graded.unlink()
    r = subprocess.run(CLI + ["grade", "--resume", "--out", str(out), "-q"], capture_output=True, text=True,
                       timeout=300)
    word = "has changed" if change == "edited" else "can no longer be read"
    assert r.returncode == 2 and f"wang's graded file" in r.stderr and word in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert _scores(out) == before


@pytest.mark.slow
def test_resume_after_kill_9_plays_only_the_missing_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kill -9 mid-run, then --resume: no finished match is played again or stored twice; scores as unbroken."""
    cfg = tmp_path / "g.toml"
    # 500 matches: killed at the 30th, the run has most of its work ahead (three runs of it are played here).
    cfg.write_text('seed = 2026\n[legal]\nmatches = 10\n[beat_stand]\nbatch = 40\nmin_matches = 120\nmax_matches = 120\n'
                   '[beat_basic]\nbatch = 40\nmin_matches = 120\nmax_matches = 120\n[tournament]\nmatches = 6\n'
                   '[isolation]\ntrusted = true\n')
    subs = [str(BASIC_C), str(STAND_PY)]
    broken = tmp_path / "broken"
    proc = subprocess.Popen(CLI + ["grade", *subs, "--config", str(cfg), "--out", str(broken), "-j", "2", "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    # Generous: on a loaded machine the first stored matches can take minutes (it was 120 s and failed once).
    deadline = time.time() + 600
    stored = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if Store.exists(broken):
            with Store.open(broken) as s:
                stored = s.count()
            if stored >= 30:
                break
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    with Store.open(broken) as s:
        before = s.keys()
        finished_at = {r[0]: r[1] for r in s._conn.execute("SELECT key, finished_at FROM matches")}
    assert 30 <= len(before)

    played: list[str] = []
    real = runner.play_batch

    def spy(jobs: Any) -> Any:
        played.extend(j.key for j in jobs)
        return real(jobs)

    monkeypatch.setattr(runner, "play_batch", spy)
    grade([Path(p) for p in subs], None, broken, True, QUIET)
    assert played and not set(played) & before
    assert len(played) == len(set(played))

    clean = tmp_path / "clean"
    r = subprocess.run(CLI + ["grade", *subs, "--config", str(cfg), "--out", str(clean), "-j", "1", "-q"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    with Store.open(broken) as a, Store.open(clean) as b:
        # Both runs store every match the scores count; each may also have stored some that were playing when
        # their criterion was decided (how many depends on the workers' timing), which nothing counts.
        past_a: set[str] = set()
        past_b: set[str] = set()
        class_report(a, past_a)
        class_report(b, past_b)
        assert a.keys() - past_a == b.keys() - past_b and a.count() == len(before) + len(played)
        still = {r[0]: r[1] for r in a._conn.execute("SELECT key, finished_at FROM matches")}
        assert all(still[k] == finished_at[k] for k in before)
    assert _scores(broken) == _scores(clean)


@pytest.mark.slow
def test_report_is_remade_from_the_database_alone(tmp_path: Path) -> None:
    """Delete the reports; `twentyone report DIR` writes the same scores again from results.sqlite."""
    grade([STAND_PY, FOULS_PY], small(), tmp_path, False, QUIET)
    first = json.loads((tmp_path / "scores.json").read_text())
    for f in ("scores.json", "index.html", "scores.csv"):
        (tmp_path / f).unlink()
    r = subprocess.run(CLI + ["report", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "scores.json").read_text()) == first
    assert (tmp_path / "index.html").is_file() and (tmp_path / "scores.csv").is_file()
    assert "stand_py" in r.stdout and "fouls_py" in r.stdout


@pytest.mark.slow
def test_tournament_bonus_by_rank(tmp_path: Path) -> None:
    """The basic chart wins the class tournament's first place alone; the others share what is left of the scale."""
    rep = grade([BASIC_C, STAND_PY, FOULS_PY], small(tournament={"matches": 6, "bonus": [7, 3]}), tmp_path, False,
                QUIET)
    bonus = {s.name: s.bonus for s in rep.students}
    assert bonus["basic"] == 7 and max(bonus["stand_py"], bonus["fouls_py"]) < 7
    assert sum(bonus.values()) == pytest.approx(10)  # sharing places averages their points: the scale is kept
    assert all(s.total == s.score + s.bonus for s in rep.students)


@pytest.mark.slow
def test_sandbox_is_the_default_and_a_crash_costs_only_that_student(tmp_path: Path) -> None:
    """Graded in the sandbox by default: a segfaulting file fails legal play; the others are unharmed."""
    cfg = small(tournament={"matches": 2})
    from dataclasses import replace

    cfg = replace(cfg, isolation=replace(cfg.isolation, trusted=False))
    rep = grade([SEGV_C, STAND_PY], cfg, tmp_path, False, Execution(workers=2, progress=False, warn=lambda m: None))
    by = {s.name: s for s in rep.students}
    segv = by["segfault_first_action1"]
    assert segv.criteria[0].status == "fail" and "crash" in segv.criteria[0].detail
    assert any("segmentation fault" in i.excerpt or i.cause == "crash" for i in segv.incidents)
    assert by["stand_py"].criteria[0].status == "pass"


@pytest.mark.slow
def test_dask_and_local_pool_give_identical_scores(tmp_path: Path) -> None:
    """The same configuration on a 2-worker Dask LocalCluster and on the local pool scores identically."""
    require_module("dask.distributed")
    cfg = small()
    subs = [BASIC_C, STAND_PY, FOULS_PY]
    grade(subs, cfg, tmp_path / "local", False, Execution(workers=2, progress=False, warn=lambda m: None))
    grade(subs, cfg, tmp_path / "dask", False,
          Execution(cluster="", dask_workers=2, progress=False, warn=lambda m: None))
    assert _scores(tmp_path / "local") == _scores(tmp_path / "dask")


def test_legal_play_does_not_depend_on_which_skipped_matches_had_started(tmp_path: Path) -> None:
    """A submission whose other matches already cost it the legal-play points has its legal-play matches skipped;
    with several workers some may have started first.  Those played count no more than those skipped: the
    legal-play line is the same either way (a Dask run once counted 86 matches where the local pool counted
    81)."""
    import shutil

    from twentyone.grading.grader import limits_of
    from twentyone.grading.plan import legal_job

    cfg = small(tournament={"enabled": False})
    grade([FOULS_PY, STAND_PY], cfg, tmp_path / "a", False, QUIET)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    with Store.open(tmp_path / "a") as store:
        stand = next(c for c in class_report(store).students[0].criteria if c.name == "beat_stand")
        played = {r.key for r in store.matches()}
    with Store.open(tmp_path / "b") as store:
        (e,) = [e for e in store.entries() if e.name == "fouls_py"]
        assert not list(store.matches("legal", "fouls_py"))  # skipped: its criterion matches fouled first
        limits = limits_of(cfg.isolation)
        late = [legal_job(cfg, e.name, e.spec, i, limits) for i in range(cfg.legal.matches)]
        # and matches against stand past its verdict, as if they had been playing when it came
        late += [criterion_job(cfg, "beat_stand", cfg.beat_stand, e.name, e.spec, i, limits)
                 for i in range(stand.matches, stand.matches + 4)]
        late = [j for j in late if j.key not in played]
        for o in runner.play_batch(late):
            store.add_outcome(o)
        assert len(list(store.matches("legal", "fouls_py"))) == cfg.legal.matches
    reports, dropped = [], []
    for run in ("a", "b"):
        with Store.open(tmp_path / run) as store:
            out: set[str] = set()
            rep = class_report(store, out)
            reports.append({s.name: s for s in rep.students})
            dropped.append(out)
            reviews = {n: ([p.match_key for p in r.replays], r.per_100) for n, r in rep.reviews.items()}
            if run == "a":
                first = reviews
            else:
                assert reviews == first  # the legal-play match with a bankroll makes no replay page
    assert {j.key for j in late} <= dropped[1] and dropped[0] <= dropped[1]
    a, b = (r["fouls_py"].criteria[0] for r in reports)
    assert a.status == b.status == "fail" and (a.detail, a.matches) == (b.detail, b.matches)
    assert "legal-play matches are not counted" in a.detail
    assert [i.match_key for i in reports[0]["fouls_py"].incidents] == [
        i.match_key for i in reports[1]["fouls_py"].incidents]
    clean = reports[0]["stand_py"].criteria[0]  # a clean submission's legal-play matches all count
    assert clean.status == "pass" and "not counted" not in clean.detail


def test_no_page_counts_a_match_stored_past_its_verdict(tmp_path: Path) -> None:
    """A hand-in that crashes in every match fails against stand after 2 matches, but the rest of its task was
    played and stored (with several workers, more or fewer of them): the similarity page compares only the
    decision traces of the 2 matches the grade counts, and ``class_report`` names the others."""
    from twentyone.grading.similarity.pairs import traces_of

    cfg = small(tournament={"enabled": False}, isolation={"trusted": False})
    grade([SEGV_C, STAND_PY], cfg, tmp_path, False, QUIET)
    name = "segfault_first_action1"
    with Store.open(tmp_path) as store:
        dropped: set[str] = set()
        rep = class_report(store, dropped)
        stand = next(c for c in next(s for s in rep.students if s.name == name).criteria if c.name == "beat_stand")
        past = {r.key for r in store.matches("beat_stand", name) if r.idx >= stand.matches}
        every, counted = traces_of(store, cfg.similarity.traces), traces_of(store, cfg.similarity.traces, dropped)
    assert stand.status == "fail" and stand.matches < cfg.similarity.traces and past and past <= dropped
    assert len(every[name]) > len(counted[name]) == stand.matches
    assert counted["stand_py"] == every["stand_py"]  # the other submission's counted matches are all its traces


def test_grader_resumes_from_the_store_without_replaying(tmp_path: Path) -> None:
    """A Grader built on a store that holds some matches schedules only the others."""
    cfg = small(tournament={"enabled": False})
    with Store.open(tmp_path, create=True) as s:
        entries = prepare_entries([STAND_PY], tmp_path / "w", cfg)
        s.set_entries(entries)
        g = Grader(s, cfg, entries)
        first = [j for t in g.first_tasks() for j in t]
        runner_outcomes = runner.play_batch(first[:7])
        due = [j.key for t in g.on_done(runner_outcomes) for j in t]
        g2 = Grader(s, cfg, entries)
        again = [j.key for t in g2.first_tasks() for j in t]
        assert not set(again) & {o.key for o in runner_outcomes}
        # The rest of the first tasks, and what the 7 stored matches made due, each once.
        assert sorted(again) == sorted([j.key for j in first[7:]] + due) and len(set(again)) == len(again)


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    """Not on a terminal the run is quiet until the table; on a terminal a bar with an ETA is drawn."""
    import pty

    cfg = tmp_path / "g.toml"
    cfg.write_text('[legal]\nmatches = 2\n[beat_stand]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n'
                   '[beat_basic]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n[tournament]\nenabled = false\n')
    base = CLI + ["grade", str(STAND_PY), "--config", str(cfg), "--trusted", "-j", "1"]
    r = subprocess.run(base + ["--out", str(tmp_path / "a")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    leader, follower = pty.openpty()
    p = subprocess.Popen(base + ["--out", str(tmp_path / "b")], stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait(timeout=120)
    os.close(leader)
    assert p.returncode == 0 and b"grading" in seen and b"matches" in seen and b"eta" in seen


def test_a_student_named_like_a_builtin_is_kept_apart(tmp_path: Path) -> None:
    """A submission called basic.py counts only its own seat's incidents, never the built-in basic's."""
    sub = tmp_path / "basic.py"
    sub.write_text(FOULS_PY.read_text())
    rep = grade([sub], small(tournament={"enabled": False}), tmp_path / "o", False, QUIET)
    (st,) = rep.students
    used = {c.name: c.matches for c in st.criteria if c.name != "legal"}  # the matches the verdicts used
    with Store.open(tmp_path / "o") as s:
        own = sum(r.outcome.fouls[r.names.index("basic")] for r in s.matches()
                  if r.purpose not in used or r.idx < used[r.purpose])
        assert all(r.names.count("basic") == 1 for r in s.matches())
    assert st.name == "basic" and st.incident_count == own > 0


@pytest.mark.slow
def test_basic_beats_stand_as_the_outside_simulation_found() -> None:
    """Flat-bet basic beats always-stand in 89.4% (+-0.2%) of 2-seat course matches (RULES.md, "Reference values").

    Played as grading plays them (seed pairs, seats swapped); a win is a strictly better rank.  The
    tolerance is four combined standard errors, ours and the reference's 0.2%.
    """
    import math

    from twentyone.players.builtin.course import Basic, Stand
    from twentyone.match import Seating, play_match

    n = 10_000
    wins = 0
    for i in range(n):
        seats = [Seating("b", "basic", Basic()), Seating("s", "stand", Stand())]
        if i % 2:
            seats.reverse()
        result = play_match(seats, 6, 77_000 + i // 2)
        assert result.rounds <= 100 and result.shuffles <= 5
        b = next(s for s in result.ranking if s.spec == "basic")
        s = next(s for s in result.ranking if s.spec == "stand")
        wins += b.rank < s.rank
    rate = wins / n
    se = math.sqrt(rate * (1 - rate) / n + 0.002 ** 2)
    assert abs(rate - 0.894) < 4 * se, f"{rate:.4f} vs 0.894 (4 SE = {4 * se:.4f})"
    assert rate < 0.9  # basic strategy alone does not reach the rubric's 90%


@pytest.mark.slow
def test_cluster_address_sends_the_work_to_a_running_scheduler(tmp_path: Path) -> None:
    """--cluster dask:ADDRESS grades on an existing Dask scheduler, with the same scores as locally."""
    distributed = require_module("dask.distributed")
    cfg = tmp_path / "g.toml"
    cfg.write_text('seed = 2026\n[legal]\nmatches = 2\n[beat_stand]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n'
                   '[beat_basic]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n[tournament]\nmatches = 2\n'
                   '[isolation]\ntrusted = true\n')  # one seed pinned: the two runs play the same matches
    subs = [str(STAND_PY), str(FOULS_PY)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        r = subprocess.run(CLI + ["grade", *subs, "--config", str(cfg), "--out", str(tmp_path / "d"), "-q",
                                  "--cluster", f"dask:{cluster.scheduler_address}"],
                           capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r2 = subprocess.run(CLI + ["grade", *subs, "--config", str(cfg), "--out", str(tmp_path / "l"), "-q", "-j", "1"],
                        capture_output=True, text=True, timeout=300)
    assert r2.returncode == 0, r2.stderr
    assert _scores(tmp_path / "d") == _scores(tmp_path / "l")


def test_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    """A scheduler address nobody answers on is one clear line, not a traceback, at once (a refused connection is
    not tried again for the client's 10 s)."""
    require_module("dask.distributed")
    r = subprocess.run(CLI + ["grade", str(STAND_PY), "--out", str(tmp_path / "o"), "--trusted", "-q",
                              "--cluster", "dask:tcp://127.0.0.1:9"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "cannot reach the Dask scheduler" in r.stderr and "Traceback" not in r.stderr
    assert "refused" in r.stderr and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.slow
def test_champion_as_a_reference_line(tmp_path: Path) -> None:
    """--reference champion grades the best known player beside the class: its win rates, no points, no platform file."""
    out = tmp_path / "o"
    cfg = tmp_path / "g.toml"
    cfg.write_text('seed = 2026\n[legal]\nmatches = 1\n[beat_stand]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n'
                   '[beat_basic]\nbatch = 20\nmin_matches = 20\nmax_matches = 20\n[tournament]\nenabled = false\n'
                   '[isolation]\ntrusted = true\n')  # pinned: it wins ~98% against stand, so 20 matches of a drawn seed
    # (the default) fall to 90% about one run in ten
    r = subprocess.run(CLI + ["grade", str(STAND_PY), "--config", str(cfg), "--reference", "champion",
                              "--out", str(out), "-q", "-j", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    ref = next(s for s in data["students"] if s["reference"])
    assert ref["name"] == "champion (reference)" and ref["score"] == 0 and ref["bonus"] == 0
    stand_line = next(c for c in ref["criteria"] if c["name"] == "beat_stand")
    assert stand_line["rate"] > 0.9 and stand_line["matches"] >= 2
    assert not (out / "gradescope" / "champion (reference)").exists()
    assert "reference line" in (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_looping_submission_costs_its_time_outs_once(tmp_path: Path) -> None:
    """The looping hand-in (sandboxed): its time-outs, past its box's own CPU limit, stand as played, none replayed,
    and both win-rate criteria fail on their first matches' time-outs, so the rest is never played; nor are its
    legal-play matches, since its first time-outs already cost it those points."""
    from dataclasses import replace

    cfg = small(tournament={"enabled": False}, legal={"matches": 2},
                beat_stand={"batch": 40, "min_matches": 40, "max_matches": 40},
                beat_basic={"batch": 40, "min_matches": 40, "max_matches": 40})
    cfg = replace(cfg, isolation=replace(cfg.isolation, trusted=False, decision_timeout=0.2))
    rep = grade([FIX / "handins" / "looper"], cfg, tmp_path, False, QUIET)
    (st,) = rep.students
    by = {c.name: c for c in st.criteria}
    assert by["legal"].status == "fail" and by["beat_stand"].status == "fail" and by["beat_basic"].status == "fail"
    # Each fails on its opening run of faults (RULES.md, grade_faults): 2 at 90%, 5 at 60%; a worker's task stops
    # at its first time-out, so nothing past those is played.
    assert (by["beat_stand"].matches, by["beat_basic"].matches) == (2, 5)
    assert "it faulted in each" in by["beat_stand"].why and "it faulted in each" in by["beat_basic"].why
    assert by["beat_stand"].detail == ("Failed after its first 2 matches against stand: it crashed, timed out or erred "
                                       "in each.")
    with Store.open(tmp_path) as s:
        replays = [r.outcome.replay for r in s.matches()]
        assert s.count() == 2 + 5
        assert not [r for r in s.matches() if r.purpose == "legal"]
    assert replays == [None] * len(replays)
    assert {i.cause for i in st.incidents} == {"timeout"}
    assert all("CPU time" in i.excerpt for i in st.incidents), st.incidents


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.slow
def test_every_rule_preset_can_be_graded(tmp_path: Path, rules: str) -> None:
    """grade --rules PRESET works for every preset, the class tournament included: tables sized to its seats."""
    r = subprocess.run(CLI + ["grade", str(STAND_PY), str(FOULS_PY), "--rules", rules, "--config",
                              str(_small_toml(tmp_path)), "--out", str(tmp_path / "o"), "-q", "-j", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "o" / "scores.json").read_text())
    for s in data["students"]:
        assert s["error"] is None and all(c["matches"] > 0 for c in s["criteria"][1:3]), s
        assert s["tournament_rank"] is not None


def _small_toml(tmp_path: Path) -> Path:
    cfg = tmp_path / "g.toml"
    cfg.write_text('[legal]\nmatches = 2\n[beat_stand]\nbatch = 10\nmin_matches = 10\nmax_matches = 10\n'
                   '[beat_basic]\nbatch = 10\nmin_matches = 10\nmax_matches = 10\n[tournament]\nmatches = 2\n'
                   'max_matches = 2\n[isolation]\ntrusted = true\n')
    return cfg


def test_incidents_keep_what_was_asked_and_answered(tmp_path: Path) -> None:
    """A foul's incident says which function was asked and what it answered ('x' to first_action on a 12), which
    the round record does not keep; its page shows the round, not the raw key."""
    rep = grade([FOULS_PY], small(tournament={"enabled": False}), tmp_path, False, QUIET)
    (st,) = rep.students
    inc = st.incidents[0]
    assert (inc.cause, inc.asked, inc.answer) == ("illegal_action", "first_action", "x")
    record = json.loads(inc.excerpt)
    me = next(p for p in record["players"] if p["seat"] == inc.seat)
    assert me["foul"] == "illegal_action" and me["actions"] == ""
    page = (tmp_path / "students" / "fouls_py.html").read_text(encoding="utf-8")
    assert "<dt>Answered</dt><dd>&#x27;x&#x27;</dd>" in page and '<tr class="you">' in page


@pytest.mark.slow
def test_scores_csv_fills_the_tournament_rate(tmp_path: Path) -> None:
    """scores.csv's tournament_rate, tournament_low and tournament_high hold each student's pairwise win rate."""
    import csv

    rep = grade([BASIC_C, STAND_PY, FOULS_PY], small(tournament={"matches": 2, "max_matches": 2}), tmp_path, False,
                QUIET)
    with open(tmp_path / "scores.csv", encoding="utf-8-sig", newline="") as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    for s in rep.students:
        t = next(c for c in s.criteria if c.name == "tournament")
        row = rows[s.name]
        assert t.rate is not None and float(row["tournament_rate"]) == pytest.approx(t.rate, abs=1e-6)
        assert float(row["tournament_low"]) <= float(row["tournament_rate"]) <= float(row["tournament_high"])
        assert int(row["tournament_matches"]) == t.matches > 0


def test_identical_copies_are_known_by_their_code(tmp_path: Path) -> None:
    """The class tournament knows identical copies as the grade found them (RULES.md, grade_copies), not by name
    or folder: a Python file's byte-for-byte copy is one; a copy saved with CRLF, which plays apart (a strategy can
    read its own text), is not, and neither is one with a comment changed (RULES.md, grade_bonus)."""
    from twentyone.grading.copies import code_of as _code_of
    from twentyone.grading.store import Store

    text = STAND_PY.read_text(encoding="utf-8")
    for name, body in (("wang", text), ("chen", text), ("zhao", text.replace("\n", "\r\n")),
                       ("li", "# mine\n" + text)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mycodes.py").write_bytes(body.encode("utf-8"))
    grade([tmp_path / n for n in ("wang", "chen", "zhao", "li")], small(tournament={"matches": 1, "max_matches": 1}),
          tmp_path / "o", False, QUIET)
    with Store.open(tmp_path / "o") as store:
        code = _code_of(store)
        assert store.meta("copies") == {"chen": "wang"}
    assert code["wang"] == code["chen"] and len({code["wang"], code["zhao"], code["li"]}) == 3


@pytest.mark.slow
def test_two_identical_submissions_share_rank_and_bonus(tmp_path: Path) -> None:
    """Two copies of one file in a pairs class tournament have the same record: the same rank (the better one, as
    ties do) and the same bonus; a clearly better player above them is ranked first alone."""
    for name in ("wang", "zhao"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mycodes.py").write_text(STAND_PY.read_text())
    rep = grade([tmp_path / "wang", tmp_path / "zhao", BASIC_C],
                small(tournament={"format": "pairs", "matches": 20, "max_matches": 40, "bonus": [10, 6, 3]}),
                tmp_path / "o", False, QUIET)
    by = {s.name: s for s in rep.students}
    assert by["basic"].tournament_rank == 1 and by["basic"].bonus == 10
    assert by["wang"].tournament_rank == by["zhao"].tournament_rank == 2
    assert by["wang"].bonus == by["zhao"].bonus == 4.5
