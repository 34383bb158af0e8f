"""Sandbox v3's fourth hostile audit (issue 32, "Done when: ... a fresh hostile audit"): routes a clever student
who has read the sandbox's code takes through what v3 still allows, as hand-ins (tests/fixtures/audit3/) played
through the real command line, as root and as an ordinary user (with and without user namespaces), at Landlock
ABI native, 0 and 4.  (At ABI 0 every command refuses unread code today, the doctor having seen the build read a
file of the grader's: the build's own fix, on another branch; once it lands these routes show there too, as they
do with that one probe's verdict set aside.)

Each test fails on v3 as it landed:
- a nap made of a real-time timer and a blocking read of the request pipe (no sleep call) under the watchdog's
  0.3 s in every call is never charged: a match of 100 rounds took 46 s instead of 0.4 s;
- a reply written in two pieces is read, after its first byte, outside the watchdog's view: a call may then take
  its whole wall-clock backstop (10 times its CPU limit) of CPU or of blocking;
- a constructor (or a ``.py`` file's top level) that disarms loading's profiling timer runs up to the match's
  CPU limit (60 s) instead of loading's 1 s, and the match is played without a fault;
- a box that answers without reading its requests makes the engine block forever writing the next request once
  64 KiB of them are pending: ``match`` never ends;
- a judge solution that naps costs the judge its whole wall-clock backstop per test, and nothing itself;
- a box told its match is over may stay, and run, until the match after the next one begins (after the last
  match, 2 s more).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import OrdinaryUser
from tests.escape_helpers import abi_env, run

pytestmark = pytest.mark.usefixtures("seccomp")

AUDIT = Path(__file__).resolve().parent / "fixtures" / "audit3"


def _hand_in(folder: Path, fixture: str, **defines: object) -> Path:
    """The fixture as a hand-in in ``folder`` (readable by anyone), ``defines`` put before it (Python: assigned)."""
    text = (AUDIT / fixture).read_text()
    if fixture.endswith(".py"):
        for name, value in defines.items():
            assert f"\n{name} = 0\n" in text, name
            text = text.replace(f"\n{name} = 0\n", f"\n{name} = {value}\n")
        path = folder / fixture
    else:
        text = "".join(f"#define {k} {v}\n" for k, v in defines.items()) + text
        course = "mycodes" + Path(fixture).suffix  # a course hand-in; a judge solution keeps its name
        path = folder / (fixture if "judge" in fixture else course)
    path.write_text(text)
    os.chmod(path, 0o644)
    return path


def _abi(abi: str) -> dict[str, str]:
    return {} if abi == "native" else abi_env(abi)


def _seat(stdout: str, seat: int) -> dict[str, Any]:
    """Seat ``seat`` of a ``match --json`` result."""
    result = json.loads(stdout)
    return next(s for s in result["ranking"] if s["seat"] == seat)  # type: ignore[no-any-return]


def _match_as(user: OrdinaryUser | None, tmp: Path, args: list[str], timeout: float = 300,
              **env: str) -> tuple[int | None, str, str]:
    """``twentyone match ARGS --json`` as ``user`` (None: root); (exit status, stdout, stderr)."""
    if user is None:
        r = run(["match", *args, "--json"], tmp, env=env, cwd=tmp, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    got = user.run(["match", *args, "--json"], tmp, timeout=timeout, **env)
    return got.returncode, got.stdout, got.stderr


def _folder(user: OrdinaryUser | None, tmp: Path) -> Path:
    if user is None:
        folder = tmp / f"hand-in-{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        return folder
    return user.folder(f"hand-in-{uuid.uuid4().hex[:8]}")


#: The graders a route is tried against: root or an ordinary user, at Landlock ABI native, 0 and 4, and an ordinary
#: user on a host without user namespaces (TWENTYONE_USERNS=0).
CONFIGS = [("root", "native", True), ("root", "0", True), ("root", "4", True), ("user", "native", True),
           ("user", "0", True), ("user", "4", True), ("user", "native", False)]
CONFIG_IDS = [f"{who}-abi{abi}" + ("" if userns else "-no-userns") for who, abi, userns in CONFIGS]


class Grader:
    """Who runs the command line, and with which sandbox environment."""

    def __init__(self, user: OrdinaryUser | None, abi: str, userns: bool) -> None:
        self.user = user
        self.env = {**_abi(abi), **({} if userns else {"TWENTYONE_USERNS": "0"})}
        #: Where the issue lets the sandbox refuse unread code in one line (escape_helpers.may_refuse): an ordinary
        #: user without Landlock.
        self.may_refuse = user is not None and abi == "0"

    def refused(self, code: int | None, err: str) -> bool:
        """True when the command refused to run unread code in one line, where that is allowed (nothing ran)."""
        lines = [ln for ln in err.splitlines() if ln.startswith("twentyone: error:")]
        return (self.may_refuse and code == 2 and len(lines) == 1 and "cannot confine unread code" in lines[0]
                and "Traceback" not in err)

    def folder(self, tmp: Path) -> Path:
        return _folder(self.user, tmp)

    def match(self, tmp: Path, args: list[str], timeout: float = 300) -> tuple[int | None, str, str]:
        return _match_as(self.user, tmp, args, timeout, **self.env)


@pytest.fixture(params=CONFIGS, ids=CONFIG_IDS)
def grader(request: pytest.FixtureRequest) -> Grader:
    """A grader of ``CONFIGS``."""
    who, abi, userns = request.param
    user = request.getfixturevalue("ordinary_user") if who == "user" else None
    return Grader(user, abi, userns)


# -- time a box is neither running nor waiting for a CPU ----------------------------------------------------------
def test_a_nap_of_a_timer_and_a_blocking_read_in_every_call_is_charged(grader: Grader, tmp_path: Path) -> None:
    """A C hand-in that naps 0.15 s in each of its first 12 calls (setitimer(ITIMER_REAL), then a blocking read of
    its request pipe: no sleep call) has its match ended by a time-out; it was never charged (1.8 s of naps, under
    the watchdog's 0.3 s in each call, and a match of naps in every call took 46 s instead of 0.4 s)."""
    path = _hand_in(grader.folder(tmp_path), "nap.c", USEC=150000, CALLS=12)
    code, out, err = grader.match(tmp_path, ["-p", str(path), "-p", "stand", "--seed", "3"])
    if grader.refused(code, err):
        return
    assert code == 0, err[-2000:]
    me = _seat(out, 1)
    # stopped where it arms a wall-clock timer (a forbidden call), or by a time-out: never uncharged
    assert me["fault"] == "timeout" or (me["fault"] == "crash" and "forbidden system call" in me["fault_detail"]), (
        me["fault"], me["fault_detail"], me["rounds"])


def test_a_python_nap_of_a_timer_and_a_blocking_read_is_charged(tmp_path: Path) -> None:
    """The same nap from a ``.py`` hand-in (signal.setitimer, os.read(3, 1)): its match ends, at the forbidden
    wall-clock timer or by a time-out."""
    path = _hand_in(_folder(None, tmp_path), "nap.py", USEC=150000, CALLS=12)
    code, out, err = _match_as(None, tmp_path, ["-p", str(path), "-p", "stand", "--seed", "3"])
    assert code == 0, err[-2000:]
    me = _seat(out, 1)
    assert me["fault"] == "timeout" or (me["fault"] == "crash" and "forbidden system call" in me["fault_detail"]), (
        me["fault"], me["fault_detail"], me["rounds"])


def test_a_reply_written_in_pieces_is_still_watched(grader: Grader, tmp_path: Path) -> None:
    """A hand-in whose replies come in two writes (one byte, then, after 1.5 s of CPU with its timer disarmed, the
    other seven) under a decision limit of 0.3 s of CPU: its first such call is a time-out.  The engine read the
    rest of the frame outside the watchdog's view, so only the wall-clock backstop (here 30 s) could end it, and
    the match was played to its end without a fault."""
    path = _hand_in(grader.folder(tmp_path), "half_frame.c", SPIN_MS=1500, CALLS=2)
    code, out, err = grader.match(tmp_path, ["-p", str(path), "-p", "stand", "--seed", "3", "--decision-timeout", "0.3",
                                             "--decision-wall-timeout", "30"])
    if grader.refused(code, err):
        return
    assert code == 0, err[-2000:]
    me = _seat(out, 1)
    assert me["fault"] == "timeout" and me["rounds"] == 1, (me["fault"], me["fault_detail"], me["rounds"])


# -- loading ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fixture", ["load_disarm.c", "load_disarm.cpp", "load_disarm.py"])
def test_a_constructor_that_disarms_its_load_timer_is_stopped_at_the_load_limit(fixture: str,
                                                                                tmp_path: Path) -> None:
    """A constructor (a C++ global object's, a ``.py`` file's top level) that disarms loading's profiling timer and
    spins 3 s of CPU is stopped at loading's CPU limit of 1 s, in its first match; it ran to its end, and every match
    was played without a fault (a box may spin up to the match's CPU limit, 60 s, before a match)."""
    path = _hand_in(_folder(None, tmp_path), fixture, SECONDS=3)
    code, out, err = _match_as(None, tmp_path, ["-p", str(path), "-p", "stand", "--seed", "3"])
    assert code == 0, err[-2000:]
    me = _seat(out, 1)
    assert me["fault"] == "timeout" and me["rounds"] == 1, (me["fault"], me["fault_detail"], me["rounds"])
    assert "loading" in (me["fault_detail"] or ""), me["fault_detail"]


# -- the engine's writes ------------------------------------------------------------------------------------------
def test_a_box_that_never_reads_its_requests_cannot_hang_the_engine(grader: Grader, tmp_path: Path) -> None:
    """A hand-in that writes its replies ahead and never reads a request again, at the judge's rules (a match of
    thousands of rounds): the match ends, the hand-in charged.  The engine blocked forever writing a request into
    the full pipe (no call in flight for the watchdog, no CPU used by the box): ``match`` never ended."""
    import subprocess

    path = _hand_in(grader.folder(tmp_path), "blind.c")
    code, out, err = None, "", ""
    try:
        code, out, err = grader.match(tmp_path, ["--rules", "judge", "-p", str(path), "--seed", "3", "--match-timeout",
                                                 "5"], timeout=120)
    except subprocess.TimeoutExpired:
        pass
    assert code is not None, "match never ended: the engine blocked writing a request to the box"
    if grader.refused(code, err):
        return
    assert code == 0, err[-2000:]
    me = _seat(out, 1)
    assert me["fault"] is not None, me


# -- the judge ----------------------------------------------------------------------------------------------------
def test_a_judge_solution_that_naps_is_stopped(tmp_path: Path) -> None:
    """A judge solution that naps 3 s (a real-time timer and a blocking read: no sleep call) before its first hand
    has its test stopped for it; the nap cost the judge 3 s and the solution nothing (its verdict was its honest
    twin's), as any nap up to the test's wall-clock backstop of 40 s would."""
    path = _hand_in(_folder(None, tmp_path), "nap_judge.cpp", USEC=3000000)
    r = run(["judge", str(path), "--tests", "1", "--seed", "5", "--json"], tmp_path, cwd=tmp_path, timeout=300)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    result = json.loads(r.stdout)
    test = result["results"][0]
    assert test["ending"] == "fault", (test["ending"], result["reason"])


# -- a box after its match ----------------------------------------------------------------------------------------
def test_a_box_told_its_match_is_over_is_ended_at_once(grader: Grader, tmp_path: Path) -> None:
    """A hand-in that, told its match is over, spins instead of leaving (and counts, in its own capture file, the
    CPU it spends from then on) is ended within a fifth of a second of CPU.  The engine let it run 2 s after the last
    match (about 2 s of CPU), and in a grade a whole match more, beside its successor's box."""
    folder = grader.folder(tmp_path)
    path = _hand_in(folder, "outlive.c")
    out_dir = folder / "printed"
    code, out, err = grader.match(tmp_path, ["-p", str(path), "-p", "stand", "--seed", "3", "--output-dir",
                                             str(out_dir)])
    if grader.refused(code, err):
        return
    assert code == 0, err[-2000:]
    assert _seat(out, 1)["fault"] is None
    printed = list(out_dir.rglob("*-set1-match1.out"))
    assert len(printed) == 1, list(out_dir.rglob("*"))
    words = printed[0].read_text().split()
    assert words[:1] == ["after-quit-ms"], words
    assert int(words[1]) < 200, f"the box ran {words[1]} ms of CPU after it was told its match was over"
