"""The sandbox: a crash, hang, flood or cheat costs only that player.

Every hostile test checks the same four things: the engine survives (the call returns), the cause is
reported (the fault and its detail), the match completes (the other seat plays to the end), and the
cheat gains nothing (what the strategy tried to learn or do did not happen).
"""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from twentyone.players.builtin.course import Basic, Stand
from twentyone.match import MatchResult, Seating, play_match
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog
from twentyone.players.sandbox.ends import describe_status
from twentyone.players.sandbox.limits import Limits
from twentyone.players.sandbox.seccomp import filter_architecture

from tests.conftest import IN_CI, require_seccomp

#: Skips where no system-call filter can be built, except under CI=true: there the test fails instead.
needs_seccomp = pytest.mark.usefixtures("seccomp")
#: The same for one parameter set (pytest.param cannot add a fixture; the test calls require_seccomp).
needs_seccomp_param = pytest.mark.skipif(filter_architecture() is None and not IN_CI,
                                         reason="no system-call filter for this architecture")

GOOD = """
count = 0
def bet1(N):
    global count
    count += 1
    print("bet", count)
    return 10 * count if count <= 3 else 10
def first_action1(t, n): return "h" if t[2] in "23456" else "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

GC_SHOE = """
import gc
found = None
def _search():
    global found
    try:
        import twentyone.table
    except Exception:
        pass
    for o in gc.get_objects():
        if isinstance(o, (str, bytes)) and len(o) >= 52:
            s = o.decode("latin-1") if isinstance(o, bytes) else o
            if all(c in "A23456789TJQK" for c in s):
                found = s
                return
def bet1(N):
    _search()
    return 1000 if found else 10
def first_action1(t, n): return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

OS_SYSTEM = """
import os
def bet1(N):
    rc = os.system("echo pwned > {marker}")
    return 1000 if rc == 0 else 10
def first_action1(t, n): return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

SLEEP = """
import time
def bet1(N): return 10
def first_action1(t, n):
    time.sleep(10**6)
    return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

FLOOD = """
def bet1(N):
    while True:
        print("x" * 1000)
def first_action1(t, n): return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

MEMORY = """
hog = []
def bet1(N):
    while True:
        hog.append(bytearray(50 * 1024 * 1024))
def first_action1(t, n): return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

GARBAGE = """
def bet1(N): return 10
def first_action1(t, n): return 42
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

WRITE_STRUCT = """
def bet1(N): return 10
def first_action1(t, n): return "h"
def continue_action1(players):
    players[0].account = 1000000
    players[0].mybets = 0
    return "s"
def show1(b, players, pNum, N, pos):
    players[0].account = 1000000
    b.points = 99
