"""The hostile probes behind ``twentyone doctor``: what a box can do, tried from inside one and checked from outside.

The probe (``c_src/box/tw_probe.c``) is built like any student's file and tries one way out per box: read, look
up, change or create a file of the grader's; signal, trace or re-limit another process, directly or through a
descriptor's owner (``F_SETOWN``, ``F_SETOWN_EX``, ``FIOASYNC``: the kernel would signal on the box's behalf);
leave a mark a second box sees (a lock, a ``flock``) or read another process's CPU clock; open the grader's
memory; start a process or a program; connect to a port; make shared memory; use a descriptor the grader leaked;
make descriptors past its limit; spend CPU past the match's limit; sleep; see the host's files; find the grader's
environment; keep root's identity; carry statics from one match to the next.  Its answer is not believed: each
attempt's effect is checked from outside (the file unchanged, the process alive and untraced, no connection, the
lock unseen by the second box, the CPU the kernel counted, the time the sleep took).

Two uses: ``every_probe`` runs them all in full boxes (the doctor's "probes"), and ``layer_alone`` runs one
layer's own probes in a box where every other layer is turned off (``tw_box_config.off``, the doctor's and
the tests' switch; no command-line option reaches it), with what the kernel shows of that box (``observe``):
each layer holds without the ones after it, or the doctor does not say it holds.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from twentyone.players.c.build import BOX_PROGRAM, C_SRC, compile_student
from twentyone.players.sandbox import wire
from twentyone.players.sandbox.box import (Box, BoxSettings, Layers, Start, await_ready, private_output, spawn,
                                           userns_allowed)
from twentyone.players.sandbox.ends import at_cpu_limit, describe_status
from twentyone.players.sandbox.settings import box_root
from twentyone.players.sandbox.limits import Limits
from twentyone.players.sandbox.seccomp import build_filter

__all__ = ["Outcome", "Targets", "probe_program", "every_probe", "layer_alone", "LAYERS", "observe", "start_box",
           "ALL_LAYERS"]

PROBE_SOURCE = C_SRC / "box" / "tw_probe.c"
#: The probes' limits: a short match CPU limit, so that the CPU probe ends in a second.
LIMITS = Limits(decision_timeout=2.0, match_timeout=10.0, cpu_seconds=1, pin_cpu=False)
ALL_LAYERS = (Layers.SECCOMP | Layers.LANDLOCK | Layers.EMPTY_ROOT | Layers.UID_DROP | Layers.USERNS | Layers.LIMITS
              | Layers.DESCRIPTORS | Layers.NO_PROCESSES)


def probe_program(warn: Callable[[str], None] | None = None) -> Path:
    """The probe's box program, built (and cached) the way a student's file is."""
    return compile_student(PROBE_SOURCE, warn).parent / BOX_PROGRAM


@dataclass(frozen=True)
class Outcome:
    """What one probe did: ``held`` (nothing got out), and how it ended."""

    name: str
    what: str
    held: bool
    how: str


def settings(off: Layers = Layers(0)) -> BoxSettings:
    """The probes' box settings, with the layers ``off`` turned off."""
    bpf = build_filter(python=False) or b""
    return BoxSettings(LIMITS.memory_bytes, LIMITS.output_bytes, LIMITS.cpu_seconds, LIMITS.open_files,
                       int(LIMITS.decision_timeout * 1e6), box_root(), bpf, off)


def start_box(program: Path, off: Layers = Layers(0), inherit: tuple[int, ...] = ()) -> tuple[Box, Start]:
    """A probe box with the layers ``off`` turned off (and ``inherit`` given as descriptors 5, ...), ready."""
    fd = private_output()
    try:
        box = spawn([str(program)], settings(off).config(1), fd, inherit=inherit)
    finally:
        os.close(fd)
    return box, await_ready(box, 10.0, weak_ok=bool(off))


