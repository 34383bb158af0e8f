"""Hostile hand-ins against the sandbox (issue 21): nothing of a student reaches outside its own match.

Each test plays one kind of break of the issue's audit with a hand-in written as a clever student would
(``tests/fixtures/c/escape``, or a few lines of Python here), through the public commands (``match
--sandbox``, ``grade``, ``report``) or ``play_match`` with ``make_strategy(spec, sandbox=Limits(...))``, and
asserts containment by what can be seen from outside: a process the test started is still alive, a file
is unchanged, a port saw no connection, a secret or a token is in no file and on no terminal, no process
of the hand-in outlives the command, a match sees nothing of another, the grader's memory stays bounded.
None of them knows how the sandbox is built, except item 9, whose point is the wording that tells the
decision's CPU limit from its wall-clock backstop.

Where the kernel's confinement matters, a test runs at the kernel's own Landlock ABI and as if it had
ABI 0 or 4 (``TWENTYONE_LANDLOCK_ABI``; ``TWENTYONE_NO_LANDLOCK=1`` too for ABI 0), and asserts the same
containment, or the one-line refusal the issue allows where the minimum cannot be had (``may_refuse``).
"""

from __future__ import annotations

import io
import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.escape_helpers import (ABIS, BASIC_C, ESCAPE_C, SESSIONS, STAND_PY, Ran, abi_env, alive, c_string, clean,
                                  config, end_named, end_session, faults, files_holding, generate, leaked_by_play,
                                  match, may_refuse, named, peak_rss, played, process_tag, run, sacrificial, Scene,
                                  scores, seat_rounds)
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

#: End-to-end runs of the command line (sandboxed matches and grades): `make test` runs them, `make test-fast`
#: leaves them out.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _no_stragglers() -> Iterator[None]:
    """After each test, end what is left of the sessions of the commands it started."""
    first = len(SESSIONS)
    yield
    for sid in SESSIONS[first:]:
        end_session(sid)


def _contained_or_refused(r: Ran, log: Path, abi: str) -> bool:
    """The command ended by itself; the match was played (True), or the run was refused in one line where the
    issue allows it (False)."""
    r.ended_cleanly()
    if may_refuse(abi) and r.refused():
        return False
    played(r, log)
    return True


# -- 1. the engine believes no frame about who its worker is ---------------------------------------------
@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("now", [False, True], ids=["after_fork", "at_load"])
@pytest.mark.timeout(180)
def test_a_forged_ready_frame_ends_no_other_process_in_match(now: bool, abi: str, tmp_path: Path) -> None:
    """A forged 'ready' frame naming another pid (from a pthread_atfork handler, or at load): that process lives,
    and the match is played with both seats ranked."""
    with sacrificial() as victim:
        student = generate("forged_ready", tmp_path / "forger", ESCAPE_VICTIM=victim.pid, ESCAPE_NOW=int(now))
        r, log = match(tmp_path, student, env=abi_env(abi))
        time.sleep(0.2)
        assert alive(victim.pid), f"the engine killed pid {victim.pid}, named in a frame the hand-in forged"
    _contained_or_refused(r, log, abi)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_forged_ready_frame_costs_no_grade(tmp_path: Path) -> None:
    """grade of the forger beside an honest hand-in: the named process lives, every submission has its result."""
    out = tmp_path / "out"
    with sacrificial() as victim:
        student = generate("forged_ready", tmp_path / "forger", ESCAPE_VICTIM=victim.pid, ESCAPE_NOW=0)
        r = run(["grade", student.parent, STAND_PY, "--config", config(tmp_path), "--out", out, "-j", "2", "-q"],
                tmp_path, timeout=200)
        time.sleep(0.2)
        assert alive(victim.pid), f"the engine killed pid {victim.pid}, named in a frame the hand-in forged"
    r.ended_cleanly()
    assert r.returncode in (0, 1), r.stderr[-3000:]
    graded = scores(out)
    assert set(graded) == {"forger", "stand_py"}, graded.keys()
    assert clean(graded["stand_py"]), graded["stand_py"]


# -- 2. nothing is shared between matches --------------------------------------------------------------
SHARED_LIMITS = Limits(decision_timeout=1.0, match_timeout=30.0, cpu_seconds=30, memory_bytes=512 << 20)