"""

FAST = Limits(decision_timeout=0.5, match_timeout=20.0, cpu_seconds=10, memory_bytes=512 << 20,
              output_bytes=64 << 10, decision_wall_timeout=1.5)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _play(path: Path, tmp_path: Path, seed: int = 1, limits: Limits = FAST) -> tuple[MatchResult, list[dict[str, object]]]:
    """A 2-seat match: the sandboxed file at seat 1, basic at seat 2."""
    s = make_strategy(str(path), warn=lambda m: None, sandbox=limits, capture_dir=tmp_path / "out")
    log = RoundLog(io.StringIO(), keep=True)
    try:
        result = play_match([Seating("x", str(path), s), Seating("b", "basic", Basic())], 6, seed, log=log)
    finally:
        s.close()
    return result, log.records or []


def _rounds(records: list[dict[str, object]], seat: int) -> list[dict[str, object]]:
    out = []
    for r in records:
        if r["type"] == "round":
            out += [p for p in r["players"] if p["seat"] == seat]  # type: ignore[attr-defined, union-attr]
    return out


def _completes(result: MatchResult) -> None:
    """The other seat played the match to its end."""
    assert result.reason in ("rounds", "shuffles", "broke")
    assert result.by_seat(2).rounds == result.rounds > 1


def test_sandboxed_player_plays_like_in_process(tmp_path: Path) -> None:
    """A legal file gives the same match in the sandbox as in process, with fresh globals each match."""
    path = _write(tmp_path, "good.py", GOOD)
    boxed = make_strategy(str(path), sandbox=FAST, capture_dir=tmp_path / "out")
    try:
        sandboxed = [play_match([Seating("x", str(path), boxed), Seating("b", "basic", Basic())], 6, 3)
                     for _ in range(2)]
    finally:
        boxed.close()
    s = make_strategy(str(path))
    trusted = play_match([Seating("x", str(path), s), Seating("b", "basic", Basic())], 6, 3)
    for r in sandboxed:
        assert [(x.seat, x.account, x.rounds) for x in r.ranking] == [(x.seat, x.account, x.rounds) for x in trusted.ranking]
        assert r.by_seat(1).fault is None
    printed = (tmp_path / "out" / "good-set1-match2.out").read_text()
    assert printed.startswith("bet 1\nbet 2\n")


@needs_seccomp
def test_gc_walk_finds_no_shoe(tmp_path: Path) -> None:
    """A Python strategy walking gc.get_objects() for the shoe finds none: it only ever bets 10."""
    result, records = _play(_write(tmp_path, "gc_shoe.py", GC_SHOE), tmp_path)
    _completes(result)
    bets = {p["bet"] for p in _rounds(records, 1)}
    assert bets == {10}
    assert result.by_seat(1).fault is None


@needs_seccomp
def test_os_system_is_a_forbidden_call(tmp_path: Path) -> None:
    """os.system ends the child with SIGSYS, unrun: reported with the Python line that made it, the shell never
    ran, the match completes."""
    marker = tmp_path / "pwned.txt"
    result, records = _play(_write(tmp_path, "os_system.py", OS_SYSTEM.format(marker=marker)), tmp_path)
    _completes(result)
    me = result.by_seat(1)
    assert me.fault == "crash" and "forbidden system call" in me.fault_detail
    assert me.fault_detail.endswith(" at os_system.py:4 in bet1"), me.fault_detail
    assert not marker.exists()
    assert me.account == 990  # the minimum bet, lost; never the 1000 it wanted
    assert _rounds(records, 1)[0]["foul"] == "crash"


def test_a_sleep_returns_at_once(tmp_path: Path) -> None:
    """A strategy that sleeps a million seconds in every decision plays its whole match at once, unfaulted:
    a box's sleeps return at once (RULES.md sandbox_time), so sleeping costs nobody time."""
    t = time.monotonic()
    result, records = _play(_write(tmp_path, "sleep.py", SLEEP), tmp_path)
    _completes(result)
    me = result.by_seat(1)
    assert me.fault is None and me.rounds == result.rounds
    assert time.monotonic() - t < 30


BLOCKS_PY = """
import os
def bet1(N): return 10
def first_action1(t, n):
    os.read(3, 1)
    return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""
BLOCKS_C = """#include "mycodes.h"
#include <signal.h>
#include <unistd.h>
int bet1(int N) { return 10; }
char first_action1(char* tmpcards, int len) { char c; if (HOW == 1) read(3, &c, 1); else kill(getpid(), SIGSTOP); return 's'; }
char continue_action1(Player(*players)[]) { return 's'; }
void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) {}
"""


@pytest.mark.parametrize("how", ["py-read", "c-read", "c-stop"])
def test_a_strategy_that_blocks_is_stopped_in_well_under_a_second(how: str, tmp_path: Path) -> None:
    """Reading the engine's pipe inside a call, or stopping itself, blocks a box (neither running nor waiting for a
    CPU, as the kernel counts it): a time-out after 0.3 s of it, never the 1.5 s wall-clock backstop's."""
    if how == "py-read":
        path = _write(tmp_path, "blocks.py", BLOCKS_PY)
    else:
        path = _write(tmp_path, "blocks.c", f"#define HOW {1 if how == 'c-read' else 2}\n" + BLOCKS_C)
    result, records = _play(path, tmp_path)
    _completes(result)
    me = result.by_seat(1)
    assert me.fault == "timeout" and me.fault_detail.startswith("blocked for 0.3 s"), me.fault_detail
    assert me.rounds == 1


def test_a_busy_loop_is_stopped_by_its_own_cpu_time(tmp_path: Path) -> None:
    """A decision that burns CPU is stopped by the child's CPU timer (SIGPROF), long before the wall backstop, and
    the time-out names the Python line it was spinning on."""
    loop = ("def bet1(N):\n    while True:\n        pass\n"
            "def first_action1(t, n): return 's'\ndef continue_action1(p): return 's'\n"
            "def show1(b, p, n, N, pos): pass\n")
    t = time.monotonic()
    result, _ = _play(_write(tmp_path, "spin.py", loop), tmp_path)
    me = result.by_seat(1)
    assert me.fault == "timeout" and me.fault_detail.startswith(
        "no answer within the decision limit of 0.5 s of CPU time (signal SIGPROF) at spin.py:"), me.fault_detail
    assert me.fault_detail.endswith(" in bet1")
    assert time.monotonic() - t < 30


