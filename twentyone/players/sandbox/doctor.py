"""``twentyone doctor``: what confines code nobody has read on this host, and proof that it holds.

It names each layer of a box (``c_src/box/tw_confine.c``) and whether it holds here, from a real box's first
frame, then runs hostile probes through the real sandbox: ``c_src/box/tw_probe.c``, built like any student's
file, tries one way out in each box of its own (read, stat or write a file of the grader's, create one, signal,
trace or re-limit another process, open the grader's memory, start a process or a program, connect to a port,
make shared memory, find the grader's environment or descriptors, still be root, keep statics from a previous
match).  The probe's own word is not believed: the effect of each attempt is checked from outside.  Commands
that run untrusted code print ``layers_line`` once before they start.
"""

from __future__ import annotations

import os
import platform
import secrets
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.players.c.build import BOX_PROGRAM, C_SRC, compile_student
from twentyone.players.sandbox import landlock, wire
from twentyone.players.sandbox.box import Box, Layers, await_ready, landlock_cap, spawn, userns_allowed
from twentyone.players.sandbox.client import box_settings, describe_status
from twentyone.players.sandbox.limits import Limits
from twentyone.players.sandbox.seccomp import build_filter, filter_architecture

__all__ = ["Probe", "Outcome", "layers_line", "probe_program", "run_probes", "layer_rows", "main"]

PROBE_SOURCE = C_SRC / "box" / "tw_probe.c"
_LIMITS = Limits(decision_timeout=2.0, match_timeout=10.0, cpu_seconds=5, pin_cpu=False)


def probe_program(warn: Callable[[str], None] | None = None) -> Path:
    """The probe's box program, built (and cached) the way a student's file is."""
    return compile_student(PROBE_SOURCE, warn).parent / BOX_PROGRAM


def _start(program: Path) -> Box:
    fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    try:
        return spawn([str(program)], box_settings(_LIMITS, python=False).config(1), fd)
    finally:
        os.close(fd)


def layers_line(warn: Callable[[str], None] | None = None) -> str:
    """The one line a command prints before it runs untrusted code: the layers that hold for a real box here.

    Raises PlayerSpecError (one line, what is missing) when the minimum cannot be had."""
    box = _start(probe_program(warn))
    start = await_ready(box, 10.0)
    if start.how == "ready":
        try:
            os.write(box.wfd, wire.QUIT)
        except OSError:
            pass
        box.reap_or_kill(2.0)
        return f"sandbox: {start.layers.describe(start.abi)} (twentyone doctor shows each layer)"
    if start.how == "refused":
        raise PlayerSpecError(f"this machine cannot confine unread code: {start.text}; "
                              "run with --trusted only for code you have read")
    if start.how == "weak":
        raise PlayerSpecError(f"this machine cannot confine unread code (only {start.layers.describe(start.abi)} "
                              "hold); run with --trusted only for code you have read")
    raise PlayerSpecError(f"the sandbox could not start a process here ({start.how}); "
                          "run with --trusted only for code you have read")


@dataclass(frozen=True)
class Outcome:
    """What one probe did: ``held`` (nothing got out), and how it ended."""

    name: str
    what: str
    held: bool
    how: str


@dataclass(frozen=True)
class Probe:
    """One way out: ``attempt`` is the probe's "NAME:ARGUMENT", ``escaped`` checks the effect from outside."""

    name: str
    what: str
    attempt: str
    escaped: Callable[[], bool]