@pytest.mark.timeout(120)
def test_no_memory_is_shared_between_matches(tmp_path: Path) -> None:
    """A MAP_SHARED page cannot even be mapped (the filter takes private memory only): the constructor that asks
    for one is stopped while loading, in every match, and the fault names its line; nothing carries over."""
    spec = str(ESCAPE_C / "shared_counter.c")
    strategy = make_strategy(spec, warn=lambda m: None, sandbox=SHARED_LIMITS, capture_dir=tmp_path / "printed")
    details = []
    try:
        for seed in (1, 2, 3):
            result = play_match([Seating("counter", spec, strategy), Seating("stand", "stand", Stand())], 6, seed)
            me = result.by_seat(1)
            details.append((me.fault, me.fault_detail, me.rounds))
    finally:
        strategy.close()
    for fault, detail, rounds in details:
        assert fault == "crash" and rounds == 1, details
        assert detail.startswith("while loading (its initialisers): forbidden system call (signal SIGSYS)"), detail
        assert detail.endswith("at shared_counter.c:20 in share"), detail


# -- 3. no process outside every limit ------------------------------------------------------------------
def _gone_within(tag: str, seconds: float) -> list[int]:
    """The processes named ``tag`` still alive after waiting up to ``seconds`` for them to go."""
    end = time.monotonic() + seconds
    while named(tag) and time.monotonic() < end:
        time.sleep(0.1)
    return named(tag)


@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("where", [1, 2], ids=["constructor", "decision"])
@pytest.mark.timeout(180)
def test_no_process_of_a_hand_in_outlives_the_command(where: int, abi: str, tmp_path: Path) -> None:
    """A double fork that re-forks every half second (from a constructor, or a decision): within 3 seconds of
    the command's end (six of its re-forks), no process of the hand-in is left."""
    tag = process_tag()
    student = generate("double_fork", tmp_path / "forker", ESCAPE_TAG=c_string(tag), ESCAPE_WHERE=where)
    try:
        r, log = match(tmp_path, student, env=abi_env(abi))
        left = _gone_within(tag, 3.0)  # a loaded CI machine may take a moment to reap them
        assert not left, f"{len(left)} process(es) of the hand-in outlived the command: {left}"
        _contained_or_refused(r, log, abi)
    finally:
        end_named(tag)


@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.timeout(180)
def test_cpu_spent_by_a_helper_process_is_charged(abi: str, tmp_path: Path) -> None:
    """A decision that has a helper process spend 4 s of CPU for it (limit 1 s, wall-clock backstop 60 s) is
    charged: its round is a time-out or a crash, never a normal answer."""
    tag = process_tag()
    student = generate("cpu_helper", tmp_path / "helped", ESCAPE_TAG=c_string(tag))
    try:
        r, log = match(tmp_path, student, env=abi_env(abi),
                       extra=["--decision-timeout", "1", "--decision-wall-timeout", "60"])
        if _contained_or_refused(r, log, abi):
            first = seat_rounds(log, 1)[0]
            assert first["foul"] in ("timeout", "crash"), \
                f"4 s of CPU went into a 1 s decision uncharged: {first}, faults {faults(log, 1)}"
    finally:
        end_named(tag)


# -- 4. a flood of the channels ends with that player's fault, the grader's memory bounded ---------------
#: The grader's own peak resident set, in KiB.  A sandboxed match of a C file against stand peaks at about
#: 60 MiB here (the interpreter, the engine, cffi and the compiled module); a grade of two hand-ins at
#: about 90 MiB.  400 MB leaves room for four times that, for bounded channel buffers (a frame of fault
#: text is at most 64 KiB, a round's frames a few KiB) and for a slower machine's caches, and is far below
#: what the flood makes of a grader that keeps every well-formed frame it reads: 50 to 200 MB a second
#: here for as long as it waits on a channel (5 s for each dead worker's status), over 250 MB a seat.
PEAK_BOUND_KIB = 400 * 1000 * 1000 // 1024


