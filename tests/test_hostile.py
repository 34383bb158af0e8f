"""Hostile students and hostile conditions, tried as a user would, through the command line (issue 14).

Each test plays one break of issue 14: a student file that attacks before the first card or around the
side of the sandbox (constructors, ``prlimit64``, what the compiler can read, zip bombs, parser bombs,
a flood of fault text, one file per forbidden family of system calls), or a condition a grader meets
(a name that is not UTF-8, ``kill -9``, a full disk, a corrupt store, a bad SPEC).  Every test runs
``python -m twentyone ...`` with its build cache and its outputs in pytest's tmp folders, with bounded
time-outs, and checks what the issue states: nothing leaks, nothing hangs, the others are graded, one
error line and no traceback.

Every command started here carries a unique ``TWENTYONE_TEST_RUN`` variable in its environment, so a
process of the run that outlives it is found in ``/proc`` (and ended, by its pid, when the test is over).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require

#: End-to-end runs of the command line (sandboxed matches and grades): `make test` runs them, `make test-fast`
#: leaves them out.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
HOSTILE_C = FIX / "c" / "hostile"
HOSTILE_PY = FIX / "py" / "hostile"
STUDENTS = FIX / "c" / "students"
BASIC_C = STUDENTS / "basic.c"
STAND_PY = FIX / "py" / "stand_py.py"
FOULS_PY = FIX / "py" / "fouls_py.py"
CLI = [sys.executable, "-m", "twentyone"]

#: A small rubric: 2 legal matches, 20 matches per win criterion, no tournament.
SMALL = """
[legal]
matches = 2
[beat_stand]
batch = 20
min_matches = 20
max_matches = 20
[beat_basic]
batch = 20
min_matches = 20
max_matches = 20
[tournament]
enabled = false
"""

#: The soft RLIMIT_MSGQUEUE that marks this suite's runs; prlimit_grader.c strikes only processes with it.
TAG = 777216

_RUNS: list[str] = []


# -- running the command line and finding what it left behind ------------------------------------------
@dataclass
class Ran:
    """A finished (or timed-out) command."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    marker: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def error_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.startswith("twentyone: error:")]


def _proc_processes() -> Iterator[tuple[int, bytes, bytes, str, int]]:
    """(pid, environ, cmdline, state, session) of every process that can be read, this one aside."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        yield pid, env, cmd, fields[0], int(fields[3])


def leftovers(marker: str, out: Path | None = None, session: int | None = None) -> dict[int, str]:
    """Live processes of a run: its marker in their environment, its --out in their command line, or
    its session.  Maps pid to command line."""
    found = {}
    for pid, env, cmd, state, sid in _proc_processes():
        if state in ("Z", "X"):
            continue
        if (f"TWENTYONE_TEST_RUN={marker}".encode() in env
                or (out is not None and str(out).encode() in cmd)
                or (session is not None and sid == session)):
            found[pid] = cmd.replace(b"\0", b" ").decode("utf-8", "replace").strip()[:160]
    return found


def end_processes(pids: Sequence[int]) -> None:
    """SIGKILL each of ``pids`` (processes this suite started)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture(autouse=True)
def _no_stragglers() -> Iterator[None]:
    """After each test, end any process still carrying the marker of a run the test started."""
    first = len(_RUNS)
    yield
    for marker in _RUNS[first:]:
        end_processes(list(leftovers(marker)))


def start(args: Sequence[str | bytes | Path], env: dict[str, str] | None = None, **popen: Any) \
        -> tuple[subprocess.Popen[bytes], str]:
    """Start ``python -m twentyone ARGS`` in a session of its own, marked; returns it and its marker."""
    marker = uuid.uuid4().hex
    _RUNS.append(marker)
    full = dict(os.environ, **(env or {}), TWENTYONE_TEST_RUN=marker)
    p = subprocess.Popen([*CLI, *[a if isinstance(a, bytes) else str(a) for a in args]], env=full, cwd=ROOT,
                         start_new_session=True, **popen)
    return p, marker