def test_output_flood_is_a_fault(tmp_path: Path) -> None:
    """Printing without end hits the output cap (SIGXFSZ); the capture file stays at the cap."""
    result, _ = _play(_write(tmp_path, "flood.py", FLOOD), tmp_path)
    _completes(result)
    me = result.by_seat(1)
    assert me.fault == "crash" and "output flood" in me.fault_detail
    assert (tmp_path / "out" / "flood-set1-match1.out").stat().st_size <= FAST.output_bytes


def test_memory_bomb_is_a_fault(tmp_path: Path) -> None:
    """Allocating without end hits the address-space limit and becomes a fault of that player."""
    limits = Limits(decision_timeout=5.0, match_timeout=20.0, cpu_seconds=10, memory_bytes=256 << 20)
    result, _ = _play(_write(tmp_path, "memory.py", MEMORY), tmp_path, limits=limits)
    _completes(result)
    assert result.by_seat(1).fault in ("error", "crash")
    assert "MemoryError" in result.by_seat(1).fault_detail or "killed" in result.by_seat(1).fault_detail


def test_garbage_reply_is_a_fault(tmp_path: Path) -> None:
    """Returning 42 instead of one character is reported as a malformed reply, and gains nothing."""
    result, _ = _play(_write(tmp_path, "garbage.py", GARBAGE), tmp_path)
    _completes(result)
    me = result.by_seat(1)
    assert me.fault == "error" and "42" in me.fault_detail and me.account == 990


def test_writing_the_structs_changes_nothing(tmp_path: Path) -> None:
    """Writing account = 1000000 into the Player copies it is given changes no money in the game."""
    result, records = _play(_write(tmp_path, "write.py", WRITE_STRUCT), tmp_path)
    _completes(result)
    for p in _rounds(records, 1):
        assert abs(int(p["account_after"]) - int(p["account_before"])) <= 20  # type: ignore[call-overload]
    assert result.by_seat(1).account < 2000


def test_describe_status_names_signals() -> None:
    """Wait statuses become readable causes."""
    assert describe_status(11) == ("crash", "segmentation fault (signal SIGSEGV)")
    assert describe_status(31)[1].startswith("forbidden system call")
    assert describe_status(24)[0] == "timeout"
    assert describe_status(3 << 8) == ("crash", "exited with status 3")


def test_stand_in_the_same_table_is_untouched(tmp_path: Path) -> None:
    """With a crashing neighbour, a built-in player's match is the same as with a legal one."""
    bad = make_strategy(str(_write(tmp_path, "os_system.py", OS_SYSTEM.format(marker=tmp_path / "m"))),
                        sandbox=FAST)
    try:
        r = play_match([Seating("x", "bad", bad), Seating("s", "stand", Stand())], 6, 9)
    finally:
        bad.close()
    assert r.by_seat(2).rounds == r.rounds
    assert os.path.exists(tmp_path / "m") is False
    assert r.by_seat(1).fault is not None and r.by_seat(1).rounds == 1

    class RaisesInItsFirstBet(Stand):
        def bet(self, view: Any) -> int:
            raise RuntimeError("stops at once")

    # The same table with a neighbour that fails at the same point in process: the built-in's match is the same.
    same = play_match([Seating("x", "raises", RaisesInItsFirstBet()), Seating("s", "stand", Stand())], 6, 9)
    assert (r.by_seat(2).account, r.by_seat(2).rounds) == (same.by_seat(2).account, same.by_seat(2).rounds)
    assert r.rounds == same.rounds


HOSTILE_C = Path(__file__).resolve().parent / "fixtures" / "c" / "hostile"
C_LIMITS = Limits(decision_timeout=0.5, match_timeout=30.0, cpu_seconds=10, memory_bytes=256 << 20,
                  output_bytes=64 << 10)
#: Filling 256 MB takes longer than 0.5 s on a loaded machine: the margin the Python memory test has.
MARGIN = {"malloc_bomb": Limits(decision_timeout=5.0, match_timeout=30.0, cpu_seconds=10, memory_bytes=256 << 20,
                                output_bytes=64 << 10)}