def _ask(box: Box, attempt: str, timeout: float = 5.0) -> str:
    """Send one attempt (a first_action1 whose tmpcards carry it); the probe's one-letter answer, or '' if none."""
    payload = attempt.encode()[:60]
    try:
        os.write(box.wfd, wire.request(b"F", len(payload), len(payload)) + payload)
    except OSError:
        return ""
    try:
        frame = box.frame(timeout, text_ok=False)
    except TimeoutError:
        return ""
    return chr(frame[1]) if frame is not None and frame[0] == b"R" and 0 <= frame[1] < 128 else ""


def _end(box: Box, answered: bool) -> int:
    if answered:
        try:
            os.write(box.wfd, wire.QUIT)
        except OSError:
            pass
    return box.reap_or_kill(2.0)


class Targets:
    """What the probes aim at: a secret file (and a descriptor of it to leak), a file to change, a folder to
    create in, a process, a port, the count of shared memory segments."""

    def __init__(self, tmp: Path) -> None:
        self.secret_text = secrets.token_hex(16)
        self.secret = tmp / "secret"
        self.secret.write_text(self.secret_text)
        os.chmod(self.secret, 0o600)
        self.target = tmp / "target"
        self.target.write_text("unchanged")
        os.chmod(self.target, 0o666)
        self.drop = tmp / "drop"
        self.drop.mkdir()
        os.chmod(self.drop, 0o777)
        self.created = self.drop / "created"
        self.victim = self._start_victim()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.shm_before = self._shm_count()
        self.leak = os.open(self.secret, os.O_RDONLY | os.O_CLOEXEC)

    @staticmethod
    def _start_victim() -> subprocess.Popen[bytes]:
        return subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def fresh_victim(self) -> None:
        """A new victim, if a probe got to the last one."""
        if self.victim_changed():
            self.victim.kill()
            self.victim.wait()
            self.victim = self._start_victim()

    @staticmethod
    def _shm_count() -> int:
        try:
            return len(Path("/proc/sysvipc/shm").read_text().splitlines())
        except OSError:
            return 0

    def _victim_status(self) -> dict[str, str]:
        """The victim's ``/proc/PID/status`` fields (OSError once it is gone)."""
        status = Path(f"/proc/{self.victim.pid}/status").read_text()
        return dict(line.split(":", 1) for line in status.splitlines() if ":" in line)

    def victim_changed(self) -> bool:
        """The victim has been reached: it ended, is stopped, traced, or has lost its limits."""
        if self.victim.poll() is not None:
            return True
        try:
            fields = self._victim_status()
            limits = Path(f"/proc/{self.victim.pid}/limits").read_text()
        except OSError:
            return True
        stopped = fields.get("State", "").split()[:1] in (["T"], ["t"], ["Z"], ["X"])
        traced = fields.get("TracerPid", "0").strip() != "0"
        no_files = any(line.startswith("Max open files") and line.split()[3] == "0" for line in limits.splitlines())
        return stopped or traced or no_files

    def victim_settled(self) -> bool:
        """The victim sleeps with no signal pending: whatever was sent to it before now has been acted on (a
        signal is pending from the moment it is sent until the victim takes it, and running in between)."""
        try:
            fields = self._victim_status()
        except OSError:
            return False
        return (fields.get("State", "").split()[:1] == ["S"]
                and int(fields.get("SigPnd", "1"), 16) == 0 and int(fields.get("ShdPnd", "1"), 16) == 0)

    def connected(self) -> bool:
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    def close(self) -> None:
        self.victim.kill()
        self.victim.wait()
        self.listener.close()
        os.close(self.leak)


