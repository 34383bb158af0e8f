"""The platforms' autograders run as the platforms run them, the class bonus after them, and a student's check.

Each bundle is built afresh and run in its platform's layout: a private mount namespace (``unshare -m``, as
root) with ``/autograder`` (Gradescope) or ``/grade`` and ``/opt/twentyone`` (PrairieLearn's image) on a
tmpfs, ``setup.sh`` then the platform's script, and its ``results.json`` read back.  ``setup.sh`` installs the
wheel's dependencies through pip's own configuration, so offline it uses the machine's wheelhouse and index
(``PIP_FIND_LINKS``, ``pip.conf``) as any pip does here.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require
from tests.test_platforms import INTERNAL, _text

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
SEGV_C = FIX / "c" / "hostile" / "segfault_first_action1.c"
BASIC_C = FIX / "c" / "students" / "basic.c"
STAND_PY = FIX / "py" / "stand_py.py"
FOULS_PY = FIX / "py" / "fouls_py.py"
SYNTAX_C = FIX / "c" / "hostile" / "syntax_error.c"
CLI = [sys.executable, "-m", "twentyone"]
#: A small rubric (sandboxed, as on the platforms): a grade takes seconds.
RUBRIC = ('[legal]\nmatches = 2\n[beat_stand]\nbatch = 10\nmin_matches = 10\nmax_matches = 10\n'
          '[beat_basic]\nbatch = 10\nmin_matches = 10\nmax_matches = 10\n[tournament]\nmatches = 2\nmax_matches = 2\n')


def _rubric(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "rubric.toml"
    path.write_text(extra + RUBRIC, encoding="utf-8")
    return path


def _namespace(script: str, mounts: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (bash) in a private mount namespace with a tmpfs on each of ``mounts``: nothing it writes
    there outlives it (an empty folder is made on the host for each mount point that is missing)."""
    require(os.geteuid() == 0 and shutil.which("unshare") is not None,
            "root and unshare (a private mount namespace for the platform's layout)")
    for m in mounts:
        os.makedirs(m, exist_ok=True)
    setup = "".join(f"mount -t tmpfs tmpfs {m}\n" for m in mounts)
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-euo", "pipefail", "-c",
                           setup + script], capture_output=True, text=True, timeout=1500)


def _check_results(results: dict[str, Any], platform: str) -> str:
    """The checks both platforms' results pass; their text."""
    text = _text(results)
    found = INTERNAL.findall(text.replace("results.json", ""))
    assert not found, (platform, found)
    assert "once every hand-in is in" in text  # the tournament bonus is said to come later
    return text


