"""Sandbox v2: a box per match, confined before any student code runs, trusted for nothing.

The filter is checked twice: as a program (test_seccomp.py: a classic-BPF interpreter runs it on every call it
names and their arguments) and on the real kernel (the doctor's probes, at the native
Landlock ABI and capped at 0 and 4, and as an ordinary user with and without a user namespace).
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Basic, Stand
from twentyone.players.sandbox import box as boxmod
from twentyone.players.sandbox import seccomp, wire
from twentyone.players.sandbox.box import Box, BoxSettings, Layers, await_ready, spawn
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

from tests.conftest import IN_CI

pytestmark = pytest.mark.usefixtures("seccomp")

# -- the real kernel: the doctor's probes ------------------------------------------------------------------------
@pytest.mark.parametrize("abi", ["", "0", "4"])
@pytest.mark.slow
def test_every_probe_holds_at_each_landlock_abi(abi: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every probe of the doctor (files, processes and their signals through a descriptor's owner, locks seen from a
    second box, another's CPU clock, descriptors, CPU, sleeping, the build ...) holds at ABI 7, 4 and 0, and the
    line the commands print names the layers the doctor proved."""
    from twentyone.players.sandbox.doctor import layers_line, verdict

    monkeypatch.setenv("TWENTYONE_LANDLOCK_ABI", abi) if abi else monkeypatch.delenv("TWENTYONE_LANDLOCK_ABI",
                                                                                     raising=False)
    v = verdict()
    assert len(v.probes) >= 28
    assert [o.what for o in v.probes if not o.held] == [], v.probes
    assert [r for r in v.rows if r.state not in ("holds", "not here")] == [], v.rows
    line = layers_line()
    assert "system-call filter" in line and "resource limits" in line
    assert ("Landlock" in line) == (abi != "0"), line
    if abi == "4":
        assert "Landlock ABI 4" in line


def _as_nobody(program: Path) -> tuple[Path, Path]:
    """A copy of ``program`` and an empty root that uid 65534 can reach (pytest's tmp_path is root's only)."""
    home = Path(tempfile.mkdtemp(prefix="twentyone-test-nobody-"))
    os.chmod(home, 0o755)
    copy = home / "box"
    shutil.copy(program, copy)
    os.chmod(copy, 0o755)
    root = home / "root"
    root.mkdir(mode=0o555)
    return copy, root


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root to become an ordinary user")
@pytest.mark.parametrize("userns", [True, False])
@pytest.mark.parametrize("abi", ["", "0", "4"])
def test_an_ordinary_users_box_holds_at_each_abi(userns: bool, abi: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Started by an ordinary user: a user namespace with an empty root where allowed, the filter always; the
    grader's file, another process and a new process stay out of reach either way."""
    from twentyone.players.sandbox.probes import probe_program

    if abi:
        monkeypatch.setenv("TWENTYONE_LANDLOCK_ABI", abi)
    monkeypatch.setenv("TWENTYONE_USERNS", "1" if userns else "0")
    copy, root = _as_nobody(probe_program())
    secret = copy.parent / "secret"
    secret.write_text("s3cret")
    os.chmod(secret, 0o644)  # readable by anyone: only the box's confinement protects it
    victim = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "60"])
    settings = BoxSettings(256 << 20, 1 << 20, 5, 16, 2_000_000, root, seccomp.build_filter() or b"")
    try:
        for attempt in (f"read:{secret}", f"kill:{victim.pid}", "fork", "root"):
            b = spawn(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", str(copy)],
                      settings.config(1), os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC))
            start = await_ready(b, 10.0)
            assert start.how == "ready", start
            assert start.layers & Layers.SECCOMP and not start.layers & Layers.UID_DROP
            assert bool(start.layers & Layers.USERNS) == userns
            assert bool(start.layers & Layers.EMPTY_ROOT) == userns
            assert start.abi == (int(abi) if abi else start.abi) and (start.abi > 0) == bool(
                start.layers & Layers.LANDLOCK)
            payload = attempt.encode()
            os.write(b.wfd, wire.request(b"F", len(payload), len(payload)) + payload)
            frame = b.frame(5.0)
            status = b.reap_or_kill(2.0)
            assert frame is None or frame[1] == ord("N"), (attempt, frame)
            assert frame is not None or os.WTERMSIG(status) == 31, (attempt, status)  # SIGSYS
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()
        os.chmod(root, 0o755)
        shutil.rmtree(copy.parent)