@dataclass(frozen=True)
class _Probe:
    """One way out: what it tries (its words), how it is run (``kind``), and what is seen from outside."""

    what: str
    attempt: Callable[[Targets], str] = lambda t: ""
    escaped: Callable[[Targets], bool] | None = None
    #: ``one`` (an attempt in a box), ``owner`` (an attempt, then a request that would send the signal),
    #: ``pair`` (a mark made in one box, looked for from a second), ``cpu`` (spin: the kernel's count),
    #: ``sleep`` (the wall-clock time it took), ``engine`` (the signal aimed at the box's own engine).
    kind: str = "one"
    #: The second box's attempt of a ``pair``.
    seen: str = ""
    inherit: bool = False


def _reached(t: Targets) -> bool:
    """The effect of a probe aimed at the victim process (``_witnessed`` waits for the victim to settle)."""
    return t.victim_changed()


_PROBES: dict[str, _Probe] = {
    "read": _Probe("read a file of the grader's", lambda t: f"read:{t.secret}"),
    "stat": _Probe("look up a file of the grader's by name", lambda t: f"stat:{t.secret}"),
    "rootdir": _Probe("see the host's folders", lambda t: "rootdir"),
    "write": _Probe("change a file of the grader's", lambda t: f"write:{t.target}",
                    lambda t: t.target.read_text() != "unchanged"),
    "create": _Probe("create a file", lambda t: f"create:{t.created}", lambda t: t.created.exists()),
    "kill": _Probe("signal another process", lambda t: f"kill:{t.victim.pid}", _reached),
    "fsetown": _Probe("signal another process through a descriptor's owner (F_SETOWN, O_ASYNC)",
                      lambda t: f"fsetown:{t.victim.pid}", _reached, kind="owner"),
    "setownex": _Probe("the same through F_SETOWN_EX", lambda t: f"setownex:{t.victim.pid}", _reached, kind="owner"),
    "fioasync": _Probe("the same through ioctl FIOSETOWN and FIOASYNC", lambda t: f"fioasync:{t.victim.pid}",
                       _reached, kind="owner"),
    "engine": _Probe("signal its own engine through a descriptor's owner", kind="engine"),
    "ptrace": _Probe("trace another process", lambda t: f"ptrace:{t.victim.pid}", _reached),
    "prlimit": _Probe("change another process's limits", lambda t: f"prlimit:{t.victim.pid}", _reached),
    "mem": _Probe("open the grader's memory", lambda t: f"mem:{os.getpid()}"),
    "fork": _Probe("start a process", lambda t: "fork"),
    "exec": _Probe("run a program", lambda t: "exec:/bin/true"),
    "connect": _Probe("connect to a port of this machine", lambda t: f"connect:{t.port}", lambda t: t.connected()),
    "shm": _Probe("make memory shared with other processes", lambda t: "shm",
                  lambda t: t._shm_count() > t.shm_before),
    "lock": _Probe("leave a lock a second box sees", lambda t: "lockset", kind="pair", seen="lockget"),
    "flock": _Probe("leave a flock a second box sees", lambda t: "flockset", kind="pair", seen="flockget"),
    "cpuclock": _Probe("read another process's CPU time", lambda t: f"cpuclock:{t.victim.pid}"),
    "env": _Probe("read the grader's environment", lambda t: "env"),
    "fds": _Probe("use a descriptor the grader leaked to it", lambda t: "fds", inherit=True),
    "dup": _Probe("make descriptors past its limit", lambda t: f"dup:{LIMITS.open_files - 5}"),
    "cpu": _Probe("spend CPU time past the match's limit", kind="cpu"),
    "sleep": _Probe("make a sleep cost time", lambda t: "sleep:3", kind="sleep"),
    "nap": _Probe("nap on a wall-clock timer and a blocking read", lambda t: "nap"),
    "root": _Probe("keep root's identity", lambda t: "root"),
    "statics": _Probe("carry memory from one match to the next", lambda t: "statics"),
}

#: The probes that spin for a second of CPU and aim at no target: run beside the others (``_run_all``).
SPINNING = frozenset(name for name, probe in _PROBES.items() if probe.kind == "cpu")