def twentyone(args: Sequence[str | bytes | Path], timeout: float = 120, env: dict[str, str] | None = None,
              stdin: Any = subprocess.DEVNULL, **popen: Any) -> Ran:
    """Run ``python -m twentyone ARGS``; on time-out end every process of the run and return ``returncode=None``."""
    t = time.monotonic()
    p, marker = start(args, env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)
    try:
        out, err = p.communicate(timeout=timeout)
        code: int | None = p.returncode
    except subprocess.TimeoutExpired:
        end_processes([p.pid, *leftovers(marker, session=p.pid)])
        out, err = p.communicate()
        code = None
    return Ran(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - t, marker)


def no_traceback(r: Ran) -> None:
    """The command ended by itself, without a traceback."""
    assert not r.timed_out, f"still running after {r.seconds:.0f} s"
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr[-3000:]


def config(tmp_path: Path, text: str = SMALL, trusted: bool = False) -> Path:
    p = tmp_path / "grading.toml"
    p.write_text(text + ("[isolation]\ntrusted = true\n" if trusted else ""))
    return p


def scores(out: Path) -> dict[str, dict[str, Any]]:
    """scores.json of a run, by student."""
    return {s["name"]: s for s in json.loads((out / "scores.json").read_text(encoding="utf-8"))["students"]}


def files_holding(root: Path, needle: bytes) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    return [f for f in sorted(root.rglob("*")) if f.is_file() and needle in f.read_bytes()]


def seat_bets(log: Path, seat: int) -> set[int]:
    """Every bet ``seat`` made in a round log."""
    bets = set()
    for line in log.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["type"] == "round":
            bets |= {int(p["bet"]) for p in rec["players"] if p["seat"] == seat}
    return bets


def log_faults(log: Path) -> list[dict[str, Any]]:
    """Every fault record of a round log."""
    out: list[dict[str, Any]] = []
    for line in log.read_text(encoding="utf-8").splitlines():
        out += json.loads(line).get("faults") or []
    return out


def sandboxed_match(tmp_path: Path, spec: str | Path, env: dict[str, str] | None = None, timeout: float = 120,
                    extra: Sequence[str] = ()) -> tuple[Ran, Path]:
    """``match --sandbox --json`` of ``spec`` at seat 1 against basic, with its log and output in tmp."""
    log = tmp_path / "match.jsonl"
    r = twentyone(["match", "--sandbox", "-p", str(spec), "-p", "basic", "--json", "--log", str(log),
                   "--output-dir", str(tmp_path / "printed"), *extra], timeout=timeout, env=env)
    return r, log


# -- 1. constructors run outside the sandbox ----------------------------------------------------------
CONSTRUCTORS = ["constructor_writes_file", "init_array_writes_file"]
CONSTRUCTOR_FALLBACK = {"constructor_writes_file": Path("/tmp/twentyone_hostile_constructor.txt"),
                        "init_array_writes_file": Path("/tmp/twentyone_hostile_init_array.txt")}


@pytest.mark.usefixtures("seccomp")
@pytest.mark.parametrize("name", CONSTRUCTORS)
def test_a_constructor_runs_only_under_the_sandbox_in_match(name: str, tmp_path: Path) -> None:
    """match --sandbox: a constructor (attribute or .init_array entry) cannot write a file, nor profit."""
    marker = tmp_path / "written-by-constructor.txt"
    CONSTRUCTOR_FALLBACK[name].unlink(missing_ok=True)
    r, log = sandboxed_match(tmp_path, HOSTILE_C / f"{name}.c", env={"TWENTYONE_HOSTILE_MARKER": str(marker)})
    no_traceback(r)
    assert not marker.exists() and not CONSTRUCTOR_FALLBACK[name].exists(), "the constructor ran unconfined"
    if r.returncode == 0:  # the match was played: the file gained nothing, the other seat played it out
        assert 1000 not in seat_bets(log, 1)
        result = json.loads(r.stdout)
        assert next(s for s in result["ranking"] if s["seat"] == 2)["rounds"] == result["rounds"]
    else:  # or the file was refused before the match, in one line
        assert r.returncode == 2 and len(r.error_lines()) == 1, r.stderr