# -- nothing carries from one match to the next ----------------------------------------------------------------
SHARED = r"""
#include "mycodes.h"
#include <sys/mman.h>
static int *shared;
__attribute__((constructor)) static void grab(void)
{
    shared = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}
static int seen = 0;
int bet1(int N) { if (!seen) { seen = 1; if (shared != MAP_FAILED) (*shared)++; }
                  return 10 + 10 * (shared == MAP_FAILED ? 50 : (*shared > 5 ? 5 : *shared - 1)); }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""


def test_memory_shared_in_a_constructor_reaches_no_other_match(tmp_path: Path) -> None:
    """An mmap(MAP_SHARED) made while loading is the box's own: every match's first bet is 10."""
    path = tmp_path / "shared.c"
    path.write_text(SHARED)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    firsts = []
    try:
        for seed in range(6):
            log = RoundLog(io.StringIO(), keep=True)
            play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, seed, log=log)
            first = next(r for r in log.records or [] if r["type"] == "round")
            firsts.append(first["players"][0]["bet"])  # type: ignore[index]
    finally:
        s.close()
    assert firsts == [10] * 6


def test_no_box_outlives_the_match_and_at_most_two_run(tmp_path: Path) -> None:
    """Between matches the engine has the last match's box and the next one's spare (the one before has left, or
    is killed at the next start); after close, no child at all but the Python boxes' fork server, if one was
    started (not even one to reap). Children this process had before the test (a test before it, in the same
    pytest-xdist worker, may leave a pool or a browser running) are not the match's."""
    before = set(_children(zombies=True))
    s = make_strategy("c_src/mycodes.c:1", warn=lambda m: None, sandbox=Limits())
    try:
        for seed in range(4):
            play_match([Seating("x", "x", s), Seating("b", "basic", Basic())], 6, seed)
            end = time.monotonic() + 2.0
            while len(_children(before)) > 2 and time.monotonic() < end:
                time.sleep(0.01)
            assert 1 <= len(_children(before)) <= 2, _children(before)
            assert len(s.functions._retired) <= 1  # type: ignore[attr-defined]
    finally:
        s.close()
    time.sleep(0.1)
    assert _children(before) == []
    assert _children(before, zombies=True) == []  # nothing to reap: every box was waited for


def _children(before: set[int] = set(), zombies: bool = False) -> list[int]:  # noqa: B006 - never changed
    """This process's children that are still running (a zombie has ended; it only waits to be reaped: counted
    only with ``zombies``), the boxes' fork servers and the children in ``before`` aside."""
    me = str(os.getpid())
    zygotes = {str(z.pid) for z in (*boxmod._ZYGOTE, *boxmod._PROGRAMS.values())}
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[1] == me and (zombies or fields[0] != "Z") and p.name not in zygotes \
                        and int(p.name) not in before:
                    out.append(int(p.name))
            except (OSError, IndexError):
                pass
    return out


# -- the engine trusts nothing ---------------------------------------------------------------------------------
FORGE = r"""
#include "mycodes.h"
#include <unistd.h>
#include <string.h>
static void frame(char tag, int value) { char b[8] = {0}; b[0] = tag; memcpy(b + 4, &value, 4); write(4, b, 8); }
__attribute__((constructor)) static void forge(void) { frame('H', 1); frame('P', 0); frame('R', 1000); }
int bet1(int N) { return 10; }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""

FLOOD = r"""
#include "mycodes.h"
#include <unistd.h>
static char junk[1 << 16];
int bet1(int N) { for (;;) write(4, junk, sizeof junk); }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""