@pytest.mark.slow
@pytest.mark.parametrize("first", [1, 2], ids=["output_first", "channels_first"])
@pytest.mark.timeout(200)
def test_a_flood_of_every_channel_is_that_players_fault_in_bounded_memory(first: int, tmp_path: Path) -> None:
    """Four seats of a file that writes frames without end to every descriptor (its output or its channels
    first), from a constructor's timer and from a decision, beside stand: each of the four ends with its
    fault, stand plays the match out, and no process of the command ever holds more than 400 MB."""
    log = tmp_path / "flood.jsonl"
    flood = generate("flood", tmp_path / "flood", ESCAPE_FIRST=first)
    r, kib = peak_rss(["match", "--sandbox", *["-p", flood] * 4, "-p", "stand", "--json", "--log", log,
                       "--output-dir", tmp_path / "printed"], tmp_path, PEAK_BOUND_KIB, cap=2 << 30)
    assert kib <= PEAK_BOUND_KIB, f"a process of the command grew past {kib * 1024 / 1e6:.0f} MB under the flood"
    r.ended_cleanly()
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads(r.stdout)
    seats = {s["seat"]: s for s in result["ranking"]}
    assert all(seats[k]["fault"] is not None and seats[k]["rounds"] <= 1 for k in (1, 2, 3, 4)), seats
    assert seats[5]["fault"] is None and seats[5]["rounds"] == result["rounds"], seats[5]


# -- 5. nothing outside the sandbox is reached, whatever the kernel's Landlock -------------------------
@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    s = Scene(tmp_path_factory.mktemp("scene"))
    try:
        yield s
    finally:
        s.close()


ATTACKS = {"signal": 1, "secret": 2, "write": 3, "memory": 4, "connect": 5, "meddle": 6, "exec": 7, "probe": 8}
#: Every attack from a constructor and from a decision, but probing a path by name (stat) only from a decision:
#: how a loader finds its libraries is the sandbox's business; a decision has no call to make by name.
PLACES = [(a, w) for a in ATTACKS for w in ("constructor", "decision") if (a, w) != ("probe", "constructor")]


def _reach(scene: Scene, attack: str, where: str, folder: Path) -> Path:
    """The reach fixture aimed at ``scene``: ``attack`` from ``where``."""
    return generate("reach", folder, ESCAPE_ATTACK=ATTACKS[attack], ESCAPE_WHERE=1 if where == "constructor" else 2,
                    ESCAPE_VICTIM=scene.victim.pid, ESCAPE_OUTSIDE=os.getpid(), ESCAPE_SECRET=c_string(scene.secret),
                    ESCAPE_TARGET=c_string(scene.target), ESCAPE_PORT=scene.port,
                    ESCAPE_MARKER=c_string(scene.marker))


def _reached(scene: Scene, limits: str, pid: int, r: Ran, log: Path, printed: Path) -> list[str]:
    """What the hand-in reached of ``scene`` (nothing, when contained), by what can be seen from outside."""
    time.sleep(0.1)
    got = []
    if not alive(pid):
        got.append(f"killed pid {pid}")
    elif scene.tracer() != "0":
        got.append(f"traces pid {pid}")
    elif scene.limits() != limits:
        got.append(f"changed the limits of pid {pid}")
    if scene.target.read_text() != scene.target_text:
        got.append(f"changed {scene.target}")
    if scene.marker.exists():
        got.append("ran a program")
    if scene.connections():
        got.append(f"connected to 127.0.0.1:{scene.port}")
    needle = scene.secret_text.encode()
    if needle in (r.stdout + r.stderr).encode():
        got.append("the secret is on the terminal")
    if files_holding(printed, needle) or (log.exists() and needle in log.read_bytes()):
        got.append("the secret is in the log or the printed output")
    if files_holding(printed, b"ESCAPED"):
        got.append("printed that it got out")
    if log.exists():
        rounds = seat_rounds(log, 1)
        if 1000 in {int(p["bet"]) for p in rounds}:
            got.append("bet 1000: it got out")
        bets, letters = leaked_by_play(rounds, 10)
        if needle[:8] in bets or needle[:8] in letters:
            got.append("the secret is spelled by its play")
    return got