@pytest.mark.slow
def test_gradescope_bundle_runs_in_gradescope_layout(tmp_path: Path) -> None:
    """autograder gradescope builds a zip with setup.sh and run_autograder at its root; in Gradescope's layout
    setup.sh installs twentyone under /autograder (a second run changes nothing) and run_autograder grades a zip
    upload, writing results.json: a score, readable tests, the crash's source line, the bonus said to come."""
    bundle = tmp_path / "autograder.zip"
    r = subprocess.run(CLI + ["autograder", "gradescope", "--out", str(bundle), "--config", str(_rubric(tmp_path))],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(bundle) as z:
        names = z.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
        rubric = z.read("rubric.toml").decode()
    assert {"setup.sh", "run_autograder", "rubric.toml", "README.txt"} <= set(names)
    assert any(n.startswith("twentyone-") and n.endswith(".whl") and "/" not in n for n in names)
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert rubric.startswith("seed = ")  # drawn at build: every submission on the same shoes
    upload = tmp_path / "li.zip"  # what a student uploads: a zip whose folder holds the file
    with zipfile.ZipFile(upload, "w") as z:
        z.writestr("21点/mycodes.c", SEGV_C.read_text(encoding="utf-8"))
    script = f"""
mkdir -p /autograder/source /autograder/submission /autograder/results
cd /autograder/source && python3 -m zipfile -e {bundle} . && chmod +x setup.sh run_autograder
bash ./setup.sh > /autograder/setup1.log 2>&1
bash ./setup.sh > /autograder/setup2.log 2>&1
cp /autograder/source/run_autograder /autograder/run_autograder
cp {upload} /autograder/submission/
cd /autograder && ./run_autograder > /autograder/results/stdout 2>&1
cat /autograder/setup1.log; echo '--- second'; cat /autograder/setup2.log; echo '--- stdout'
cat /autograder/results/stdout; echo '--- results'; cat /autograder/results/results.json
test -x /autograder/twentyone-venv/bin/twentyone
"""
    r = _namespace(script, ("/autograder",))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    first, rest = r.stdout.split("--- second", 1)
    second, rest = rest.split("--- stdout", 1)
    stdout, results_text = rest.split("--- results", 1)
    assert "installing twentyone-" in first and "installing" not in second and "sandbox:" in second
    assert "twentyone autograder bonus --config rubric.toml" in stdout  # the instructor's command
    results = json.loads(results_text)
    text = _check_results(results, "gradescope")
    assert results["score"] == sum(t["score"] for t in results["tests"]) == 0
    for t in results["tests"]:
        assert {"name", "score", "max_score", "output", "visibility"} <= t.keys()
    legal = results["tests"][0]
    assert legal["name"].startswith("Plays legally") and legal["max_score"] == 60
    assert "segmentation fault (signal SIGSEGV) at mycodes.c:5 in first_action1" in text
    assert results["output"].splitlines()[0] == "21点/mycodes.c: 0 of 100 points by the course rubric"


@pytest.mark.slow
def test_prairielearn_bundle_runs_in_prairielearn_layout(tmp_path: Path) -> None:
    """autograder prairielearn writes the external grader (a Dockerfile from a public image, its setup, the
    grading script, an example question); set up as its Dockerfile does, grade.sh grades /grade/student and
    writes /grade/results/results.json with the same content."""
    out = tmp_path / "pl"
    r = subprocess.run(CLI + ["autograder", "prairielearn", "--out", str(out), "--config", str(_rubric(tmp_path))],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    docker = (out / "Dockerfile").read_text()
    py = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert f"FROM python:{py}-slim-bookworm" in docker and "setup.sh" in docker
    info = json.loads((out / "question" / "info.json").read_text())
    assert info["externalGradingOptions"]["entrypoint"] == "/grade/serverFilesCourse/twentyone/grade.sh"
    assert os.access(out / "serverFilesCourse" / "twentyone" / "grade.sh", os.X_OK)
    script = f"""
mkdir -p /grade/student /grade/results /grade/serverFilesCourse
TWENTYONE_PREFIX=/opt/twentyone bash {out}/image/setup.sh > /opt/twentyone/setup.log 2>&1 || {{
  cat /opt/twentyone/setup.log; exit 1; }}
cp -r {out}/serverFilesCourse/twentyone /grade/serverFilesCourse/
cp {BASIC_C} /grade/student/mycodes.c
cd /grade && /grade/serverFilesCourse/twentyone/grade.sh > /grade/results/stdout 2>&1 || {{
  cat /grade/results/stdout; exit 1; }}
cat /grade/results/results.json
"""
    r = _namespace(script, ("/grade", "/opt/twentyone"))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    results = json.loads(r.stdout)
    _check_results(results, "prairielearn")
    assert results["gradable"] is True and 0 < results["score"] <= 1
    assert [t["max_points"] for t in results["tests"]] == [60, 20, 20, 0]
    assert results["tests"][0]["message"].startswith("No foul, crash or time-out in")


@pytest.mark.slow
def test_the_bonus_is_played_for_the_class_from_stores_and_downloads(tmp_path: Path) -> None:
    """autograder bonus plays the class tournament between a results.sqlite's graded submissions and downloaded
    hand-ins (names from Gradescope's metadata), and writes bonus.csv: every bonus point of the rubric handed
    out once (shares rounded to the half point: RULES.md grade_bonus), a student that could not play given 0."""
    rubric = tmp_path / "rubric.toml"
    rubric.write_text("seed = 11\n" + RUBRIC + "[isolation]\ntrusted = true\n", encoding="utf-8")
    section = tmp_path / "section1"
    r = subprocess.run(CLI + ["grade", str(BASIC_C), str(STAND_PY), "--config", str(rubric), "--out", str(section),
                              "-q", "-j", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    export = tmp_path / "export"
    (export / "submission_77").mkdir(parents=True)
    shutil.copy(FOULS_PY, export / "submission_77" / "mycodes.py")
    (export / "submission_78").mkdir()
    shutil.copy(SYNTAX_C, export / "submission_78" / "mycodes.c")
    (export / "submission_metadata.yml").write_text(
        "submission_77:\n  :submitters:\n  - :name: 李雷\n    :sid: '2023001'\n    :email: li@example.edu\n"
        "  :score: 40.0\nsubmission_78:\n  :submitters:\n  - :name: Han Meimei\n    :sid: '2023002'\n", "utf-8")
    out = tmp_path / "bonus"
    r = subprocess.run(CLI + ["autograder", "bonus", "--config", str(rubric), "--out", str(out), "-j", "1",
                              str(section / "results.sqlite"), *sorted(str(p) for p in export.iterdir())],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stderr  # one hand-in does not compile: named, 0 bonus, the others placed
    raw = (out / "bonus.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(raw.decode("utf-8-sig").splitlines()))
    by = {row["submission"]: row for row in rows}
    assert set(by) == {"basic", "stand_py", "submission_77", "submission_78"}
    assert (by["submission_77"]["name"], by["submission_77"]["sid"]) == ("李雷", "2023001")
    assert by["submission_78"]["bonus"] == "0" and "does not compile" in by["submission_78"]["why"]
    sharing = sum(1 for row in rows if row["place"])
    assert abs(sum(float(row["bonus"]) for row in rows) - (10 + 6 + 3)) <= 0.25 * sharing  # half points
    assert sorted(row["place"] for row in rows if row["place"]) == ["1", "2", "3"] and not by["submission_78"]["place"]
    assert "bonus:" in r.stdout and "place" in r.stdout


def test_check_tells_a_student_the_result_in_words(tmp_path: Path) -> None:
    """twentyone check FILE: the points by the rubric, what went wrong first with its source line, each line in
    words, the tournament said to come with the class; a file that does not compile gets its compiler's line and
    exit 1."""
    # The seed pinned: on a drawn one the first round asks no decision one time in ten (a blackjack), and the
    # crash is in round 2.
    rubric = _rubric(tmp_path, "seed = 1\n")
    r = subprocess.run(CLI + ["check", str(SEGV_C), "--config", str(rubric), "-q"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "segfault_first_action1.c: 0 of 100 points by the course rubric"
    assert lines[1].startswith("What went wrong first: crashed: segmentation fault (signal SIGSEGV) at "
                               "segfault_first_action1.c:5 in first_action1 (round 1 of match")
    assert "once every hand-in is in" in r.stdout and not INTERNAL.findall(r.stdout)
    assert not list(tmp_path.glob("grade-results*"))  # nothing left behind without --out
    r = subprocess.run(CLI + ["check", str(SYNTAX_C), "--config", str(rubric), "-q"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 1 and "does not compile" in r.stdout.splitlines()[1], r.stdout


def test_check_and_the_platforms_results_in_chinese(tmp_path: Path) -> None:
    """check --lang zh says the result in Chinese (the points, what went wrong first with its source line, each
    rubric line, the bonus to come); autograder run --lang zh writes results.json in Chinese; a bundle built with
    --lang zh runs its grader with --lang zh."""
    from twentyone.grading.autograder.bundle import _template

    rubric = _rubric(tmp_path)
    r = subprocess.run(CLI + ["check", str(SEGV_C), "--config", str(rubric), "-q", "--lang", "zh"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "segfault_first_action1.c：按课程评分标准得 0 分（满分 100）"
    assert lines[1].startswith("最先出的问题：崩溃了：段错误（信号 SIGSEGV），位于 segfault_first_action1.c:5 的 "
                               "first_action1 函数（对 ")
    assert "* 合规游戏：任何一场都没有违规、崩溃或超时：0 / 60" in lines and "这只是自查" in lines[-1]
    assert "截止日期后由老师按名次加分" in r.stdout and "What went wrong" not in r.stdout
    results = tmp_path / "results.json"
    r = subprocess.run(CLI + ["autograder", "run", "gradescope", "--submission", str(SEGV_C), "--results",
                              str(results), "--config", str(rubric), "--lang", "zh"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["tests"][0]["name"] == "合规游戏：任何一场都没有违规、崩溃或超时"
    assert data["tests"][-1]["name"] == "班级锦标赛加分（截止日期后加上）"
    assert data["output"].startswith("segfault_first_action1.c：按课程评分标准得 0 分")
    for name in ("run_autograder", "grade.sh"):
        script = _template(name, LANG="zh")
        assert " --lang zh " in script and "@LANG@" not in script
        assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0


def test_an_upload_of_several_hand_ins_is_the_students_to_fix(tmp_path: Path) -> None:
    """autograder run on an upload holding two hand-ins: results.json says so to the student (0 points, what to
    upload), exit 0; a missing submission is the grader's failure: results.json says so, exit 1."""
    upload = tmp_path / "submission"
    for name in ("v1", "v2"):
        (upload / name).mkdir(parents=True)
        shutil.copy(BASIC_C, upload / name / "mycodes.c")
    results = tmp_path / "results" / "results.json"
    r = subprocess.run(CLI + ["autograder", "run", "gradescope", "--submission", str(upload), "--results",
                              str(results), "--config", str(_rubric(tmp_path))], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["score"] == 0 and "it holds 2 hand-ins (v1/, v2/)" in data["output"]
    assert "Upload one hand-in" in data["output"]
    r = subprocess.run(CLI + ["autograder", "run", "prairielearn", "--submission", str(tmp_path / "none"),
                              "--results", str(results)], capture_output=True, text=True, timeout=300)
    data = json.loads(results.read_text(encoding="utf-8"))
    assert r.returncode == 1 and data["gradable"] is False and "could not grade" in data["message"]
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