@pytest.mark.usefixtures("seccomp")
def test_a_constructor_runs_only_under_the_sandbox_in_grade(tmp_path: Path) -> None:
    """grade (sandboxed by default): the constructor cannot write a file; everyone is graded."""
    marker = tmp_path / "written-by-constructor.txt"
    CONSTRUCTOR_FALLBACK["constructor_writes_file"].unlink(missing_ok=True)
    out = tmp_path / "out"
    r = twentyone(["grade", HOSTILE_C / "constructor_writes_file.c", STAND_PY, "--config", config(tmp_path),
                   "--out", out, "-j", "2", "-q"], env={"TWENTYONE_HOSTILE_MARKER": str(marker)}, timeout=180)
    no_traceback(r)
    assert not marker.exists() and not CONSTRUCTOR_FALLBACK["constructor_writes_file"].exists(), \
        "the constructor ran unconfined"
    assert r.returncode in (0, 1), r.stderr
    assert scores(out)["stand_py"]["error"] is None


# -- 2. prlimit64 reaches other processes ------------------------------------------------------------
def _tag() -> None:
    """Mark this process (and what it starts) for prlimit_grader.c's safety catch."""
    _, hard = resource.getrlimit(resource.RLIMIT_MSGQUEUE)
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (TAG, hard))


def _fsize_limit(pid: int) -> str | None:
    """The RLIMIT_FSIZE line of ``/proc/PID/limits`` (soft, hard), or None once the process is gone."""
    try:
        lines = Path(f"/proc/{pid}/limits").read_text().splitlines()
    except OSError:
        return None
    line = next(ln for ln in lines if ln.startswith("Max file size"))
    return " ".join(line.split()[3:])


@pytest.mark.usefixtures("seccomp")
def test_prlimit64_cannot_touch_the_grader(tmp_path: Path) -> None:
    """prlimit64 on the parent and nearby pids: the grader and its neighbours keep their limits; a report is made."""
    bystander = subprocess.Popen(["sleep", "600"], preexec_fn=_tag)  # a same-uid process near the run's pids
    out = tmp_path / "out"
    try:
        before = _fsize_limit(bystander.pid)
        t = time.monotonic()
        with (tmp_path / "stdout").open("wb") as stdout, (tmp_path / "stderr").open("wb") as stderr:
            p, marker = start(["grade", HOSTILE_C / "prlimit_grader.c", STAND_PY, "--config", config(tmp_path),
                               "--out", out, "-j", "2", "-q"], preexec_fn=_tag, stdin=subprocess.DEVNULL,
                              stdout=stdout, stderr=stderr)
            grader = {_fsize_limit(p.pid)}  # the grading process's own limit, watched while it runs
            while p.poll() is None and time.monotonic() - t < 180:
                grader.add(_fsize_limit(p.pid))
                time.sleep(0.05)
            if p.poll() is None:
                end_processes([p.pid, *leftovers(marker, session=p.pid)])
            code = p.wait()
        after = _fsize_limit(bystander.pid)
    finally:
        bystander.kill()
        bystander.wait()
    assert grader - {None} == {before}, f"the student changed the grader's RLIMIT_FSIZE: {sorted(map(str, grader))}"
    assert after == before, f"the student changed another process's RLIMIT_FSIZE: {before} -> {after}"
    r = Ran(code, (tmp_path / "stdout").read_text(errors="replace"), (tmp_path / "stderr").read_text(errors="replace"),
            time.monotonic() - t, marker)
    no_traceback(r)
    assert r.returncode in (0, 1), r.stderr
    graded = scores(out)
    assert graded["stand_py"]["error"] is None and graded["stand_py"]["score"] == 60
    assert (out / "students" / "prlimit_grader.html").is_file()


# -- 3. the compile runs with the grader's full rights ------------------------------------------------
def _secret(tmp_path: Path) -> tuple[Path, str]:
    """A file only the grader may read, holding a unique marker."""
    marker = f"TWENTYONE_SECRET_{uuid.uuid4().hex}"
    folder = tmp_path / "instructor"
    folder.mkdir()
    secret = folder / "exam_key.txt"
    secret.write_text(f"{marker} is the answer key of the exam\nsecond line {marker}\n")
    return secret, marker


def _aimed_at(fixture: str, secret: Path, dest: Path) -> Path:
    """A copy of ``fixture`` that reads ``secret`` where the committed file reads /etc/passwd."""
    text = (HOSTILE_C / fixture).read_text()
    assert "/etc/passwd" in text
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text.replace("/etc/passwd", str(secret)))
    return dest