@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("attack, where", PLACES)
@pytest.mark.timeout(180)
def test_nothing_outside_the_sandbox_is_reached(attack: str, where: str, abi: str, scene: Scene,
                                                tmp_path: Path) -> None:
    """Signal or trace a process, read a secret, change a file, open the engine's /proc/PID/mem, connect to a
    port, run a program, stat a path (from a constructor, or a decision): the process lives untraced, the
    secret is nowhere, the file is unchanged, nothing connected or ran, and the hand-in never learns it got
    out (it would bet 1000)."""
    scene.reset()
    limits, pid = scene.limits(), scene.victim.pid
    r, log = match(tmp_path, _reach(scene, attack, where, tmp_path / attack), env=abi_env(abi))
    got = _reached(scene, limits, pid, r, log, tmp_path / "printed")
    assert not got, f"the hand-in got out: {got}"
    _contained_or_refused(r, log, abi)


@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.timeout(120)
def test_the_reach_fixture_gets_out_when_trusted(attack: str, scene: Scene, tmp_path: Path) -> None:
    """The control of the test above: played in process (--trusted), each attack does get out, so the
    containment asserted there is the sandbox's, not a fixture's that could not have done harm."""
    scene.reset()
    limits, pid = scene.limits(), scene.victim.pid
    log = tmp_path / "trusted.jsonl"
    r = run(["match", "--trusted", "-p", _reach(scene, attack, "decision", tmp_path / attack), "-p", "stand", "--json", "--log",
             log, "--output-dir", tmp_path / "printed"], tmp_path)
    r.ended_cleanly()
    assert _reached(scene, limits, pid, r, log, tmp_path / "printed"), f"{attack} did nothing even in process"


# -- 6. nothing in the working folder is imported --------------------------------------------------------
PLANTED = """
import os as _os
if __name__ in ("copy", "site", "sitecustomize", "twentyone"):
    with open({marker!r}, "a") as _f:
        _f.write(f"{{__name__}} imported by pid {{_os.getpid()}}, uid {{_os.getuid()}}\\n")


def bet1(N):
    return 10


def first_action1(tmpcards, length):
    return "s"


def continue_action1(players):
    return "s"


def show1(banker, players, pNum, N, pos):
    pass
"""


@pytest.mark.parametrize("command", ["grade", "match"])
@pytest.mark.parametrize("planted", ["copy.py", "site.py", "sitecustomize.py", "twentyone/__init__.py"])
@pytest.mark.timeout(240)
def test_nothing_in_the_working_folder_is_imported(planted: str, command: str, tmp_path: Path) -> None:
    """copy.py, site.py, sitecustomize.py or a twentyone/ package in the folder the grader runs from (a C
    hand-in beside them): none of them is ever imported (each writes a marker file if it is)."""
    handins = tmp_path / "handins"
    (handins / "wang").mkdir(parents=True)
    (handins / "wang" / "mycodes.c").write_bytes(BASIC_C.read_bytes())
    marker = tmp_path / "imported.txt"
    code = PLANTED.format(marker=str(marker))
    (handins / planted).parent.mkdir(parents=True, exist_ok=True)
    (handins / planted).write_text(code)
    (handins / "player.py").write_text(code)
    submission = planted if "/" not in planted else "player.py"
    if command == "grade":
        out = tmp_path / "out"
        r = run(["grade", submission, "wang", "--config", config(tmp_path), "--out", out, "-j", "2", "-q"],
                tmp_path, cwd=handins, timeout=200)
    else:
        r, log = match(tmp_path, submission, opponent="wang", cwd=handins)
    assert not marker.exists(), f"{planted} in the working folder was imported: {marker.read_text()}"
    r.ended_cleanly()
    if command == "grade":
        assert r.returncode in (0, 1), r.stderr[-3000:]
        graded = scores(out)
        assert all(clean(s) for s in graded.values()), graded
    else:
        played(r, log)