#: The full boxes' probes, in the order the doctor prints them.
FULL = ("read", "stat", "rootdir", "write", "create", "kill", "fsetown", "setownex", "fioasync", "engine", "ptrace",
        "prlimit", "mem", "fork", "exec", "connect", "shm", "lock", "flock", "cpuclock", "env", "fds", "dup",
        "cpu", "sleep", "nap", "root", "statics")


def _run(program: Path, name: str, targets: Targets, off: Layers = Layers(0)) -> Outcome:
    probe = _PROBES[name]
    if probe.kind == "cpu":  # aims at nothing outside: it never looks at the targets (``_run_all``)
        box, start = start_box(program, off)
        if start.how != "ready":
            return Outcome(name, probe.what, False, f"the box did not start ({start.how} {start.text})")
        return _cpu(box, name, probe)
    targets.fresh_victim()
    if probe.kind == "engine":
        return _engine(program, probe, off)
    if probe.kind == "pair":
        return _pair(program, name, probe, targets, off)
    if name == "statics":  # the previous match's box bets (its statics change) and ends
        previous, start = start_box(program, off)
        if start.how == "ready":
            os.write(previous.wfd, wire.request(b"B", 0, 6) + wire.QUIT)
            try:
                previous.frame(5.0)
            except TimeoutError:
                pass
        previous.reap_or_kill(2.0)
    box, start = start_box(program, off, (targets.leak,) if probe.inherit else ())
    if start.how != "ready":
        return Outcome(name, probe.what, False, f"the box did not start ({start.how} {start.text})")
    began = time.monotonic()
    answer = _ask(box, probe.attempt(targets), timeout=10.0 if probe.kind == "sleep" else 5.0)
    took = time.monotonic() - began
    if probe.kind == "owner" and answer:  # the request the kernel would signal the owner on
        _ask(box, "env")
    status = _end(box, bool(answer))
    effect = _witnessed(probe, targets)
    if probe.kind == "sleep" and took >= 1.0:
        return Outcome(name, probe.what, False, f"GOT OUT: a sleep of 3 s took {took:.1f} s")
    if probe.kind == "owner" and answer == "Y" and not effect:  # the owner was set, its signal never came
        return Outcome(name, probe.what, True, "the owner was set, but no signal reached the process")
    if answer == "Y" or effect or (name == "exec" and not answer and os.WIFEXITED(status)
                                   and os.WEXITSTATUS(status) == 0):
        return Outcome(name, probe.what, False, "GOT OUT" + (" (seen from outside)" if effect else ""))
    if answer == "N":
        return Outcome(name, probe.what, True, "refused by the system"
                       + (f" (it returned at once: {took:.2f} s)" if probe.kind == "sleep" else ""))
    if answer:
        return Outcome(name, probe.what, False, f"unexpected answer {answer!r}")
    return Outcome(name, probe.what, True, f"stopped: {describe_status(status)[1]}")


#: How long the outside is watched for a probe's effect after its box has ended.
_WATCH = 0.05


def _witnessed(probe: _Probe, targets: Targets) -> bool:
    """Whether the probe's effect is seen from outside, its box ended: looked for until ``_WATCH`` s have passed,
    or, for an effect on the victim, until the victim is settled (asleep, nothing pending: what the box sent has
    been taken).  A probe with nothing to see outside is not waited for."""
    escaped = probe.escaped
    if escaped is None:
        return False
    on_victim = escaped is _reached
    end = time.monotonic() + _WATCH
    while True:
        if escaped(targets):
            return True
        if on_victim and targets.victim_settled():
            return escaped(targets)
        if time.monotonic() >= end:
            return False
        time.sleep(0.002)