def test_frames_forged_while_loading_are_the_submissions_fault(tmp_path: Path) -> None:
    """A constructor that writes 'H', 'P' and an 'R' of 1000 before any call: a malformed start, never a bet;
    the match goes on without it."""
    path = tmp_path / "forge.c"
    path.write_text(FORGE)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    log = RoundLog(io.StringIO(), keep=True)
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1, log=log)
    finally:
        s.close()
    me = r.by_seat(1)
    assert me.fault == "error" and me.fault_detail == "malformed reply while loading" and me.rounds == 1
    assert r.by_seat(2).rounds == r.rounds > 1
    bets = [p["bet"] for rec in log.records or [] if rec["type"] == "round" for p in rec["players"]  # type: ignore[union-attr]
            if p["seat"] == 1]
    assert 1000 not in bets


def test_a_reply_flood_is_a_fault_and_the_engine_keeps_one_frame(tmp_path: Path) -> None:
    """Writing without end on the reply pipe: the player's fault at once; the engine held at most one frame."""
    path = tmp_path / "flood.c"
    path.write_text(FLOOD)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    held: list[int] = []
    real = Box.frame

    def watched(self: Box, timeout: float, text_ok: bool = True) -> tuple[bytes, int, bytes] | None:
        r = real(self, timeout, text_ok)
        held.append(len(self.buf))
        return r

    try:
        Box.frame = watched  # type: ignore[method-assign]
        t = time.monotonic()
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        Box.frame = real  # type: ignore[method-assign]
        s.close()
    me = r.by_seat(1)
    assert me.fault == "error" and "malformed" in me.fault_detail
    assert time.monotonic() - t < 10
    assert max(held, default=0) <= 8 + wire.MAX_TEXT


# -- all of a submission's CPU is counted ----------------------------------------------------------------------
SPIN = r"""
#include "mycodes.h"
int bet1(int N) { volatile unsigned long i = 0; for (;;) i++; }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""

BURN = r"""
#include "mycodes.h"
#include <time.h>
static void burn(double s) { clock_t t = clock(); while ((double)(clock() - t) / CLOCKS_PER_SEC < s) ; }
int bet1(int N) { burn(0.7); return 10; }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""


def test_a_c_loop_is_stopped_by_the_decisions_cpu_timer(tmp_path: Path) -> None:
    """The serve loop arms a CPU timer per call: a loop is the CPU limit (SIGPROF), long before the wall backstop,
    and the time-out names the line the box was spinning on."""
    path = tmp_path / "spin.c"
    path.write_text(SPIN)
    limits = Limits(decision_timeout=0.5, decision_wall_timeout=30.0, match_timeout=60.0)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=limits)
    t = time.monotonic()
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        s.close()
    me = r.by_seat(1)
    assert me.fault == "timeout"
    assert me.fault_detail == ("no answer within the decision limit of 0.5 s of CPU time (signal SIGPROF) "
                               "at spin.c:3 in bet1")
    assert time.monotonic() - t < 15


@pytest.mark.slow
def test_the_matchs_cpu_limit_stops_it_near_the_limit(tmp_path: Path) -> None:
    """Calls under the decision limit that add up past the match's CPU limit: stopped at that limit, not 10x it."""
    path = tmp_path / "burn.c"
    path.write_text(BURN)
    limits = Limits(decision_timeout=1.0, match_timeout=120.0, cpu_seconds=2)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=limits)
    t = time.monotonic()
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        s.close()
    me = r.by_seat(1)
    assert me.fault == "timeout" and me.fault_detail.startswith("the match's CPU time limit of 2 s"), me
    assert time.monotonic() - t < 12
    assert 2 <= me.rounds <= 5
    # the command line's limits: a match's CPU limit is its wall-clock limit plus one second
    assert Limits.for_timeouts(1.0, 2.0).cpu_seconds == 3