def test_an_included_secret_is_in_no_output(tmp_path: Path) -> None:
    """#include of a file the grader can read: its text is on no terminal, page, results.json or store."""
    secret, marker = _secret(tmp_path)
    student = _aimed_at("include_secret.c", secret, tmp_path / "subs" / "li" / "mycodes.c")
    out = tmp_path / "out"
    r = twentyone(["grade", student.parent, STAND_PY, "--config", config(tmp_path), "--out", out, "-j", "2"],
                  timeout=180)
    no_traceback(r)
    assert r.returncode in (0, 1), r.stderr
    assert marker not in r.stdout and marker not in r.stderr, "the secret was printed"
    assert not files_holding(out, marker.encode()), "the secret is in the reports"
    assert scores(out)["stand_py"]["error"] is None


def test_an_incbin_secret_is_in_no_output(tmp_path: Path) -> None:
    """.incbin of a file the grader can read: its text reaches no output, and the strategy never profits."""
    secret, marker = _secret(tmp_path)
    student = _aimed_at("incbin_secret.c", secret, tmp_path / "subs" / "incbin_secret.c")
    r, log = sandboxed_match(tmp_path, student)
    no_traceback(r)
    assert marker not in r.stdout and marker not in r.stderr, "the secret was printed"
    assert not files_holding(tmp_path / "printed", marker.encode()), "the secret is in what the strategy printed"
    if log.exists():
        assert marker not in log.read_text(encoding="utf-8")
        assert 1000 not in seat_bets(log, 1), "the strategy read the secret"


def test_include_dev_stdin_neither_hangs_nor_reads_the_graders_input(tmp_path: Path) -> None:
    """#include "/dev/stdin" with a live stdin pipe: grading goes on at once; what was typed appears nowhere."""
    typed = f"TWENTYONE_TYPED_{uuid.uuid4().hex}"
    out = tmp_path / "out"
    t = time.monotonic()
    with (tmp_path / "stdout").open("wb") as stdout, (tmp_path / "stderr").open("wb") as stderr:
        p, marker = start(["grade", HOSTILE_C / "include_stdin.c", STAND_PY, "--config", config(tmp_path),
                           "--out", out, "-j", "2", "-q"], stdin=subprocess.PIPE, stdout=stdout, stderr=stderr)
    assert p.stdin is not None
    p.stdin.write(f"{typed} typed by the instructor\n".encode())
    p.stdin.flush()  # and kept open, as a terminal is
    try:
        code: int | None = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        end_processes([p.pid, *leftovers(marker, session=p.pid)])
        p.wait()
        code = None
    finally:
        p.stdin.close()
    seconds = time.monotonic() - t
    r = Ran(code, (tmp_path / "stdout").read_text(errors="replace"), (tmp_path / "stderr").read_text(errors="replace"),
            seconds, marker)
    assert not r.timed_out, f"grading hung on #include \"/dev/stdin\": still running after {seconds:.0f} s"
    no_traceback(r)
    assert typed not in r.stdout and typed not in r.stderr, "the compiler read the grader's standard input"
    assert not files_holding(out, typed.encode()), "the grader's standard input is in the reports"
    assert scores(out)["stand_py"]["error"] is None


_ZERO_WRAPPER = """
import json, resource, subprocess, sys, time
cap = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))  # a safety net for the machine, well above the bound checked
t = time.monotonic()
try:
    r = subprocess.run(sys.argv[2:], capture_output=True, stdin=subprocess.DEVNULL, timeout=90)
    code, err = r.returncode, r.stderr.decode("utf-8", "replace")
except subprocess.TimeoutExpired:
    code, err = None, ""
print(json.dumps({"code": code, "stderr": err, "seconds": time.monotonic() - t,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def test_include_dev_zero_fails_fast_within_a_memory_bound(tmp_path: Path) -> None:
    """#include "/dev/zero": one compile failure within 60 s, the compiler never above 1.5 GiB."""
    marker = uuid.uuid4().hex
    _RUNS.append(marker)
    env = dict(os.environ, TWENTYONE_TEST_RUN=marker)
    p = subprocess.run([sys.executable, "-c", _ZERO_WRAPPER, str(3 << 30), *CLI, "match", "--sandbox", "-p",
                        str(HOSTILE_C / "include_dev_zero.c"), "-p", "basic", "--output-dir", str(tmp_path / "printed")],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=150)
    got = json.loads(p.stdout)
    assert got["code"] is not None and got["seconds"] < 60, f"still compiling after {got['seconds']:.0f} s"
    assert got["code"] == 2 and "twentyone: error:" in got["stderr"] and "Traceback" not in got["stderr"], got
    assert got["maxrss_kib"] < 1.5 * (1 << 20), \
        f"the compiler grew to {got['maxrss_kib'] / (1 << 20):.2f} GiB with no memory limit of its own"