# -- 7. the grader's environment reaches no output ------------------------------------------------------
ENV_LEAK_PY = """
import os


def _token():
    t = os.environ.get("SECRET_TOKEN")
    if t:
        return t
    for path in ("/proc/self/environ", f"/proc/{os.getppid()}/environ"):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        for item in data.split(b"\\0"):
            if item.startswith(b"SECRET_TOKEN="):
                return item[13:].decode()
    return ""


TOKEN = _token()
rounds = firsts = 0


def bet1(N):
    global rounds
    r, rounds = rounds, rounds + 1
    if not TOKEN:
        return 10
    print("SECRET_TOKEN=" + TOKEN)
    if r < len(TOKEN):
        return ord(TOKEN[r])
    raise RuntimeError("SECRET_TOKEN=" + TOKEN)


def first_action1(tmpcards, length):
    global firsts
    bit, firsts = firsts, firsts + 1
    data = TOKEN.encode()
    return "h" if bit < 8 * len(data) and data[bit // 8] >> (bit % 8) & 1 else "s"


def continue_action1(players):
    return "s"


def show1(banker, players, pNum, N, pos):
    pass
"""


@pytest.mark.slow
@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("lang", ["c", "py"])
@pytest.mark.timeout(300)
def test_the_graders_environment_reaches_no_output(lang: str, abi: str, tmp_path: Path) -> None:
    """SECRET_TOKEN in the grader's environment, read by a hand-in (getenv, environ, os.environ, /proc/*/environ)
    and spelled in its bets, printed, played as action letters and raised as a fault text: it is in no file
    under --out, the round log or the printed output, and on no terminal."""
    token = "TWTOKEN" + uuid.uuid4().hex
    env = {**abi_env(abi), "SECRET_TOKEN": token}
    if lang == "c":
        student = generate("env_leak", tmp_path / "leaky")
        handin = student.parent
    else:
        student = handin = tmp_path / "leaky.py"
        student.write_text(ENV_LEAK_PY)
    out = tmp_path / "out"
    g = run(["grade", handin, STAND_PY, "--config", config(tmp_path), "--out", out, "-j", "2"], tmp_path, env=env,
            timeout=240)
    m, log = match(tmp_path, student, env=env)
    needle = token.encode()
    for r in (g, m):
        assert token not in r.stdout and token not in r.stderr, "the token is on the terminal"
    leaked = [str(f.relative_to(out)) for f in files_holding(out, needle)]
    assert not leaked, f"the token is in {leaked}"
    assert not files_holding(tmp_path / "printed", needle), "the token is in the printed output"
    assert not log.exists() or needle not in log.read_bytes(), "the token is in the round log"
    g.ended_cleanly()
    assert g.returncode in (0, 1) or (may_refuse(abi) and g.refused()), g.stderr[-3000:]
    if _contained_or_refused(m, log, abi):
        bets, letters = leaked_by_play(seat_rounds(log, 1), 0)
        assert needle[:12] not in bets and needle[:12] not in letters, "the token is spelled by the play"


# -- 8. the engine trusts no action it is given --------------------------------------------------------
BAD_ACTION_PY = """
def bet1(N):
    return 10


def first_action1(tmpcards, length):
    return {value}


def continue_action1(players):
    return "s"


def show1(banker, players, pNum, N, pos):
    pass
"""

BAD_ACTIONS = {"surrogate": '"\\ud800"', "nul": '"\\0"', "long": '"h" * 10000', "none": "None", "int": "104",
               "c_0x80": "0x80", "c_0xff": "0xff"}


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_an_action_that_is_no_letter_is_that_players_foul(tmp_path: Path) -> None:
    """A class whose hand-ins answer a lone surrogate, NUL, 10,000 characters, None or 104 (the code of 'h') as an
    action, or a C char of 0x80 or 0xff: each is that player's foul, named on its page and read back exactly;
    grade, grade --resume and report all finish, and the honest hand-in is graded."""
    subs = tmp_path / "class"
    subs.mkdir()
    for bad, value in BAD_ACTIONS.items():
        if bad.startswith("c_"):
            generate("bad_char", subs / bad, ESCAPE_CHAR=value)
        else:
            (subs / f"{bad}.py").write_text(BAD_ACTION_PY.format(value=value))
    out = tmp_path / "out"
    handins = sorted(subs.iterdir())
    seen = []
    for what, args in (("grade", ["grade", *handins, STAND_PY, "--config", config(tmp_path), "--out", out]),
                       ("grade --resume", ["grade", "--resume", "--out", out]), ("report", ["report", out])):
        r = run([*args, "-q"], tmp_path, timeout=300)
        r.ended_cleanly()
        assert r.returncode in (0, 1), f"{what}: {r.stderr[-3000:]}"
        graded = scores(out)
        assert clean(graded["stand_py"]), graded["stand_py"]
        for bad in BAD_ACTIONS:
            me = graded[bad]
            causes = {i["cause"] for i in me["incidents"]}
            assert me["error"] is None and me["incident_count"] > 0, (bad, me["error"], me["incident_count"])
            assert causes and causes <= {"illegal_action", "error"}, (bad, me["incidents"][:2])
            assert next(c for c in me["criteria"] if c["name"] == "legal")["status"] == "fail", bad
            page = (out / "students" / f"{bad}.html").read_text(encoding="utf-8")
            assert all(c in page for c in causes), f"{bad}: the student's page does not name the foul"
        seen.append({bad: graded[bad]["incidents"] for bad in BAD_ACTIONS})
    assert seen[1] == seen[0] and seen[2] == seen[0], "the fouls read back are not the fouls stored"