class _Targets:
    """What the probes aim at: a secret file, a file to change, a folder to create in, a process, a port."""

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
        self.victim = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.shm_before = self._shm_count()

    @staticmethod
    def _shm_count() -> int:
        try:
            return len(Path("/proc/sysvipc/shm").read_text().splitlines())
        except OSError:
            return 0

    def victim_changed(self) -> bool:
        if self.victim.poll() is not None:
            return True
        try:
            status = Path(f"/proc/{self.victim.pid}/status").read_text()
            limits = Path(f"/proc/{self.victim.pid}/limits").read_text()
        except OSError:
            return True
        traced = any(line.startswith("TracerPid:") and line.split()[1] != "0" for line in status.splitlines())
        no_files = any(line.startswith("Max open files") and line.split()[3] == "0" for line in limits.splitlines())
        return traced or no_files

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

    def probes(self) -> list[Probe]:
        me = os.getpid()
        never = lambda: False  # noqa: E731 - the probe's answer, or its death, is all there is to see
        return [
            Probe("read", "read a file of the grader's", f"read:{self.secret}", never),
            Probe("stat", "look up a file of the grader's by name", f"stat:{self.secret}", never),
            Probe("write", "change a file of the grader's", f"write:{self.target}",
                  lambda: self.target.read_text() != "unchanged"),
            Probe("create", "create a file", f"create:{self.created}", self.created.exists),
            Probe("kill", "signal another process", f"kill:{self.victim.pid}", self.victim_changed),
            Probe("ptrace", "trace another process", f"ptrace:{self.victim.pid}", self.victim_changed),
            Probe("prlimit", "change another process's limits", f"prlimit:{self.victim.pid}", self.victim_changed),
            Probe("mem", "open the grader's memory", f"mem:{me}", never),
            Probe("fork", "start a process", "fork", never),
            Probe("exec", "run a program", "exec:/bin/true", never),
            Probe("connect", "connect to a port of this machine", f"connect:{self.port}", self.connected),
            Probe("shm", "make memory shared with other processes", "shm",
                  lambda: self._shm_count() > self.shm_before),
            Probe("env", "read the grader's environment", "env", never),
            Probe("fds", "use a descriptor of the grader's", "fds", never),
            Probe("root", "keep root's identity", "root", never),
            Probe("statics", "carry memory from one match to the next", "statics", never),
        ]


def _attempt(program: Path, probe: Probe) -> Outcome:
    box = _start(program)
    start = await_ready(box, 10.0)
    if start.how != "ready":
        return Outcome(probe.name, probe.what, False, f"the box did not start ({start.how} {start.text})")
    payload = probe.attempt.encode()[:60]
    try:
        os.write(box.wfd, wire.request(b"F", len(payload), len(payload)) + payload)
    except OSError:
        pass
    try:
        frame = box.frame(5.0, text_ok=False)
    except TimeoutError:
        frame = None
    answer = chr(frame[1]) if frame is not None and frame[0] == b"R" and 0 <= frame[1] < 128 else ""
    if answer:
        try:
            os.write(box.wfd, wire.QUIT)
        except OSError:
            pass
    status = box.reap_or_kill(2.0)
    time.sleep(0.05)
    effect = probe.escaped()
    if answer == "Y" or effect or (probe.name == "exec" and not answer and os.WIFEXITED(status)
                                   and os.WEXITSTATUS(status) == 0):
        return Outcome(probe.name, probe.what, False, "GOT OUT" + (" (seen from outside)" if effect else ""))
    if answer == "N":
        return Outcome(probe.name, probe.what, True, "refused by the system")
    if answer:
        return Outcome(probe.name, probe.what, False, f"unexpected answer {answer!r}")
    return Outcome(probe.name, probe.what, True, f"killed: {describe_status(status)[1]}")


def run_probes(warn: Callable[[str], None] | None = None) -> list[Outcome]:
    """Every probe, each in a box of its own; the targets are made and removed here."""
    program = probe_program(warn)
    with tempfile.TemporaryDirectory(prefix="twentyone-doctor-") as tmp:
        os.chmod(tmp, 0o755)
        targets = _Targets(Path(tmp))
        try:
            outcomes = []
            for probe in targets.probes():
                if probe.name == "statics":
                    previous = _start(program)  # the previous match's box bets (its statics change) and ends
                    if await_ready(previous, 10.0).how == "ready":
                        os.write(previous.wfd, wire.request(b"B", 0, 6) + wire.QUIT)
                        previous.frame(5.0)
                    previous.reap_or_kill(2.0)
                outcomes.append(_attempt(program, probe))
        finally:
            targets.close()
    return outcomes


