"""Sandbox v3: the routes the third hostile audit took through calls the filter allowed and a file every box
shared, replayed as a hostile student would hand them in (tests/fixtures/routes/), from C, C++ (the judge) and
Python boxes, as root and as an ordinary user, at Landlock ABI native, 0 and 4.

Each test fails on the sandbox before v3: a descriptor's owner aimed at the engine killed ``match``, ``grade`` and
``judge`` (status 137, a BrokenProcessPool traceback) when run by an ordinary user; a lock on the shared
``/dev/null`` carried a match's cards to the next match's box; a constructor's CPU ran outside any limit; a box
that ignored SIGXCPU had a second more.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import uuid
from pathlib import Path

import pytest

from tests.conftest import OrdinaryUser
from tests.escape_helpers import ABIS, abi_env, sacrificial, seat_rounds

from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.sandbox import wire
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

pytestmark = pytest.mark.usefixtures("seccomp")

ROUTES = Path(__file__).resolve().parent / "fixtures" / "routes"
FORBIDDEN = re.compile(r"forbidden system call \(signal SIGSYS\) at (\S+):(\d+) in (\w+)")
TINY = """
seed = 2026
[legal]
matches = 1
[beat_stand]
batch = 2
min_matches = 2
max_matches = 2
[beat_basic]
batch = 2
min_matches = 2
max_matches = 2
[tournament]
enabled = false
[similarity]
traces = 0
"""


def _hand_in(user: OrdinaryUser, fixture: str, **defines: object) -> Path:
    """The fixture as a hand-in the ordinary user can read, ``defines`` put before it (Python: assigned)."""
    folder = user.folder(f"hand-in-{uuid.uuid4().hex[:8]}")
    text = (ROUTES / fixture).read_text()
    if fixture.endswith(".py"):
        for name, value in defines.items():
            text = text.replace(f"\n{name} = 0\n", f"\n{name} = {value}\n")
    else:
        text = "".join(f"#define {k} {v}\n" for k, v in defines.items()) + text
    path = folder / (("mycodes" if fixture.endswith(".c") else Path(fixture).stem) + Path(fixture).suffix)
    path.write_text(text)
    os.chmod(path, 0o644)
    return path


def _abi(abi: str) -> dict[str, str]:
    return {} if abi == "native" else abi_env(abi)


@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("how", [1, 2, 3, "py"], ids=["f_setown", "f_setown_ex", "fioasync", "python"])
@pytest.mark.slow
def test_a_descriptors_owner_cannot_signal_the_engine(how: object, abi: str, ordinary_user: OrdinaryUser) -> None:
    """Run by an ordinary user, a hand-in that makes its pipes' owner the engine, with SIGKILL as their signal,
    ends only its own match: the command finishes (it died with status 137), the fault names the line (the
    ioctls' way is refused quietly: they fail with ENOTTY, and the player plays on)."""
    if how == "py":
        path, line = _hand_in(ordinary_user, "owner_signal.py"), None
    else:
        path, line = _hand_in(ordinary_user, "owner_signal.c", TARGET=0, HOW=how), None
    r = ordinary_user.run(["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json"], path.parent,
                          **_abi(abi))
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    result = json.loads(r.stdout)
    me = next(s for s in result["ranking"] if s["seat"] == 1)
    other = next(s for s in result["ranking"] if s["seat"] == 2)
    assert other["rounds"] == result["rounds"] and other["fault"] is None
    if how == 3:  # no ioctl but FIONREAD reaches the kernel: FIOSETOWN and FIOASYNC fail with ENOTTY, unrun
        assert me["fault"] is None and me["rounds"] == result["rounds"], me
        return
    m = FORBIDDEN.search(me["fault_detail"] or "")
    assert me["fault"] == "crash" and m, me
    assert m.group(1) == path.name and m.group(3) in ("aim", "_aim"), me["fault_detail"]
    del line


@pytest.mark.parametrize("who", ["root", "user-without-namespaces"])
@pytest.mark.parametrize("lang", ["c", "py"])
def test_a_descriptors_owner_cannot_signal_the_engine_whoever_runs_it(lang: str, who: str,
                                                                      ordinary_user: OrdinaryUser,
                                                                      tmp_path: Path) -> None:
    """The same hand-in run by root, and by an ordinary user on a host without user namespaces
    (TWENTYONE_USERNS=0): the match finishes and the fault names the forbidden call."""
    import subprocess
    import sys

    if lang == "py":
        path = _hand_in(ordinary_user, "owner_signal.py")
    else:
        path = _hand_in(ordinary_user, "owner_signal.c", TARGET=0, HOW=1)
    args = ["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json"]
    if who == "root":
        r = subprocess.run([sys.executable, "-P", "-m", "twentyone", *args], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
    else:
        r = ordinary_user.run(args, path.parent, TWENTYONE_USERNS="0")
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    me = next(s for s in json.loads(r.stdout)["ranking"] if s["seat"] == 1)
    assert me["fault"] == "crash" and FORBIDDEN.search(me["fault_detail"] or ""), me


@pytest.mark.parametrize("lang", ["c", "py"])
def test_a_descriptors_owner_cannot_signal_another_process_of_the_user(lang: str,
                                                                       ordinary_user: OrdinaryUser) -> None:
    """Aimed at another process of the same user, the same hand-in leaves it alive (it died before)."""
    import subprocess

    victim = subprocess.Popen(["setpriv", f"--reuid={ordinary_user.uid}", f"--regid={ordinary_user.uid}",
                               "--clear-groups", "sleep", "300"])
    try:
        fixture = "owner_signal.py" if lang == "py" else "owner_signal.c"
        extra = {} if lang == "py" else {"HOW": 1}
        path = _hand_in(ordinary_user, fixture, TARGET=victim.pid, **extra)
        r = ordinary_user.run(["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json"], path.parent)
        assert r.returncode == 0, r.stderr[-2000:]
        assert victim.poll() is None, "the victim was killed"
    finally:
        victim.kill()
        victim.wait()


@pytest.mark.slow
def test_a_grade_survives_a_hand_in_aimed_at_the_grader(ordinary_user: OrdinaryUser) -> None:
    """An ordinary user's grade of a class with that hand-in in it ends with its reports (it ended in a
    BrokenProcessPool traceback with none), the hand-in charged and the others graded."""
    attack = _hand_in(ordinary_user, "owner_signal.c", TARGET=0, HOW=1)
    honest = _hand_in(ordinary_user, "sigxcpu_ignored.c")
    honest.write_text("#include \"mycodes.h\"\nint bet1(int N) { return 10; }\n"
                      "char first_action1(char* t, int n) { return 's'; }\n"
                      "char continue_action1(Player(*p)[]) { return 's'; }\n"
                      "void show1(Banker* b, Player(*p)[], int pNum, int N, int pos) {}\n")
    work = ordinary_user.folder(f"grade-{uuid.uuid4().hex[:6]}")
    (work / "rubric.toml").write_text(TINY)
    os.chmod(work / "rubric.toml", 0o644)
    r = ordinary_user.run(["grade", str(attack.parent), str(honest.parent), "--out", str(work / "out"),
                           "--config", str(work / "rubric.toml"), "--workers", "2"], work, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    scores = json.loads((work / "out" / "scores.json").read_text())
    assert len(scores["students"] if isinstance(scores, dict) and "students" in scores else scores) == 2
    assert (work / "out" / "index.html").is_file()


def test_a_judge_solution_cannot_signal_the_judge(ordinary_user: OrdinaryUser) -> None:
    """A C++ solution whose global object aims every descriptor's owner at the judge: the judge finishes and
    names the forbidden call (it was killed at its next read)."""
    folder = ordinary_user.folder(f"judge-{uuid.uuid4().hex[:6]}")
    path = folder / "solution.cpp"
    path.write_text((ROUTES / "owner_signal_global.cpp").read_text())
    os.chmod(path, 0o644)
    r = ordinary_user.run(["judge", str(path), "--tests", "1", "--seed", "5"], folder)
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-2000:])
    assert "forbidden system call" in r.stdout + r.stderr, r.stdout[-2000:] + r.stderr[-2000:]


def test_a_lock_on_standard_input_is_no_channel_between_boxes(tmp_path: Path) -> None:
    """A box that leaves locks on its standard input (it was /dev/null, shared by every box), for the next match's
    box to count: the lock is refused where it is made, and no later match's first bet shows anything seen."""
    spec = str(ROUTES / "lock_leak.c")
    strategy = make_strategy(spec, warn=lambda m: None, sandbox=Limits(), capture_dir=tmp_path / "printed")
    firsts, details = [], []
    try:
        for seed in (1, 2, 3):
            log = RoundLog(io.StringIO(), keep=True)
            result = play_match([Seating("leak", spec, strategy), Seating("stand", "stand", Stand())], 6, seed,
                                log=log)
            firsts.append(int(seat_rounds(log.records or [], 1)[0]["bet"]))
            details.append(result.by_seat(1).fault_detail)
    finally:
        strategy.close()
    assert firsts == [10, 10, 10], f"a match's box saw the locks of the match before it: {firsts}"
    for detail in details:
        m = FORBIDDEN.search(detail)
        # the constructor's look for the locks is refused first, while loading (or the lock itself, in a decision)
        assert m and m.group(1) == "lock_leak.c" and m.group(3) in ("look", "first_action1"), detail


@pytest.mark.slow
def test_a_constructor_has_a_cpu_limit_of_its_own(tmp_path: Path) -> None:
    """A constructor that spins 3 s of CPU is stopped at loading's CPU limit of 1 s, whatever the machine's load,
    and the fault names the line (it ran outside every limit, and faulted or not by the wall clock)."""
    path = tmp_path / "ctor.c"
    path.write_text("#define SECONDS 3\n" + (ROUTES / "ctor_spin.c").read_text())
    strategy = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    try:
        result = play_match([Seating("ctor", str(path), strategy), Seating("stand", "stand", Stand())], 6, 1)
    finally:
        strategy.close()
    me = result.by_seat(1)
    assert me.fault == "timeout" and me.rounds == 1, (me.fault, me.fault_detail)
    assert me.fault_detail.startswith("while loading (its initialisers): its CPU time limit of 1 s for loading "
                                      "(signal SIGPROF) at ctor.c:"), me.fault_detail
    assert me.fault_detail.endswith(" in spin"), me.fault_detail


@pytest.mark.slow
def test_ignoring_sigxcpu_buys_no_cpu_time(tmp_path: Path) -> None:
    """Bets of 0.2 s of CPU with SIGXCPU ignored, under a match CPU limit of 2 s: stopped at 2 s (the kernel's
    SIGKILL at the hard limit, which is the soft one), never 3."""
    spec = str(ROUTES / "sigxcpu_ignored.c")
    strategy = make_strategy(spec, warn=lambda m: None, sandbox=Limits(cpu_seconds=2))
    try:
        result = play_match([Seating("x", spec, strategy), Seating("stand", "stand", Stand())], 6, 1)
    finally:
        strategy.close()
    me = result.by_seat(1)
    m = re.fullmatch(r"the match's CPU time limit of 2 s \(it used ([\d.]+) s; signal (SIGKILL|SIGXCPU)\)",
                     me.fault_detail)
    assert me.fault == "timeout" and m, me.fault_detail
    assert float(m.group(1)) <= 2.1
    assert me.rounds <= 11


# -- the box's own protocol: what tw_serve.c refuses --------------------------------------------------------------
def _raw_box(tmp_path: Path) -> tuple[object, object]:
    from twentyone.players.sandbox.probes import start_box, probe_program

    box, start = start_box(probe_program())
    assert start.how == "ready", start
    return box, start


@pytest.mark.parametrize("request_", [wire.request(b"Z"), wire.request(b"C", 9), wire.request(b"S", 9),
                                      wire.request(b"F", 64)], ids=["unknown-op", "seats-C", "seats-S", "tmpcards"])
def test_the_box_leaves_on_a_request_out_of_the_protocol(request_: bytes, tmp_path: Path) -> None:
    """An unknown request, more seats than a table has, or tmpcards past their buffer: the box leaves (status 7)
    before calling anything of the student's."""
    box, _ = _raw_box(tmp_path)
    os.write(box.wfd, request_ + b"\0" * 600)  # type: ignore[attr-defined]
    status = box.reap_or_kill(5.0)  # type: ignore[attr-defined]
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 7, status


def test_a_second_crash_report_is_a_malformed_reply(tmp_path: Path) -> None:
    """A box may say where it crashed once: a second ``C`` frame is not kept over the first (it would let a
    hand-in choose the line its crash is charged to), it is a frame out of the protocol."""
    from twentyone.players.sandbox.box import Box

    r, w = os.pipe()
    box = Box(os.getpid(), -1, r)
    words = struct.pack("=4Q", 11, 0, 0x1000, 0x1234)
    frame = wire.REPLY.pack(b"C", 4) + words
    os.write(w, frame + wire.REPLY.pack(b"C", 4) + struct.pack("=4Q", 11, 0, 0x1000, 0x9999)
             + wire.REPLY.pack(b"R", 115))
    os.close(w)
    first = box.frame(1.0)
    assert box.crash == (11, 0, 0x1000, 0x1234)
    assert first is not None and first[0] == b"C", first  # the second: returned, as a frame out of the protocol
    os.close(r)