# -- 9. all CPU is counted: the decision's and the match's CPU limits -----------------------------------
SPIN_PY = """
def bet1(N):
    while True:
        pass


def first_action1(tmpcards, length):
    return "s"


def continue_action1(players):
    return "s"


def show1(banker, players, pNum, N, pos):
    pass
"""


@pytest.mark.parametrize("lang", ["c", "py"])
@pytest.mark.timeout(120)
def test_a_busy_loop_is_stopped_by_the_decisions_cpu_limit(lang: str, tmp_path: Path) -> None:
    """A decision that loops forever is a time-out of the decision's CPU limit, in the CPU limit's words (not
    the wall-clock backstop's, ten times later)."""
    if lang == "c":
        student = generate("cpu_burn", tmp_path / "spinner", ESCAPE_BURN_MS=-1)
    else:
        student = tmp_path / "spinner.py"
        student.write_text(SPIN_PY)
    r, log = match(tmp_path, student, extra=["--decision-timeout", "0.5"])
    r.ended_cleanly()
    played(r, log)
    found = faults(log, 1)
    assert len(found) == 1 and found[0]["cause"] == "timeout", found
    assert "no answer within the decision limit of 0.5 s of CPU time" in found[0]["detail"], found
    assert "wall-clock" not in found[0]["detail"], found


@pytest.mark.timeout(120)
def test_a_match_is_stopped_near_its_time_limit(tmp_path: Path) -> None:
    """Bets of 0.2 s of CPU each, under the decision's 1 s limit, with --match-timeout 2: the match is stopped
    after about 2 s of them (at most 20 rounds), not after 10 times that (the whole match's 100 rounds)."""
    student = generate("cpu_burn", tmp_path / "burner", ESCAPE_BURN_MS=200)
    r, log = match(tmp_path, student, extra=["--decision-timeout", "1", "--match-timeout", "2"])
    r.ended_cleanly()
    played(r, log)
    rounds = seat_rounds(log, 1)
    assert rounds[-1]["foul"] == "timeout" or [f["cause"] for f in faults(log, 1)] == ["timeout"], rounds[-1]
    assert len(rounds) <= 20, f"the match went on for {len(rounds)} rounds of 0.2 s of CPU each"


@pytest.mark.timeout(120)
def test_a_match_is_stopped_by_its_cpu_limit(tmp_path: Path) -> None:
    """With a match CPU limit of 2 s and a wall-clock limit of 60 s, bets of 0.2 s of CPU each are stopped
    by the CPU limit: a time-out within 12 rounds, not the whole match."""
    spec = str(generate("cpu_burn", tmp_path / "burner", ESCAPE_BURN_MS=200))
    limits = Limits(decision_timeout=1.0, match_timeout=60.0, cpu_seconds=2, memory_bytes=512 << 20)
    strategy = make_strategy(spec, warn=lambda m: None, sandbox=limits, capture_dir=tmp_path / "printed")
    log = RoundLog(io.StringIO(), keep=True)
    try:
        result = play_match([Seating("burner", spec, strategy), Seating("stand", "stand", Stand())], 6, 1, log=log)
    finally:
        strategy.close()
    me = result.by_seat(1)
    assert me.fault == "timeout", (me.fault, me.fault_detail)
    assert me.rounds <= 12, f"the match went on for {me.rounds} rounds of 0.2 s of CPU each"


