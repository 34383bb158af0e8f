"""Helpers of tests/test_escape.py (issue 21): run the command line as an instructor would and look at what
a hostile hand-in left behind, knowing nothing of how the sandbox is built.

- ``run`` starts ``python -P -m twentyone ARGS`` in a session of its own, its output in files (so a process
  that escaped and still holds a pipe cannot hang the test), and ends the session if it overruns.
- ``generate`` writes a fixture of ``tests/fixtures/c/escape`` as a hand-in ``mycodes.c`` with this run's
  targets (a pid, a path, a port, a process name) compiled in as ``#define`` lines.
- ``named`` and ``end_named`` find and end the processes of a fixture by the name (comm) it gives them.
- ``abi_env`` is the environment that asks for a Landlock ABI: ``TWENTYONE_LANDLOCK_ABI=N`` (the rewritten
  sandbox's cap), and for ABI 0 also ``TWENTYONE_NO_LANDLOCK=1`` (today's switch), so that each test means
  the same on the sandbox before and after the rewrite.
- ``peak_rss`` runs a command from a fresh interpreter and reports the largest resident set of any process
  of it (``RUSAGE_CHILDREN``), with a watchdog at the bound and an address-space cap for the machine.
- ``Scene`` is what a hand-in tries to reach: a process, a secret file, a writable file, a listening port.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
ESCAPE_C = FIX / "c" / "escape"
STAND_PY = FIX / "py" / "stand_py.py"
BASIC_C = FIX / "c" / "students" / "basic.c"
#: ``-P``: the folder a test runs the command from is never on the command's own import path, so only the
#: sandbox's workers could import what a hand-in plants there (item 6).
CLI = [sys.executable, "-P", "-m", "twentyone"]

#: The Landlock ABIs every containment test runs at: the kernel's own, none, and 4 (Ubuntu 24.04, Debian 12).
ABIS = ("native", "0", "4")

#: The smallest grading run: 5 legal-play matches, 2 against each opponent, no tournament, 2 traced matches
#: (the similarity page's decision traces: a stored kind of row of their own).
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
traces = 2
"""

#: The sessions of the commands this process started (their leftovers are ended after each test).
SESSIONS: list[int] = []


def abi_env(abi: str) -> dict[str, str]:
    """The environment that makes a run use Landlock ABI ``abi`` at most ("native": the kernel's own)."""
    if abi == "native":
        return {}
    env = {"TWENTYONE_LANDLOCK_ABI": abi}
    if abi == "0":
        env["TWENTYONE_NO_LANDLOCK"] = "1"
    return env


def seccomp_missing() -> bool:
    """True when no system-call filter can be built on this host (the sandbox then refuses unread code in one
    line)."""
    from twentyone.players.sandbox.seccomp import filter_architecture

    return filter_architecture() is None


def may_refuse(abi: str) -> bool:
    """Where the issue lets the sandbox refuse unread code in one line instead of running it: no system-call
    filter at all, or no Landlock for an ordinary user (who may have no namespaces either)."""
    return seccomp_missing() or (abi == "0" and os.geteuid() != 0)


@dataclass
class Ran:
    """A finished (or overrun) command."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    pid: int

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def error_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.startswith("twentyone: error:")]

    def refused(self) -> bool:
        """Refused in one line (exit 2, one error line, no traceback)."""
        return self.returncode == 2 and len(self.error_lines()) == 1 and "Traceback" not in self.stderr

    def ended_cleanly(self) -> None:
        """The command ended by itself, without a traceback."""
        assert not self.timed_out, f"still running after {self.seconds:.0f} s"
        assert "Traceback" not in self.stderr and "Traceback" not in self.stdout, self.stderr[-3000:]


def run(args: Sequence[str | Path], tmp: Path, env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 120) -> Ran:
    """Run ``python -P -m twentyone ARGS`` in a session of its own; its output goes to files in ``tmp``."""
    tag = uuid.uuid4().hex[:8]
    out_path, err_path = tmp / f"stdout-{tag}.txt", tmp / f"stderr-{tag}.txt"
    t = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        p = subprocess.Popen([*CLI, *map(str, args)], env=dict(os.environ, **(env or {})), cwd=cwd or ROOT,
                             stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
        SESSIONS.append(p.pid)
        try:
            code: int | None = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_session(p.pid)
            p.wait()
            code = None
    return Ran(code, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"),
               time.monotonic() - t, p.pid)


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, session) of process ``pid``, or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[3])


def _pids() -> Iterator[int]:
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            yield int(entry)


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie is not alive)."""
    s = _stat(pid)
    return s is not None and s[0] not in ("Z", "X")


def end_session(sid: int) -> None:
    """SIGKILL every live process of session ``sid`` (a command this module started)."""
    for pid in _pids():
        s = _stat(pid)
        if s is not None and s[1] == sid and s[0] not in ("Z", "X"):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def named(comm: str) -> list[int]:
    """The live processes whose name (``/proc/PID/comm``) is ``comm``."""
    found = []
    for pid in _pids():
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if name == comm and alive(pid):
            found.append(pid)
    return found