def _cpu(box: Box, name: str, probe: _Probe) -> Outcome:
    """The probe spins: held when the kernel ends it at the match's CPU limit (not one second later), as its CPU
    clock shows, however long a loaded machine takes to give it that CPU time."""
    payload = b"cpu"
    try:
        os.write(box.wfd, wire.request(b"F", len(payload), len(payload)) + payload)
    except OSError:
        pass
    limit = LIMITS.cpu_seconds
    end = time.monotonic() + 120.0
    while box.reap(0.05) is None:
        try:
            used = time.clock_gettime(box.cpu_clock)
        except OSError:
            used = 0.0
        if used > limit + 0.5 or time.monotonic() > end:
            box.reap_or_kill(0.0)
            return Outcome(name, probe.what, False, f"GOT OUT: still running after {used:.1f} s of CPU")
    status = box.status if box.status is not None else 0
    if at_cpu_limit(status, box.cpu, limit, box.killed) and box.cpu <= limit + 0.25:
        return Outcome(name, probe.what, True, f"stopped at the limit ({box.cpu:.2f} s of {limit} s)")
    return Outcome(name, probe.what, False, f"GOT OUT: {describe_status(status)[1]} after {box.cpu:.2f} s of CPU")


def _pair(program: Path, name: str, probe: _Probe, targets: Targets, off: Layers) -> Outcome:
    """A mark made in one box (held there), looked for from a second box running at the same time."""
    first, start = start_box(program, off)
    if start.how != "ready":
        return Outcome(name, probe.what, False, f"the box did not start ({start.how} {start.text})")
    made = _ask(first, probe.attempt(targets))
    second, start2 = start_box(program, off)
    seen = _ask(second, probe.seen) if start2.how == "ready" else ""
    _end(second, bool(seen))
    _end(first, bool(made))
    if seen == "Y":
        return Outcome(name, probe.what, False, "GOT OUT: the second box saw it")
    if made == "Y":
        return Outcome(name, probe.what, True, "made, but in something of its own: unseen by the second box")
    return Outcome(name, probe.what, True, "refused by the system" if made == "N" else "stopped")


def _engine(program: Path, probe: _Probe, off: Layers) -> Outcome:
    """The owner of the box's request pipe set to the box's own engine: run from a forked stand-in engine,
    which the signal would kill."""
    pid = os.fork()
    if pid == 0:  # the stand-in engine: it starts the box and sends it two requests
        code = 3
        try:
            box, start = start_box(program, off)
            if start.how == "ready":
                answer = _ask(box, f"fsetown:{os.getpid()}")
                _ask(box, "env")
                time.sleep(0.05)
                _end(box, bool(answer))
                code = 1 if answer == "Y" else 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return Outcome("engine", probe.what, False, f"GOT OUT: the engine died of signal {os.WTERMSIG(status)}")
    code = os.WEXITSTATUS(status)
    if code == 0:
        return Outcome("engine", probe.what, True, "the engine was never signalled")
    return Outcome("engine", probe.what, code != 1, "GOT OUT: the owner was set" if code == 1
                   else "the box did not start")