def test_the_box_starts_with_an_empty_environment_and_no_working_folder(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A secret in the grader's environment is not in the box's (the doctor's 'env' probe, seen directly)."""
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    from twentyone.players.sandbox.probes import every_probe, probe_program

    (env,) = every_probe(probe_program(), ("env",))
    assert env.held and env.how == "refused by the system"


def test_the_settings_name_the_engine_and_the_abi_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The configuration carries the engine's pid (the box dies with it) and TWENTYONE_LANDLOCK_ABI."""
    monkeypatch.setenv("TWENTYONE_LANDLOCK_ABI", "3")
    cfg = BoxSettings(1, 2, 3, 4, 5, Path("/r"), b"12345678").config(2, b"xy")
    fields = wire.CONFIG.unpack_from(cfg)
    assert fields[3] == os.getpid() and fields[4] == min(3, boxmod.landlock.kernel_abi()) and fields[7] == 2
    assert cfg[wire.CONFIG.size:] == b"/r" + b"12345678" + b"xy"
    assert not IN_CI or seccomp.filter_architecture() is not None


# -- the fork server of Python boxes ---------------------------------------------------------------------------
RANDOM_PY = """
import random
def bet1(N): return 10 + random.randrange(1000)
def first_action1(t, n): return "s"
def continue_action1(p): return "s"
def show1(b, p, pNum, N, pos): pass
"""


def test_a_python_box_is_forked_by_the_zygote_as_the_engines_own_child(tmp_path: Path) -> None:
    """A Python box comes from the fork server, yet its parent is the engine (which reaps it and learns its end
    from the kernel), it is confined like any box, and it draws its own random numbers: no two boxes share the
    state they were forked with."""
    path = tmp_path / "random.py"
    path.write_text(RANDOM_PY)
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    firsts = []
    try:
        for seed in range(6):
            log = RoundLog(io.StringIO(), keep=True)
            play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, seed, log=log)
            firsts.append(next(r for r in log.records or [] if r["type"] == "round")["players"][0]["bet"])
            box = s.functions._box  # type: ignore[attr-defined]
            if box is not None and box.status is None:
                status = Path(f"/proc/{box.pid}/status").read_text()
                assert f"PPid:\t{os.getpid()}" in status and "Seccomp:\t2" in status, status
        assert boxmod._ZYGOTE and boxmod._ZYGOTE[0].owner == os.getpid()
    finally:
        s.close()
    assert len(set(firsts)) >= 4, firsts


def test_the_zygote_outlives_a_file_that_dies_while_loading(tmp_path: Path) -> None:
    """A .py file whose top level aborts costs only its own match; the fork server, which never runs a student's
    line, serves the next file's boxes as before (the same process)."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nos.abort()\n" + RANDOM_PY)
    good = tmp_path / "good.py"
    good.write_text(RANDOM_PY)
    s = make_strategy(str(good), warn=lambda m: None, sandbox=Limits())
    s.close()
    before = boxmod._ZYGOTE[0].pid
    b = make_strategy(str(bad), warn=lambda m: None, sandbox=Limits())
    try:
        r = play_match([Seating("x", "x", b), Seating("s", "stand", Stand())], 6, 1)
        assert r.by_seat(1).fault == "crash" and "abort" in r.by_seat(1).fault_detail, r.by_seat(1)
    finally:
        b.close()
    g = make_strategy(str(good), warn=lambda m: None, sandbox=Limits())
    try:
        assert play_match([Seating("x", "x", g), Seating("s", "stand", Stand())], 6, 1).by_seat(1).fault is None
    finally:
        g.close()
    assert boxmod._ZYGOTE[0].pid == before


def test_a_forked_engine_starts_its_own_zygote_and_leaves_its_parents(tmp_path: Path) -> None:
    """A process pool's worker is a fork of the engine: it starts a fork server of its own for its Python boxes
    and never ends its parent's (the original's boxes go on being served)."""
    path = tmp_path / "random.py"
    path.write_text(RANDOM_PY)
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    s.close()
    parents = boxmod._ZYGOTE[0].pid
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            t = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
            ok = play_match([Seating("x", "x", t), Seating("s", "stand", Stand())], 6, 1).by_seat(1).fault is None
            t.close()
            code = 0 if ok and boxmod._ZYGOTE[0].pid != parents else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert os.waitid(os.P_PID, parents, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None  # still alive
    again = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    try:
        assert play_match([Seating("x", "x", again), Seating("s", "stand", Stand())], 6, 2).by_seat(1).fault is None
    finally:
        again.close()
    assert boxmod._ZYGOTE[0].pid == parents


def test_the_zygote_outlives_the_thread_that_started_it(tmp_path: Path) -> None:
    """A grade loads its hand-ins in a pool of threads: the fork server started by one of them serves the engine
    after that thread has ended (PR_SET_PDEATHSIG, which the zygote once set, killed it with its thread, and the
    next Python box failed: "the fork server has gone")."""
    import threading

    path = tmp_path / "random.py"
    path.write_text(RANDOM_PY)
    for z in boxmod._ZYGOTE:
        z.close()
    boxmod._ZYGOTE.clear()
    started: list[int] = []

    def load() -> None:
        make_strategy(str(path), warn=lambda m: None, sandbox=Limits()).close()
        started.append(boxmod._ZYGOTE[0].pid)

    t = threading.Thread(target=load)
    t.start()
    t.join()
    time.sleep(0.3)  # a death signal, had the thread's end sent one, has arrived
    assert started and os.waitid(os.P_PID, started[0], os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    try:
        assert play_match([Seating("x", "x", s), Seating("s", "stand", Stand())], 6, 1).by_seat(1).fault is None
    finally:
        s.close()
    assert boxmod._ZYGOTE[0].pid == started[0]


def test_threads_forking_boxes_at_once_each_get_their_own(tmp_path: Path) -> None:
    """Eight threads ask the one fork server for boxes at once: each gets the pid of the box on its own pipes (a
    reply read by another thread's request would give a box the pid of another's, and the engine would wait on,
    kill and blame the wrong process)."""
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "random.py"
    path.write_text(RANDOM_PY)

    def one(seed: int) -> bool:
        s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
        try:
            r = play_match([Seating("x", "x", s), Seating("s", "stand", Stand())], 6, seed)
            return r.by_seat(1).fault is None
        finally:
            s.close()

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, range(24)))


def test_the_engine_adopts_no_orphan_but_its_boxes(tmp_path: Path) -> None:
    """The engine is a subreaper only while the fork server forks a box: a process it forks (a pool's worker) that
    ends leaving a child of its own alive leaves it to init, not as a zombie of the engine's for its whole life
    (a bench process once held some 300 zombie boxes of its grades' workers)."""
    import ctypes

    path = tmp_path / "random.py"
    path.write_text(RANDOM_PY)
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    try:
        assert play_match([Seating("x", "x", s), Seating("s", "stand", Stand())], 6, 1).by_seat(1).fault is None
    finally:
        s.close()
    got = ctypes.c_int(-1)
    ctypes.CDLL(None).prctl(37, ctypes.byref(got), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
    assert got.value == 0
    r, w = os.pipe()
    worker = os.fork()
    if worker == 0:  # a worker that leaves a child behind
        os.close(r)
        orphan = os.fork()
        if orphan == 0:
            os.close(w)
            time.sleep(0.2)
            os._exit(0)
        os.write(w, struct.pack("=i", orphan))
        os._exit(0)
    os.close(w)
    orphan = struct.unpack("=i", os.read(r, 4))[0]
    os.close(r)
    os.waitpid(worker, 0)
    time.sleep(0.5)  # the orphan has ended
    with pytest.raises(ChildProcessError):
        os.waitid(os.P_PID, orphan, os.WEXITED | os.WNOHANG)


# -- the fork server of a compiled submission's boxes (c_src/box/tw_box.c, "zygote") -----------------------------
COUNTED_C = r"""
#include "mycodes.h"
static int inits = 0, bets = 0;
__attribute__((constructor)) static void once(void) { inits++; }
int bet1(int N) { bets++; return 10 * inits + bets; }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""


def _first_bets(s: object, seeds: range) -> list[int]:
    out = []
    for seed in seeds:
        log = RoundLog(io.StringIO(), keep=True)
        play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, seed, log=log)  # type: ignore[arg-type]
        out.append(next(r for r in log.records or [] if r["type"] == "round")["players"][0]["bet"])
    return out


def test_a_c_box_is_forked_by_its_programs_zygote_as_the_engines_own_child(tmp_path: Path) -> None:
    """A compiled submission's boxes come from its program's fork server, yet each is the engine's own child,
    confined, with the statics of a program never run: its initialiser ran once, in the box, never in the zygote
    (a zygote that ran it would give every box inits = 2), and no box starts from another's statics."""
    path = tmp_path / "counted.c"
    path.write_text(COUNTED_C)
    s = make_strategy(str(path) + ":1", warn=lambda m: None, sandbox=Limits())
    try:
        assert _first_bets(s, range(5)) == [11] * 5
        box = s.functions._box  # type: ignore[attr-defined]
        assert box is not None and box.status is None
        status = Path(f"/proc/{box.pid}/status").read_text()
        assert f"PPid:\t{os.getpid()}" in status and "Seccomp:\t2" in status, status
        zygotes = [z for p, z in boxmod._PROGRAMS.items() if Path(p).parent == Path(s.functions._argv[0]).parent]  # type: ignore[attr-defined]
        assert len(zygotes) == 1 and zygotes[0].owner == os.getpid()
        zstatus = Path(f"/proc/{zygotes[0].pid}/status").read_text()
        assert "Seccomp:\t0" in zstatus  # it confines nothing of its own: each box confines itself after the fork
    finally:
        s.close()


def test_a_c_zygote_that_has_gone_means_boxes_started_afresh_then_a_new_one(tmp_path: Path) -> None:
    """kill -9 of a program's fork server costs no match: the next box is started afresh (the engine learns the
    zygote has gone when it asks), and the box after it comes from a new fork server."""
    path = tmp_path / "counted.c"
    path.write_text(COUNTED_C)
    s = make_strategy(str(path) + ":1", warn=lambda m: None, sandbox=Limits())
    try:
        assert _first_bets(s, range(2)) == [11, 11]
        program = s.functions._argv[0]  # type: ignore[attr-defined]
        old = boxmod._PROGRAMS[program]
        os.kill(old.pid, 9)
        assert _first_bets(s, range(2, 6)) == [11] * 4
        assert boxmod._PROGRAMS[program].pid != old.pid
    finally:
        s.close()


def test_a_c_zygote_ends_with_its_engine(tmp_path: Path) -> None:
    """The fork server dies with the engine that started it (its socket's end, or its parent gone): an engine
    that exits leaves no zygote behind."""
    import sys

    path = tmp_path / "counted.c"
    path.write_text(COUNTED_C)
    code = f"""
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.sandbox import box
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy
s = make_strategy({str(path) + ':1'!r}, warn=lambda m: None, sandbox=Limits())
play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
print(*[z.pid for z in box._PROGRAMS.values()])
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pids = [int(p) for p in r.stdout.split()]
    assert len(pids) == 1
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pids[0]}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pids[0]}").exists() or "State:\tZ" in Path(f"/proc/{pids[0]}/status").read_text()