def end_named(comm: str, seconds: float = 5.0) -> None:
    """SIGKILL the processes named ``comm`` (a fixture's, started by a test) until none is left."""
    end = time.monotonic() + seconds
    quiet = 0
    while time.monotonic() < end and quiet < 3:
        pids = named(comm)
        quiet = 0 if pids else quiet + 1
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def process_tag() -> str:
    """A process name unique to one test: 14 characters, under the kernel's 15."""
    return "twescape" + uuid.uuid4().hex[:6]


def c_string(text: str | Path) -> str:
    """``text`` as a C string literal (paths and names only: no quote or backslash in them)."""
    s = str(text)
    assert '"' not in s and "\\" not in s, s
    return f'"{s}"'


def generate(fixture: str, folder: Path, **defines: object) -> Path:
    """The escape fixture ``fixture`` as the hand-in ``folder/mycodes.c``, ``defines`` compiled in."""
    folder.mkdir(parents=True, exist_ok=True)
    head = "".join(f"#define {k} {v}\n" for k, v in defines.items())
    path = folder / "mycodes.c"
    path.write_text(head + (ESCAPE_C / f"{fixture}.c").read_text())
    return path


@contextmanager
def sacrificial() -> Iterator[subprocess.Popen[bytes]]:
    """A process for a hand-in to try to end or meddle with: ``sleep 600``, ended afterwards."""
    p = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        yield p
    finally:
        p.kill()
        p.wait()