@pytest.mark.parametrize("name, k, cause, detail", [
    ("segfault_first_action3", 3, "crash", "segmentation fault"),
    ("loop_bet2", 2, "timeout", "decision limit"),
    ("printf_flood", 1, "crash", "output flood"),
    ("malloc_bomb", 1, "crash", "segmentation fault"),
    pytest.param("fork_bomb", 1, "crash", "forbidden system call", marks=needs_seccomp_param),
    pytest.param("fopen_passwd", 1, "crash", "forbidden system call", marks=needs_seccomp_param),
    pytest.param("write_files", 1, "crash", "forbidden system call", marks=needs_seccomp_param),
    pytest.param("proc_self_mem", 1, "crash", "forbidden system call", marks=needs_seccomp_param),
    pytest.param("process_vm_readv", 1, "crash", "forbidden system call", marks=needs_seccomp_param),
    ("abort_bet1", 1, "crash", "abort"),
])
def test_hostile_c_file_costs_only_its_player(name: str, k: int, cause: str, detail: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostile C file: the engine survives, the cause is reported, the match completes, no gain."""
    if detail == "forbidden system call":
        require_seccomp()
    written = tmp_path / "written.txt"  # write_files.c writes $TWENTYONE_HOSTILE_MARKER
    monkeypatch.setenv("TWENTYONE_HOSTILE_MARKER", str(written))
    s = make_strategy(f"{HOSTILE_C / name}.c:{k}", warn=lambda m: None, sandbox=MARGIN.get(name, C_LIMITS),
                      capture_dir=tmp_path)
    log = RoundLog(io.StringIO(), keep=True)
    try:
        result = play_match([Seating("x", name, s), Seating("b", "basic", Basic())], 6, 1, log=log)
    finally:
        s.close()
    _completes(result)
    me = result.by_seat(1)
    assert me.fault == cause and detail in me.fault_detail
    assert {p["bet"] for p in _rounds(log.records or [], 1)} == {10}  # never the 1000 a success would bet
    assert me.account <= 1010 and not written.exists()
    fouled = [p for p in _rounds(log.records or [], 1) if p["foul"]]
    assert len(fouled) == 1 and fouled[0]["foul"] == cause


@pytest.mark.parametrize("name", ["scan_memory", "write_account"])
def test_c_cheats_without_forbidden_calls_gain_nothing(name: str, tmp_path: Path) -> None:
    """Scanning its own memory finds no shoe; writing the given structs moves no money."""
    s = make_strategy(f"{HOSTILE_C / name}.c:1", warn=lambda m: None, sandbox=C_LIMITS, capture_dir=tmp_path)
    log = RoundLog(io.StringIO(), keep=True)
    try:
        result = play_match([Seating("x", name, s), Seating("b", "basic", Basic())], 6, 2, log=log)
    finally:
        s.close()
    _completes(result)
    rounds = _rounds(log.records or [], 1)
    assert {p["bet"] for p in rounds} == {10}
    for p in rounds:
        assert abs(int(p["account_after"]) - int(p["account_before"])) <= 20  # type: ignore[call-overload]
    assert result.by_seat(1).account < 2000


# -- the sandbox plays exactly like in process: logs byte for byte -------------------------------------
# The engine fetches a seat's next bet in the same round trip as its show when that bet is sure to be
# asked for.  None of that may show: the round log must be the trusted log, faults included.
SHOW_FAULT = """
shown = 0
def bet1(N): return 10 + 5 * (shown % 3)
def first_action1(t, n): return "h" if t[2] in "23456" else "s"
def continue_action1(players): return "h" if players[0].points < 13 else "s"
def show1(b, players, pNum, N, pos):
    global shown
    shown += 1
    if shown == {when}:
        raise ValueError(f"show broke after {{shown}} rounds at pos {{pos}}")
"""

BET_FAULT = """
bets = 0
def bet1(N):
    global bets
    bets += 1
    if bets == 5:
        return 1 // 0
    return True if bets == {garbage} else 10 * bets
def first_action1(t, n): return "d" if t[2] in "9T" else "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos): pass
"""

ACTION_FAULT = """
calls = 0
def bet1(N): return 10
def first_action1(t, n):
    global calls
    calls += 1
    return {first}
def continue_action1(players):
    if calls == 9:
        raise KeyError(players[0].mycards)
    return "s"
def show1(b, players, pNum, N, pos): pass
"""

LOGGED_FILES = {
    "good": GOOD,
    "show_fault": SHOW_FAULT.format(when=7),
    "show_fault_last_round": SHOW_FAULT.format(when=100),
    "bet_raises": BET_FAULT.format(garbage=0),
    "bet_garbage": BET_FAULT.format(garbage=4),
    "first_garbage": ACTION_FAULT.format(first='"h" if calls < 6 else ("hh" if calls == 6 else "s")'),
    "first_wide_char": ACTION_FAULT.format(first='"h" if calls != 4 else "\\u0168"'),
    "continue_raises": ACTION_FAULT.format(first='"h"'),
}


def _log(specs: list[str], tmp_path: Path, sandboxed: bool, seeds: tuple[int, ...] = (3, 11)) -> str:
    """The round log of one match per seed with the players of ``specs``, sandboxed or in process."""
    strategies = [make_strategy(spec, warn=lambda m: None, sandbox=FAST if sandboxed else None,
                                capture_dir=tmp_path / ("boxed" if sandboxed else "trusted")) for spec in specs]
    out = io.StringIO()
    log = RoundLog(out)
    try:
        for seed in seeds:
            play_match([Seating(f"p{i + 1}", spec, s) for i, (spec, s) in enumerate(zip(specs, strategies))],
                       6, seed, log=log)
    finally:
        for s in strategies:
            s.close()
    return out.getvalue()


@pytest.mark.parametrize("name", list(LOGGED_FILES))
def test_sandboxed_python_log_is_the_trusted_log(name: str, tmp_path: Path) -> None:
    """Well-behaved or faulting (in show, in a bet fetched with the previous show, in a decision):
    the round log with the sandbox is byte for byte the log in process."""
    path = str(_write(tmp_path, f"{name}.py", LOGGED_FILES[name]))
    trusted = _log([path, "basic"], tmp_path, sandboxed=False)
    assert _log([path, "basic"], tmp_path, sandboxed=True) == trusted
    if name != "good":
        assert '"faults":[{"seat":1' in trusted


def test_a_fault_in_the_last_show_is_in_the_last_round_record(tmp_path: Path) -> None:
    """show faults in the match's last round: that round's record lists it, the end record follows."""
    path = str(_write(tmp_path, "last.py", LOGGED_FILES["show_fault_last_round"]))
    text = _log([path, "basic"], tmp_path, sandboxed=True, seeds=(3,))
    records = [json.loads(line) for line in text.splitlines()]
    rounds = [r for r in records if r["type"] == "round"]
    assert records[-1]["type"] == "end" and records[-1]["rounds"] == len(rounds) == 100
    last = rounds[-1]
    pos = int(last["first_card"]) + len(str(last["dealer"])) + sum(len(p["cards"]) for p in last["players"])
    assert last["faults"] == [{"seat": 1, "cause": "error",
                               "detail": f"show raised ValueError: show broke after 100 rounds at pos {pos} (at last.py:10 in show1)"}]
    assert all("faults" not in r for r in rounds[:-1])
    assert [p["foul"] for p in last["players"]] == [None, None]  # the settled hand stands


def test_a_show_fault_of_the_last_player_ends_the_match_as_in_process(tmp_path: Path) -> None:
    """One seat: its show faults, nobody is left, the match ends 'broke' after that round, as in process."""
    path = str(_write(tmp_path, "alone.py", LOGGED_FILES["show_fault"]))
    trusted = _log([path], tmp_path, sandboxed=False)
    assert _log([path], tmp_path, sandboxed=True) == trusted
    assert '"type":"end","reason":"broke","rounds":7' in trusted


@pytest.mark.parametrize("files", [("static_counter.c:1", "basic.c:2"), ("bet_grows.c:1", "sloppy.c:2")])
def test_sandboxed_c_log_is_the_trusted_log(files: tuple[str, str], tmp_path: Path) -> None:
    """Two C files, statics and all: the sandboxed log is the in-process log, match after match."""
    students = Path(__file__).resolve().parent / "fixtures" / "c" / "students"
    specs = [str(students / f) for f in files]
    assert _log(specs, tmp_path, sandboxed=True) == _log(specs, tmp_path, sandboxed=False)


CRASH_OR_HANG = """
import os, time
bets = shown = 0
def _fail():
    if "{how}" == "crash":
        os.abort()
    while True:
        pass
def bet1(N):
    global bets
    bets += 1
    if "{where}" == "bet" and bets == 3:
        _fail()
    return 10
def first_action1(t, n): return "s"
def continue_action1(players): return "s"
def show1(b, players, pNum, N, pos):
    global shown
    shown += 1
    if "{where}" == "show" and shown == 3:
        _fail()
"""


CRASH_OR_HANG_C = """#include "mycodes.h"
static int bets, shown;
static void fail(void) { if (HOW == 1) { *(volatile int *)0 = 1; } for (;;) { } }
int bet1(int N) { if (WHERE == 2 && ++bets == 3) fail(); return 10; }
char first_action1(char* tmpcards, int len) { return 's'; }
char continue_action1(Player(*players)[]) { return 's'; }
void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) { if (WHERE == 1 && ++shown == 3) fail(); }
"""


@pytest.mark.parametrize("lang", ["py", "c"])
@pytest.mark.parametrize("where", ["show", "bet"])
@pytest.mark.parametrize("how", ["crash", "hang"])
@pytest.mark.slow
def test_a_crash_or_hang_is_charged_to_show_or_to_the_next_bet(lang: str, where: str, how: str,
                                                                tmp_path: Path) -> None:
    """show and the next bet share a round trip, yet a crash or a hang is charged to the call that made it:
    in show, round 3 lists the fault and its hand stands; in the bet, round 3 is fouled with the minimum bet."""
    if lang == "py":
        path = _write(tmp_path, f"{how}_{where}.py", CRASH_OR_HANG.format(how=how, where=where))
    else:
        defines = f"#define HOW {1 if how == 'crash' else 2}\n#define WHERE {1 if where == 'show' else 2}\n"
        path = _write(tmp_path, f"{how}_{where}.c", defines + CRASH_OR_HANG_C)
    result, records = _play(path, tmp_path)
    _completes(result)
    rounds = [r for r in records if r["type"] == "round"]
    assert all("faults" not in r for r in rounds[:2]), [r.get("faults") for r in rounds[:2]]
    fault = rounds[2]["faults"]
    crash = "abort" if lang == "py" else "segmentation fault"
    cause, detail = ("crash", crash) if how == "crash" else ("timeout", "decision limit")
    assert len(fault) == 1 and fault[0]["seat"] == 1 and fault[0]["cause"] == cause  # type: ignore[index]
    assert detail in fault[0]["detail"]  # type: ignore[index]
    me = _rounds(records, 1)
    assert len(me) == 3 and result.by_seat(1).rounds == 3
    if where == "show":
        assert me[2]["foul"] is None and result.by_seat(1).account == me[2]["account_after"]
    else:
        assert me[2]["foul"] == cause and me[2]["bet"] == 10
        assert result.by_seat(1).account == int(me[2]["account_before"]) - 10  # type: ignore[call-overload]


SLOW_SHOW_THEN_HANG_C = """#include "mycodes.h"
#include <time.h>
static int bets;
static void spin(double s) { clock_t end = clock() + (clock_t)(s * CLOCKS_PER_SEC); while (clock() < end) { } }
int bet1(int N) { if (++bets == 3) for (;;) { } return 10; }
char first_action1(char* tmpcards, int len) { return 's'; }
char continue_action1(Player(*players)[]) { return 's'; }
void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) { spin(0.4); }
"""


@pytest.mark.slow
def test_show_near_its_limit_then_a_hanging_bet_is_the_bets_fault(tmp_path: Path) -> None:
    """show and the next bet share a round trip and each has the whole decision limit: a show that takes 0.4 s of
    its 0.5 s, then a bet that loops, is the bet's time-out (round 3), not show's in round 2 (the engine's backstop
    for a disarmed timer once counted both calls' CPU against one limit, and so on a loaded machine)."""
    path = _write(tmp_path, "slow_show.c", SLOW_SHOW_THEN_HANG_C)
    result, records = _play(path, tmp_path)
    rounds = [r for r in records if r["type"] == "round"]
    assert all("faults" not in r for r in rounds[:2]), [r.get("faults") for r in rounds[:2]]
    fault = rounds[2]["faults"]
    assert len(fault) == 1 and fault[0]["cause"] == "timeout", fault  # type: ignore[index]
    assert "decision limit" in fault[0]["detail"] and "disarmed" not in fault[0]["detail"], fault  # type: ignore[index]
    me = _rounds(records, 1)
    assert me[2]["foul"] == "timeout" and me[2]["bet"] == 10


class _Interrupt(Stand):
    """Stands, and presses Ctrl-C in the show of round ``at``."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.shown = 0

    def show(self, view: object) -> None:  # type: ignore[override]
        self.shown += 1
        if self.shown == self.at:
            raise KeyboardInterrupt


def test_ctrl_c_keeps_the_standings_and_the_next_match_starts_clean(tmp_path: Path) -> None:
    """Ctrl-C after seat 1's show (its next bet already fetched): the standings are those of the round
    played, and the next match with the same worker is the same as with a fresh one."""
    from twentyone.match import MatchInterrupted

    path = str(_write(tmp_path, "counting.py", SHOW_FAULT.format(when=0)))  # bets 10, 15, 20 as it is shown
    boxed = make_strategy(path, sandbox=FAST, capture_dir=tmp_path / "out")
    try:
        with pytest.raises(MatchInterrupted) as info:
            play_match([Seating("x", path, boxed), Seating("i", "stand", _Interrupt(5))], 6, 3)
        assert info.value.result.reason == "interrupted" and info.value.result.rounds == 5
        assert info.value.result.by_seat(1).rounds == 5
        log = RoundLog(io.StringIO(), keep=True)
        play_match([Seating("x", path, boxed), Seating("s", "stand", Stand())], 6, 4, log=log)
    finally:
        boxed.close()
    assert "\n".join(log.lines()) == "\n".join(_log_lines(path, tmp_path))


def _log_lines(path: str, tmp_path: Path) -> list[str]:
    s = make_strategy(path, warn=lambda m: None)
    log = RoundLog(io.StringIO(), keep=True)
    play_match([Seating("x", path, s), Seating("s", "stand", Stand())], 6, 4, log=log)
    return log.lines()


def test_a_refused_import_or_file_says_the_sandbox_refused_it(tmp_path: Path) -> None:
    """A module that is installed but not among those a sandboxed strategy may import, and a file the strategy
    tries to read, fail with a reason that names the sandbox (it was "No module named 'numpy'" with numpy
    installed, and a bare permission error); a preloaded module imports as before."""
    (tmp_path / "strategy.txt").write_text("h\n")
    body = ("def bet1(N):\n    {0}\n    return 10\n"
            "def first_action1(t, n): return 's'\ndef continue_action1(p): return 's'\n"
            "def show1(b, p, n, N, pos): pass\n")
    cases = {"numpy": ("import numpy", "No module named 'numpy' in the sandbox, which lets a strategy import "
                                       "only these: math, random"),
             "file": (f"open({str(tmp_path / 'strategy.txt')!r}).read()", "a sandboxed strategy can open no file"),
             "math": ("import statistics, math", None)}
    for name, (line, why) in cases.items():
        result, _ = _play(_write(tmp_path, f"{name}.py", body.format(line)), tmp_path)
        me = result.by_seat(1)
        if why is None:
            assert me.fault is None and me.rounds == result.rounds > 1
        else:
            assert me.fault == "error" and why in me.fault_detail, me.fault_detail


@pytest.mark.parametrize("style", ["static_counter", "real_course"])
def test_a_submissions_sets_play_sandboxed_exactly_as_the_course_program(style: str, tmp_path: Path) -> None:
    """Every set of one file at one table shares one box, so the sandboxed game is the course program's byte for
    byte (the real submission keeps a Hi-Lo count in show1 that bet2 reads): the same log as ``make c-program``'s
    twentyone-c built with the file, for several seeds, deck counts and tables."""
    import json
    import subprocess

    from tests.handins import c_program

    root = Path(__file__).resolve().parent.parent
    source = (root / "tests" / "fixtures" / "handins" / "real_course" / "mycodes.c" if style == "real_course"
              else root / "tests" / "fixtures" / "c" / "students" / f"{style}.c")
    exe, _ = c_program(source, tmp_path / "build")
    for seed, decks, seats in ((2, 1, 5), (4, 2, 4), (7, 6, 2), (8, 6, 5)):
        clog = tmp_path / f"c{seed}.jsonl"
        subprocess.run([str(exe), "--seed", str(seed), "--decks", str(decks), "--seats", str(seats), "--log",
                        str(clog), "--quiet", "--source", str(source)], check=True, capture_output=True, timeout=120)
        specs = [f"{source}:{k}" for k in range(1, seats + 1)]
        boxed = [make_strategy(s, warn=lambda m: None, sandbox=Limits(), capture_dir=tmp_path / "out")
                 for s in specs]
        out = io.StringIO()
        try:
            play_match([Seating(f"player{k}", s, b) for k, (s, b) in enumerate(zip(specs, boxed), 1)], decks, seed,
                       log=RoundLog(out))
        finally:
            for b in boxed:
                b.close()
        assert out.getvalue().encode("utf-8") == clog.read_bytes(), (style, seed, decks, seats)
        assert json.loads(out.getvalue().splitlines()[0])["seats"][0]["player"] == f"{source}:1"


SHARED_PY = """
count = 0
def bet1(N): return 10
def first_action1(t, n): return "s"
def continue_action1(p): return "s"
def show1(b, p, pNum, N, pos):
    global count
    count += 1
def bet2(N): return 10 + 10 * min(count, 5)
def first_action2(t, n): return "s"
def continue_action2(p): return "s"
def show2(b, p, pNum, N, pos): pass
"""


def test_a_python_files_sets_share_its_globals_sandboxed_or_not(tmp_path: Path) -> None:
    """Sets 1 and 2 of one .py file at one table share the module's globals (show1 counts, bet2 reads the
    count), in one sandbox box as in this process, match after match: the two logs are the same, and bet2 grows."""
    path = _write(tmp_path, "shared.py", SHARED_PY)
    specs = [f"{path}:1", f"{path}:2"]
    boxed = _log(specs, tmp_path, sandboxed=True)
    assert boxed == _log(specs, tmp_path, sandboxed=False)
    assert '"bet":60' in boxed  # set 2 saw set 1's shows


@pytest.mark.usefixtures("seccomp")
def test_two_boxes_of_one_name_never_write_one_capture_file(tmp_path: Path) -> None:
    """One file seated twice with the same set (two programs, two boxes) with --output-dir: each box writes a
    capture file of its own (they once shared one, whose size each box could watch through its own descriptor: a
    channel between two boxes)."""
    from tests.escape_helpers import run

    printing = ('#include <stdio.h>\n#include "mycodes.h"\n'
                'int bet1(int N) { printf("bet\\n"); return 10; }\n'
                "char first_action1(char* tmpcards, int len) { return 's'; }\n"
                "char continue_action1(Player(*players)[]) { return 's'; }\n"
                "void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) {}\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "mycodes.c").write_text(printing)
    out = tmp_path / "printed"
    r = run(["match", "-p", tmp_path / "a" / "mycodes.c", "-p", tmp_path / "a" / "mycodes.c", "--seed", "3",
             "--output-dir", out], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    files = sorted(out.rglob("*.out"))
    assert len(files) == 2, files
    assert all(f.read_text().count("bet") >= 1 for f in files), files


def test_a_function_set_file_that_mentions_strategy_is_still_a_function_set(tmp_path: Path) -> None:
    """A .py file of function sets whose comment or string says STRATEGY is played as function set 1 (it was
    refused as a Strategy-class file, which runs only with --trusted); a file that assigns STRATEGY is one."""
    from twentyone.players.files.python import defines_strategy

    sets = ("# my STRATEGY: stand on everything\nNOTE = 'no STRATEGY here'\n"
            "def bet1(N): return 10\ndef first_action1(t, n): return 's'\n"
            "def continue_action1(p): return 's'\ndef show1(b, p, pNum, N, pos): pass\n")
    assert not defines_strategy(sets.encode())
    assert defines_strategy(b"class Hitter: pass\nSTRATEGY = Hitter\n")
    assert defines_strategy(b"from elsewhere import Mine as STRATEGY\n")
    assert defines_strategy(b"STRATEGY: object = None\n")
    path = _write(tmp_path, "mentions.py", sets)
    result, _ = _play(path, tmp_path)
    assert result.by_seat(1).fault is None


@pytest.mark.usefixtures("seccomp")
def test_a_box_that_answered_is_not_blocked_while_the_engine_reads_late(tmp_path: Path) -> None:
    """A box that has answered waits for its next request; when the engine is slow to read the answer (starved of
    a CPU on a loaded machine, here asleep for 0.8 s), the watchdog does not take that wait for the box blocking
    (it killed it, and the next call was charged as the box's crash)."""
    from twentyone.players.c.build import compile_student
    from twentyone.players.sandbox.client import SandboxFunctionSet, _pack

    root = Path(__file__).resolve().parent.parent
    fs = SandboxFunctionSet("c", compile_student(root / "c_src" / "mycodes.c"), 1, FAST)
    try:
        fs.reset(object())
        assert fs.bet(6) >= 10
        box = fs._box
        assert box is not None
        fs._seq += 1
        fs._inflight = fs._seq  # a call in flight, as the engine's thread marks it before its read
        os.write(box.wfd, _pack(b"B", 0, 1, 6, 0, 0))
        time.sleep(0.8)  # the watchdog looks at it several times meanwhile; the answer waits in the pipe
        assert box.status is None and not box.killed, box.status
        assert fs._result() >= 10
    finally:
        fs.close()