@contextmanager
def targets() -> Iterator[Targets]:
    """The probes' targets, made in a fresh temporary folder and removed after."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="twentyone-doctor-") as tmp:
        os.chmod(tmp, 0o755)
        t = Targets(Path(tmp))
        try:
            yield t
        finally:
            t.close()


def every_probe(program: Path, names: tuple[str, ...] = FULL) -> list[Outcome]:
    """Every probe, each in a full box of its own."""
    with targets() as t:
        return _run_all(program, names, t)


def _run_all(program: Path, names: tuple[str, ...], targets: Targets, off: Layers = Layers(0)) -> list[Outcome]:
    """The probes ``names`` in turn, but a ``cpu`` probe (a second of spinning, judged by the kernel's count of
    its CPU time, not by a clock, and aimed at no target) runs beside the others, on a thread of its own."""
    spin = [name for name in names if name in SPINNING]
    if not spin:
        return [_run(program, name, targets, off) for name in names]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(spin)) as pool:
        spinning = {name: pool.submit(_run, program, name, targets, off) for name in spin}
        done = {name: _run(program, name, targets, off) for name in names if name not in spinning}
        return [spinning[name].result() if name in spinning else done[name] for name in names]


def host_layers() -> Layers:
    """The layers a box can have on this host, as this process runs (root or not, user namespaces allowed)."""
    from twentyone.players.sandbox.box import landlock_cap

    layers = Layers.SECCOMP | Layers.LIMITS | Layers.DESCRIPTORS
    if landlock_cap() > 0:
        layers |= Layers.LANDLOCK
    if os.geteuid() == 0:
        layers |= Layers.EMPTY_ROOT | Layers.UID_DROP | Layers.NO_PROCESSES
    else:
        layers |= Layers.NO_PROCESSES
        if userns_allowed():
            layers |= Layers.EMPTY_ROOT | Layers.USERNS
    return layers


def LAYERS(abi: int) -> dict[Layers, tuple[Layers, tuple[str, ...]]]:
    """Each layer: the layers its box keeps on (itself, and those it cannot hold without), and its own probes."""
    root = os.geteuid() == 0
    landlock = ("read", "write", "create") + (("connect",) if abi >= 4 else ()) \
        + (("kill", "fsetown") if abi >= 6 else ())
    return {
        Layers.DESCRIPTORS: (Layers.DESCRIPTORS, ("fds", "lock", "flock")),
        Layers.LIMITS: (Layers.LIMITS, ("dup", "cpu")),
        Layers.EMPTY_ROOT: (Layers.EMPTY_ROOT | Layers.USERNS, ("read", "stat", "rootdir")),
        Layers.UID_DROP: (Layers.UID_DROP, ("read", "root", "kill", "ptrace", "prlimit", "mem")),
        Layers.NO_PROCESSES: (Layers.NO_PROCESSES | (Layers.UID_DROP if root else Layers(0)), ("fork",)),
        Layers.LANDLOCK: (Layers.LANDLOCK, landlock),
        Layers.SECCOMP: (Layers.SECCOMP, ("read", "stat", "write", "create", "kill", "fsetown", "setownex",
                                          "fioasync", "engine", "ptrace", "prlimit", "mem", "fork", "exec",
                                          "connect", "shm", "lock", "flock", "cpuclock", "sleep", "nap")),
    }


def layer_alone(program: Path, layer: Layers, abi: int) -> tuple[Start, dict[str, str], list[Outcome]]:
    """``layer`` alone (every other layer off): how its box started, what the kernel shows of it, and its own
    probes' outcomes."""
    keep, names = LAYERS(abi)[layer]
    off = ALL_LAYERS & ~keep
    box, start = start_box(program, off)
    seen = observe(box) if start.how == "ready" else {}
    _end(box, start.how == "ready")
    with targets() as t:
        outcomes = _run_all(program, names, t, off)
    return start, seen, outcomes


def observe(box: Box) -> dict[str, str]:
    """What the kernel shows of a running box, from outside: its filter's mode and no_new_privs, its uid and
    uid map, its root folder, its limits, its largest address space yet (VmPeak), its descriptors."""
    seen: dict[str, str] = {}
    proc = Path(f"/proc/{box.pid}")
    try:
        for line in (proc / "status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("Seccomp", "NoNewPrivs", "Uid", "Gid", "Groups", "CapEff", "VmPeak"):
                seen[key] = " ".join(value.split())
        seen["uid_map"] = " ".join((proc / "uid_map").read_text().split())
        seen["root"] = os.readlink(proc / "root")
        seen["fds"] = " ".join(sorted(os.listdir(proc / "fd"), key=int))
        for line in (proc / "limits").read_text().splitlines()[1:]:
            name = line[:26].strip()
            soft, hard = line[26:].split()[:2]
            seen[f"limit {name}"] = f"{soft} {hard}"
    except (OSError, ValueError):
        pass
    return seen