def records(log: Path) -> list[dict[str, Any]]:
    """Every record of a round log."""
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def seat_rounds(log: Path | list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The rounds ``seat`` played, in order, from a round log (a file or its records)."""
    recs = records(log) if isinstance(log, Path) else log
    return [p for r in recs if r["type"] == "round" for p in r["players"] if p["seat"] == seat]


def faults(log: Path | list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The fault records of ``seat`` in a round log."""
    recs = records(log) if isinstance(log, Path) else log
    return [f for r in recs for f in r.get("faults") or [] if f["seat"] == seat]


def leaked_by_play(rounds: list[dict[str, Any]], offset: int) -> tuple[bytes, bytes]:
    """What a seat's rounds spell: its bets less ``offset`` as bytes, and its first action letters as bits
    (h for 1, lowest bit first) as bytes."""
    bets = bytes(b - offset for b in (int(p["bet"]) for p in rounds) if 0 <= b - offset < 256)
    bits = [1 if p["actions"][:1] == "h" else 0 for p in rounds]
    letters = bytes(sum(bit << i for i, bit in enumerate(bits[j:j + 8])) for j in range(0, len(bits) - 7, 8))
    return bets, letters


def files_holding(root: Path, needle: bytes) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    if not root.exists():
        return []
    return [f for f in sorted(root.rglob("*")) if f.is_file() and needle in f.read_bytes()]


def scores(out: Path) -> dict[str, dict[str, Any]]:
    """scores.json of a run, by student."""
    return {s["name"]: s for s in json.loads((out / "scores.json").read_text(encoding="utf-8"))["students"]}


def clean(student: dict[str, Any]) -> bool:
    """A student of scores.json was graded and played legally (no error, the legal-play criterion passed)."""
    legal = [c for c in student["criteria"] if c["name"] == "legal"]
    return student["error"] is None and len(legal) == 1 and legal[0]["status"] == "pass"


def config(tmp: Path, text: str = TINY, **isolation: float) -> Path:
    """A grading configuration file in ``tmp``: ``text`` and an [isolation] table of ``isolation``."""
    if isolation:
        text += "[isolation]\n" + "".join(f"{k} = {v}\n" for k, v in isolation.items())
    p = tmp / f"grading-{uuid.uuid4().hex[:6]}.toml"
    p.write_text(text)
    return p


_PEAK = """
import json, os, resource, signal, subprocess, sys, time
cap, bound = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))  # a safety net for the machine, far above the bound checked


def rss_kib(sid):
    # The largest resident set among the live processes of session sid, in KiB.
    top = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            if int(stat[3]) != sid:
                continue
            for line in open(f"/proc/{entry}/status"):
                if line.startswith("VmRSS:"):
                    top = max(top, int(line.split()[1]))
        except (OSError, IndexError, ValueError):
            pass
    return top


t = time.monotonic()
exceeded = False
with open(sys.argv[3], "wb") as out, open(sys.argv[4], "wb") as err:
    p = subprocess.Popen(sys.argv[5:], stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
    while p.poll() is None and time.monotonic() - t < 120:
        if rss_kib(p.pid) > bound:  # over the bound already: stop it now rather than let it grow on
            exceeded = True
            break
        time.sleep(0.05)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    code = p.wait()
print(json.dumps({"code": None if exceeded or code < 0 else code, "seconds": time.monotonic() - t, "pid": p.pid,
                  "exceeded": exceeded, "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def peak_rss(args: Sequence[str | Path], tmp: Path, bound_kib: int, env: dict[str, str] | None = None,
             cap: int = 3 << 30) -> tuple[Ran, int]:
    """Run the command from a fresh interpreter: (how it ran, the largest resident set of any of its processes
    in KiB, by ``RUSAGE_CHILDREN``).  A watchdog ends it as soon as one of its processes is over ``bound_kib``
    (the run then reads as timed out); ``cap`` bounds its address space, a safety net for the machine."""
    out, err = tmp / "peak-stdout.txt", tmp / "peak-stderr.txt"
    p = subprocess.run([sys.executable, "-c", _PEAK, str(cap), str(bound_kib), str(out), str(err), *CLI,
                        *map(str, args)], capture_output=True, text=True, env=dict(os.environ, **(env or {})),
                       cwd=ROOT, timeout=150)
    got = json.loads(p.stdout)
    SESSIONS.append(int(got["pid"]))
    ran = Ran(got["code"], out.read_text(errors="replace"), err.read_text(errors="replace"), got["seconds"],
              got["pid"])
    return ran, max(int(got["maxrss_kib"]), bound_kib + 1 if got["exceeded"] else 0)

def match(tmp: Path, spec: str | Path, env: dict[str, str] | None = None, extra: Sequence[str] = (),
          opponent: str = "stand", seed: int = 1, cwd: Path | None = None, timeout: float = 120) -> tuple[Ran, Path]:
    """``match --sandbox --json`` of ``spec`` at seat 1 against ``opponent``, its log and printed output in ``tmp``."""
    log = tmp / f"match-{uuid.uuid4().hex[:6]}.jsonl"
    r = run(["match", "--sandbox", "-p", spec, "-p", opponent, "--seed", str(seed), "--json", "--log", log,
             "--output-dir", tmp / "printed", *extra], tmp, env=env, cwd=cwd, timeout=timeout)
    return r, log


def played(r: Ran, log: Path) -> dict[str, Any]:
    """The match was played to its end by seat 2, and both seats are ranked; returns the result."""
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    result: dict[str, Any] = json.loads(r.stdout)
    seats = {s["seat"]: s for s in result["ranking"]}
    assert set(seats) == {1, 2}, result
    assert seats[2]["rounds"] == result["rounds"] and seats[2]["fault"] is None, result
    assert log.is_file()
    return result


VICTIM = """
import ctypes, time
ctypes.CDLL(None).prctl(0x59616D61, ctypes.c_ulong(2**64 - 1), 0, 0, 0)  # PR_SET_PTRACER, PR_SET_PTRACER_ANY
time.sleep(600)
"""


class Scene:
    """What a hand-in tries to reach, shared by the tests of one module: a sacrificial process, a secret
    only its owner may read, a file anyone may write, a TCP port listening on 127.0.0.1."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.secret = folder / "exam_key.txt"
        self.secret_text = uuid.uuid4().hex + uuid.uuid4().hex
        self.secret.write_text(self.secret_text)
        os.chmod(self.secret, 0o600)
        self.marker = folder / "ran-a-program.txt"
        self.target = folder / "grades.csv"
        self.target_text = f"student,grade\nwang,{uuid.uuid4().hex}\n"
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.victim = self._start_victim()

    @staticmethod
    def _start_victim() -> subprocess.Popen[bytes]:
        """A process that sleeps, open to tracing by any process of its user (Yama's PR_SET_PTRACER_ANY, where
        Yama is), so that only the sandbox stands between a hand-in and it, as root or not."""
        return subprocess.Popen([sys.executable, "-c", VICTIM], stdin=subprocess.DEVNULL, start_new_session=True)

    def reset(self) -> None:
        """Before a test: the victim runs (a new one if a test before ended it), the target is as written, no
        connection waits."""
        if not alive(self.victim.pid):
            self.victim.kill()
            self.victim.wait()
            self.victim = self._start_victim()
        self.target.write_text(self.target_text)
        os.chmod(self.target, 0o666)
        self.marker.unlink(missing_ok=True)
        self.connections()

    def connections(self) -> list[bytes]:
        """What every connection made to the port since the last call said (each is then closed)."""
        said = []
        while True:
            try:
                conn, _ = self.listener.accept()
            except BlockingIOError:
                return said
            conn.settimeout(1.0)
            try:
                said.append(conn.recv(256))
            except OSError:
                said.append(b"")
            conn.close()

    def limits(self) -> str:
        return Path(f"/proc/{self.victim.pid}/limits").read_text()

    def tracer(self) -> str:
        status = Path(f"/proc/{self.victim.pid}/status").read_text().splitlines()
        return next(ln for ln in status if ln.startswith("TracerPid:")).split()[1]

    def close(self) -> None:
        self.victim.kill()
        self.victim.wait()
        self.listener.close()