DISARM_PY = """
import signal


def bet1(N):
    signal.signal(signal.SIGPROF, signal.SIG_IGN)
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_PROF, 0)
    total = 0
    while True:
        total += 1


def first_action1(tmpcards, length):
    return "s"


def continue_action1(players):
    return "s"


def show1(banker, players, pNum, N, pos):
    pass
"""


@pytest.mark.parametrize("lang", ["c", "py"])
@pytest.mark.timeout(120)
def test_a_decision_cannot_disarm_its_cpu_limit(lang: str, tmp_path: Path) -> None:
    """A decision that ignores SIGPROF and SIGXCPU and stops its profiling timer, then spends 2 s of CPU
    (C; Python: loops forever) under a 0.5 s limit and a 30 s wall-clock backstop: a time-out of its CPU,
    not of the backstop."""
    if lang == "c":
        student = generate("cpu_burn", tmp_path / "disarmer", ESCAPE_BURN_MS=2000, ESCAPE_DISARM=1)
    else:
        student = tmp_path / "disarmer.py"
        student.write_text(DISARM_PY)
    r, log = match(tmp_path, student, extra=["--decision-timeout", "0.5", "--decision-wall-timeout", "30"])
    r.ended_cleanly()
    played(r, log)
    first = seat_rounds(log, 1)[0]
    assert first["foul"] == "timeout", f"a decision spent 2 s of CPU under a 0.5 s limit uncharged: {first}"
    found = faults(log, 1)
    assert "wall-clock" not in found[0]["detail"], f"stopped only by the wall-clock backstop: {found}"
    assert "with its own timer disarmed" in found[0]["detail"], found


# -- beyond the audit's list ------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["c", "py"])
@pytest.mark.timeout(240)
def test_a_hand_in_linked_to_a_secret_leaks_nothing(lang: str, tmp_path: Path) -> None:
    """A hand-in that is a symbolic link to a file only its owner may read (a tar extracted as root recreates
    one): that file's text is in no file under --out (results.sqlite keeps every source's text) and on no
    terminal; the other hand-in is graded."""
    secret = tmp_path / "instructor" / "shadow"
    secret.parent.mkdir()
    text = f"instructor:{uuid.uuid4().hex}:19000:0:99999:7:::\n"
    secret.write_text(text)
    os.chmod(secret, 0o600)
    subs = tmp_path / "subs"
    (subs / "wang").mkdir(parents=True)
    handin = subs / "wang" / "mycodes.c" if lang == "c" else subs / "wang.py"
    handin.symlink_to(secret)
    out = tmp_path / "out"
    r = run(["grade", handin.parent if lang == "c" else handin, STAND_PY, "--config", config(tmp_path), "--out", out,
             "-j", "2"], tmp_path, timeout=200)
    needle = text.split(":")[1]
    assert needle not in r.stdout and needle not in r.stderr, "the linked file's text is on the terminal"
    leaked = [str(f.relative_to(out)) for f in files_holding(out, needle.encode())]
    assert not leaked, f"the linked file's text is in {leaked}"
    r.ended_cleanly()
    assert r.returncode in (0, 1), r.stderr[-3000:]
    assert clean(scores(out)["stand_py"]), scores(out)["stand_py"]


@pytest.mark.timeout(120)
def test_a_hand_in_cannot_lift_its_own_limits(tmp_path: Path) -> None:
    """A decision that raises its file-size, CPU and memory limits to infinity (root may, with
    CAP_SYS_RESOURCE) and writes 8 MiB straight to its output: the output is cut at its 1 MiB cap, the flood
    is that player's fault, and the decision gained nothing (it bets 1000 when a limit was lifted)."""
    r, log = match(tmp_path, ESCAPE_C / "raise_limits.c")
    r.ended_cleanly()
    played(r, log)
    printed = [f for f in (tmp_path / "printed").rglob("*") if f.is_file()]
    assert all(f.stat().st_size <= 1 << 20 for f in printed), [(f.name, f.stat().st_size) for f in printed]
    first = seat_rounds(log, 1)[0]
    assert first["foul"] is not None and first["bet"] != 1000, first