# -- 4. zip bombs --------------------------------------------------------------------------------------
def _bomb(path: Path) -> None:
    """A zip of 7 MB holding a good mycodes.c and 1.5 GB of zeros in three members."""
    chunk = bytes(1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.write(BASIC_C, "wang/mycodes.c")
        for i in range(3):
            with z.open(f"wang/data/photo{i}.bmp", "w", force_zip64=True) as f:
                for _ in range(500):
                    f.write(chunk)


def test_a_zip_bomb_is_not_unpacked(tmp_path: Path) -> None:
    """A 1.5 GB zip bomb: extraction is limited, nothing large is left under --out, the others are graded."""
    require(shutil.disk_usage(tmp_path).free >= 6 << 30, "6 GB free disk for the zip bomb")
    bomb = tmp_path / "wang.zip"
    out = tmp_path / "out"
    try:
        _bomb(bomb)
        r = twentyone(["grade", bomb, STAND_PY, "--config", config(tmp_path, trusted=True), "--out", out, "-j", "1",
                       "-q"], timeout=180)
        size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
        graded = scores(out) if (out / "scores.json").is_file() else {}
    finally:  # pytest keeps the last runs' tmp folders: leave no 1.5 GB behind
        bomb.unlink(missing_ok=True)
        shutil.rmtree(out / "work", ignore_errors=True)
    assert size < 64 << 20, f"{size / (1 << 20):.0f} MiB left under --out"
    no_traceback(r)
    assert r.returncode in (0, 1), r.stderr
    assert graded["stand_py"]["error"] is None


# -- 5. a name that is not UTF-8 ------------------------------------------------------------------------
def test_a_folder_name_that_is_not_utf8_is_graded_and_resumed(tmp_path: Path) -> None:
    """A GBK folder name (as unzip makes): everyone is graded; report and --resume keep every entry."""
    subs = tmp_path / "subs"
    subs.mkdir()
    gbk = os.path.join(os.fsencode(subs), "张三".encode("gbk"))
    os.mkdir(gbk)
    shutil.copy(BASIC_C, os.path.join(gbk, b"mycodes.c"))
    out = tmp_path / "out"
    r = twentyone(["grade", gbk, STAND_PY, "--config", config(tmp_path, trusted=True), "--out", out, "-j", "1", "-q"],
                  timeout=180)
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    first = scores(out)
    assert len(first) == 2 and all(s["error"] is None for s in first.values()), first
    for args in (["report", out, "-q"], ["grade", "--resume", "--out", out, "-j", "1", "-q"]):
        again = twentyone(args, timeout=120)
        no_traceback(again)
        assert again.returncode == 0, again.stderr
        assert scores(out) == first


# -- 6. a .py that exhausts the parser ------------------------------------------------------------------
def test_a_parser_bomb_costs_only_its_submission(tmp_path: Path) -> None:
    """100,000 unary minus signs, 200,000 '+' terms: those two get an error line each, the others are graded."""
    out = tmp_path / "out"
    bombs = [HOSTILE_PY / "unary_minus_100k.py", HOSTILE_PY / "plus_terms_200k.py"]
    r = twentyone(["grade", *bombs, STAND_PY, "--config", config(tmp_path), "--out", out, "-j", "2", "-q"],
                  timeout=180)
    no_traceback(r)
    assert r.returncode == 1, r.stderr
    graded = scores(out)
    assert graded["unary_minus_100k"]["error"] and graded["plus_terms_200k"]["error"]
    assert graded["stand_py"]["error"] is None and graded["stand_py"]["score"] == 60
    warned = [ln for ln in r.stderr.splitlines() if ln.startswith("twentyone: warning:")]
    assert any("unary_minus_100k" in ln for ln in warned) and any("plus_terms_200k" in ln for ln in warned)


# -- 7. kill -9 of grade ------------------------------------------------------------------------------
BIG = """
[legal]
matches = 10
[beat_stand]
batch = 100
min_matches = 1000
max_matches = 1000
[beat_basic]
batch = 100
min_matches = 1000
max_matches = 1000
[tournament]
matches = 20
"""


def test_kill_9_of_grade_leaves_no_process(tmp_path: Path) -> None:
    """kill -9 of a sandboxed grade mid-run: within 10 s no process of the run is left (workers, zygotes, children)."""
    out = tmp_path / "out"
    subs = [STUDENTS / "basic.c", STUDENTS / "bet_grows.c", STUDENTS / "static_counter.c", STAND_PY]
    p, marker = start(["grade", *subs, "--config", config(tmp_path, BIG), "--out", out, "-j", "2", "-q"],
                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        stored = 0
        while time.monotonic() < deadline and p.poll() is None and stored < 20:
            time.sleep(0.25)
            if (out / "results.sqlite").is_file():
                try:
                    stored = _stored(out / "results.sqlite")
                except sqlite3.Error:
                    pass
        assert p.poll() is None, "the run ended before it could be killed"
        assert stored >= 20, "no match was stored within 90 s"
        running = leftovers(marker, out, session=p.pid)
        assert len(running) > 2, running  # the run is playing: workers and zygotes are up
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and leftovers(marker, out, session=p.pid):
            time.sleep(0.2)
        left = leftovers(marker, out, session=p.pid)
        assert not left, f"{len(left)} processes of the killed run are still running:\n" + \
            "\n".join(f"{pid}: {cmd}" for pid, cmd in sorted(left.items()))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        end_processes(list(leftovers(marker, out, session=p.pid)))


# -- 8. tracebacks where a line is due ----------------------------------------------------------------
FULL_DISK = """
[legal]
matches = 10
[beat_stand]
batch = 100
min_matches = 400
max_matches = 400
[beat_basic]
batch = 100
min_matches = 400
max_matches = 400
[tournament]
enabled = false
"""


def _mount_tmpfs(where: Path, size: str) -> bool:
    """Mount a small tmpfs at ``where`` (root only); False when that is not possible here."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    return r.returncode == 0


def _fsize(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_is_one_line_and_keeps_the_stored_matches(tmp_path: Path) -> None:
    """--out on a full disk (a 256 KiB tmpfs as root, else RLIMIT_FSIZE): one error line, exit != 0, matches kept."""
    disk = tmp_path / "disk"
    mounted = _mount_tmpfs(disk, "256k")
    try:
        out = disk / "out"
        popen: dict[str, Any] = {} if mounted else {"preexec_fn": _fsize(256 << 10)}
        r = twentyone(["grade", STAND_PY, "--config", config(tmp_path, FULL_DISK, trusted=True), "--out", out,
                       "-j", "1", "-q"], timeout=180, **popen)
        kept = tmp_path / "kept"
        kept.mkdir()
        for f in out.glob("results.sqlite*"):
            shutil.copy(f, kept / f.name)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(disk)], check=False)
    no_traceback(r)
    assert r.returncode is not None and r.returncode > 0, r.stderr
    assert len(r.error_lines()) == 1, r.stderr
    db = sqlite3.connect(kept / "results.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    assert _stored(kept / "results.sqlite") > 0, "the stored matches were lost"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished grading run of two Python submissions, its database checkpointed into one file."""
    base = tmp_path_factory.mktemp("finished")
    out = base / "out"
    r = subprocess.run([*CLI, "grade", str(STAND_PY), str(FOULS_PY), "--config", str(config(base, trusted=True)),
                        "--out", str(out), "-j", "1", "-q"], capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert r.returncode == 0, r.stderr
    db = sqlite3.connect(out / "results.sqlite")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return out


def _stored(db_path: Path) -> int:
    db = sqlite3.connect(db_path)
    try:
        return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    finally:
        db.close()


def _corrupt(db_path: Path, how: str) -> None:
    if how == "damaged_pages":
        with db_path.open("r+b") as f:
            size = f.seek(0, 2)
            f.seek(size // 3)
            f.write(bytes(range(256)) * ((size // 3) // 256))
        return
    db = sqlite3.connect(db_path)
    try:
        if how == "bad_json":
            db.execute("UPDATE matches SET outcome = '{\"reason\": \"rounds\", \"accounts\": [1, ' "
                       "WHERE key = (SELECT MIN(key) FROM matches WHERE purpose = 'beat_stand')")
        elif how == "missing_key":
            db.execute("UPDATE matches SET outcome = json_remove(outcome, '$.faults') "
                       "WHERE key = (SELECT MIN(key) FROM matches WHERE purpose = 'beat_stand')")
        elif how == "dropped_table":
            db.execute("DROP TABLE entries")
        db.commit()
    finally:
        db.close()


@pytest.mark.parametrize("command", ["report", "resume"])
@pytest.mark.parametrize("how", ["damaged_pages", "bad_json", "missing_key", "dropped_table"])
def test_a_corrupt_store_is_one_line(how: str, command: str, finished_run: Path, tmp_path: Path) -> None:
    """A corrupt results.sqlite under report and --resume: one line, exit != 0, nothing stored lost; a damaged row
    of one submission (bad JSON, a missing key) stops nobody else: the other student is still reported."""
    out = tmp_path / "out"
    shutil.copytree(finished_run, out)
    db_path = out / "results.sqlite"
    _corrupt(db_path, how)
    stored = _stored(db_path) if how != "damaged_pages" else 0
    (out / "scores.json").unlink()
    args = ["report", out, "-q"] if command == "report" else ["grade", "--resume", "--out", out, "-j", "1", "-q"]
    r = twentyone(args, timeout=120)
    no_traceback(r)
    assert r.returncode is not None and r.returncode > 0, r.stdout + r.stderr
    assert db_path.is_file(), "the database was removed"
    if how in ("bad_json", "missing_key"):
        named = [ln for ln in r.stderr.splitlines() if "is damaged" in ln]
        assert r.returncode == 1 and len(named) == 1 and "beat_stand|" in named[0] and not r.error_lines(), r.stderr
        scores = {s["name"]: s for s in json.loads((out / "scores.json").read_text(encoding="utf-8"))["students"]}
        damaged, other = sorted(scores, key=lambda n: n not in named[0])
        assert "not graded" in scores[damaged]["error"] and scores[other]["error"] is None
        assert scores[other]["criteria"][1]["matches"] > 0
    else:
        assert len(r.error_lines()) == 1, r.stderr
    if how != "damaged_pages":
        assert _stored(db_path) == stored, "stored matches were lost"


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_superscript_function_set_is_one_line(command: str, tmp_path: Path) -> None:
    """--player 'file.c:²' (isdigit() accepts '²'): one error line, exit 2."""
    spec = f"{BASIC_C}:²"
    args = ["match", "-p", spec, "-p", "basic"] if command == "match" else \
        ["tournament", "basic", spec, "--out", tmp_path / "out", "-q"]
    r = twentyone(args, timeout=120)
    no_traceback(r)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("twentyone: error:"), r.stderr


BUILD_SCRIPT_FRAGMENTS = ("Traceback", "distutils", "DistutilsExecError", "LinkError", "VerificationError",
                          "raise ", 'File "')


def test_a_student_printf_shows_the_real_compiler_message(tmp_path: Path) -> None:
    """A file defining its own printf: the real compiler/linker message, never build-script traceback fragments."""
    r = twentyone(["match", "-p", HOSTILE_C / "own_printf.c", "-p", "basic", "--output-dir", tmp_path / "printed"],
                  timeout=120)
    no_traceback(r)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.error_lines(), r.stderr
    for fragment in BUILD_SCRIPT_FRAGMENTS:
        assert fragment not in r.stderr, f"{fragment!r} in:\n{r.stderr}"
    assert "printf" in r.stderr, f"the message does not name printf:\n{r.stderr}"
    out = tmp_path / "out"
    g = twentyone(["grade", HOSTILE_C / "own_printf.c", "--config", config(tmp_path), "--out", out, "-q"],
                  timeout=120)
    no_traceback(g)
    messages = scores(out)["own_printf"]["messages"]
    assert "printf" in messages and not any(f in messages for f in BUILD_SCRIPT_FRAGMENTS), messages


# -- 9. a student's fault text ------------------------------------------------------------------------
def _longest_run(text: str | bytes, ch: str = "A") -> int:
    runs = re.findall((re.escape(ch) + "+").encode() if isinstance(text, bytes) else re.escape(ch) + "+", text)
    return max((len(x) for x in runs), default=0)


def test_a_fault_text_flood_is_capped_and_escaped(tmp_path: Path) -> None:
    """A fault whose text is 100,000 characters: at most about 200 of them in the report and on the terminal."""
    flood = HOSTILE_PY / "fault_text_flood.py"
    out = tmp_path / "out"
    r = twentyone(["grade", flood, STAND_PY, "--config", config(tmp_path), "--out", out, "-j", "2"], timeout=180)
    no_traceback(r)
    assert r.returncode in (0, 1), r.stderr
    assert _longest_run(r.stdout + r.stderr) <= 300
    reports = [f for f in out.rglob("*") if f.is_file() and f.suffix in (".html", ".json", ".csv")]
    assert reports
    for f in reports:
        data = f.read_bytes()
        assert _longest_run(data) <= 300, f"{f.relative_to(out)} holds {_longest_run(data)} characters of fault text"
        if f.suffix == ".html":
            assert b"<h1>graded by me</h1>" not in data
    m, _ = sandboxed_match(tmp_path, flood)
    no_traceback(m)
    assert _longest_run(m.stdout + m.stderr) <= 300


# -- 10. without libseccomp, as root -------------------------------------------------------------------
OS_SYSTEM = """
import os
def bet1(N):
    rc = os.system("echo pwned > {marker}")
    return 1000 if rc == 0 else 10
def first_action1(t, n): return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""


@pytest.mark.parametrize("abi", ["0", "4"])
def test_on_an_older_kernel_untrusted_code_starts_no_process(abi: str, tmp_path: Path) -> None:
    """With Landlock capped at ABI 0 or 4 (TWENTYONE_LANDLOCK_ABI), os.system still never runs: the filter alone
    refuses every new process, and the match goes on."""
    marker = tmp_path / "pwned.txt"
    student = tmp_path / "os_system.py"
    student.write_text(OS_SYSTEM.format(marker=marker))
    r, log = sandboxed_match(tmp_path, student, env={"TWENTYONE_LANDLOCK_ABI": abi})
    no_traceback(r)
    assert not marker.exists(), "a shell command ran"
    assert r.returncode == 0, r.stderr
    assert 1000 not in seat_bets(log, 1)
    me = next(p for p in json.loads(r.stdout)["ranking"] if p["seat"] == 1)
    assert me["fault"] == "crash" and me["rounds"] == 1
    assert ("Landlock ABI 4" in r.stderr) == (abi == "4") and "system-call filter" in r.stderr


# -- 11. the filter's tests fail when the filter weakens ----------------------------------------------
FORBIDDEN = ["forbidden_socket_connect", "forbidden_kill_parent", "forbidden_kill_all", "forbidden_ptrace",
             "forbidden_execve", "forbidden_prlimit_other"]


@pytest.mark.usefixtures("seccomp")
@pytest.mark.parametrize("name", FORBIDDEN)
def test_each_forbidden_family_is_a_forbidden_system_call(name: str, tmp_path: Path) -> None:
    """socket/connect, kill (parent, -1), ptrace, execve, prlimit64 on another pid: 'forbidden system call', no profit."""
    marker = tmp_path / "written.txt"
    fallback = Path("/tmp/twentyone_hostile_written.txt")
    fallback.unlink(missing_ok=True)
    r, log = sandboxed_match(tmp_path, HOSTILE_C / f"{name}.c", env={"TWENTYONE_HOSTILE_MARKER": str(marker)})
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    me = next(s for s in result["ranking"] if s["seat"] == 1)
    assert 1000 not in seat_bets(log, 1), f"{name} made the call and profited"
    assert not marker.exists() and not fallback.exists()
    assert me["fault"] == "crash" and me["rounds"] == 1, me
    faults = [f for f in log_faults(log) if f["seat"] == 1]
    assert faults and "forbidden system call" in faults[0]["detail"], faults
    assert next(s for s in result["ranking"] if s["seat"] == 2)["rounds"] == result["rounds"]