def layer_rows() -> list[tuple[str, str, str]]:
    """(layer, holds / missing / not needed, detail) for this host, from a real box's first frame."""
    box = _start(probe_program())
    start = await_ready(box, 10.0)
    try:
        os.write(box.wfd, wire.QUIT)
    except OSError:
        pass
    box.reap_or_kill(2.0)
    got, abi = (start.layers, start.abi) if start.how in ("ready", "weak") else (Layers(0), 0)
    root = os.geteuid() == 0
    kernel = landlock.kernel_abi()
    cap = os.environ.get("TWENTYONE_LANDLOCK_ABI", "")
    arch = filter_architecture()
    bpf = build_filter() or b""

    def row(name: str, layer: Layers, detail: str, needed: bool = True) -> tuple[str, str, str]:
        state = "holds" if got & layer else ("missing" if needed else "not used")
        return name, state, detail

    rows = [
        row("system-call filter (seccomp)", Layers.SECCOMP,
            f"{arch}, {len(bpf) // 8} instructions, built by the engine (no library)" if arch else "no table"),
        row("Landlock", Layers.LANDLOCK, f"ABI {abi} used; the kernel has {kernel}"
            + (f", capped by TWENTYONE_LANDLOCK_ABI={cap}" if cap else ""), needed=landlock_cap() > 0),
        row("unprivileged uid and gid", Layers.UID_DROP, "started as root: a uid of its own, no groups",
            needed=root),
        row("user namespace", Layers.USERNS, "an ordinary user's empty root"
            + ("" if userns_allowed() else " (TWENTYONE_USERNS=0)"), needed=not root and userns_allowed()),
        row("empty root (chroot)", Layers.EMPTY_ROOT, "no file of the host's is in its view",
            needed=root or userns_allowed()),
        row("resource limits", Layers.LIMITS, "memory, CPU time, output, descriptors, no processes"),
        row("only the engine's descriptors", Layers.DESCRIPTORS, "/dev/null, its capture file, its two pipes"),
    ]
    if start.how == "refused":
        rows.append(("the box", "missing", start.text))
    return rows


def main(out: Callable[[str], None] = print) -> int:
    """``twentyone doctor``: print the layers and the probes; 0 when every probe held and the minimum holds."""
    uname = platform.uname()
    out(f"host: {uname.system} {uname.release} {uname.machine}, running as "
        f"{'root' if os.geteuid() == 0 else 'uid ' + str(os.geteuid())}")
    out("layers of a box (each match's process, confined before any student code runs):")
    rows = layer_rows()
    width = max(len(r[0]) for r in rows)
    for name, state, detail in rows:
        out(f"  {name:<{width}}  {state:<8}  {detail}")
    minimum = all(state == "holds" for name, state, _ in rows
                  if name.startswith(("system-call", "resource", "only the")))
    if not minimum:
        out("result: this host cannot confine code nobody has read (the system-call filter, the limits and the "
            "descriptors are the minimum); untrusted code is refused here")
        return 2
    out("probes (each in a box of its own, trying what a hostile student's code would):")
    outcomes = run_probes()
    width = max(len(o.what) for o in outcomes)
    for o in outcomes:
        out(f"  {o.what:<{width}}  {'held' if o.held else 'ESCAPED'}  {o.how}")
    escaped = [o.name for o in outcomes if not o.held]
    if escaped:
        out(f"result: {len(escaped)} probe(s) got out ({', '.join(escaped)}): do not grade untrusted code here")
        return 1
    out(f"result: every probe held ({len(outcomes)})")
    return 0
