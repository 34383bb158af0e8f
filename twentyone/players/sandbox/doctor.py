"""``twentyone doctor``: what confines code nobody has read on this host, each line proved from inside a box.

A layer is said to hold only when three things agree: the box observed its effect as it set it (the ``H``
frame: ``c_src/box/tw_confine.c`` names a layer only once it has seen it work), the kernel shows it from
outside (``/proc/PID/status``, ``limits``, ``root``, ``fd``, ``uid_map``), and the layer's own hostile probes
hold in a box where **every other layer is turned off** (``probes.layer_alone``).  Then every probe runs in a
full box (``probes.every_probe``), and a hostile build (a file that makes the assembler read a file of the
grader's) is compiled and its program searched for the file's bytes.

The verdict is kept per host configuration (kernel, root or not, Landlock cap, user namespaces, the sandbox's
own code): ``layers_line`` reads it, or finds it (a few seconds) the first time, and every command that runs
untrusted code (``grade``, ``tournament``, ``match``, ``judge``) asks it first, and refuses in one line that
names what failed where anything got out.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.players.sandbox import landlock
from twentyone.players.sandbox.box import Layers, landlock_cap, userns_allowed
from twentyone.players.sandbox.probes import (LAYERS, LIMITS, SPINNING, Outcome, host_layers, layer_alone, observe,
                                              probe_program, start_box, targets, every_probe)
from twentyone.players.sandbox.seccomp import build_filter, filter_architecture

__all__ = ["Verdict", "Row", "examine", "verdict", "layers_line", "main"]

Warn = Callable[[str], None]

#: Each layer's name as the doctor prints it.
_NAMES = {
    Layers.SECCOMP: "system-call filter (seccomp)",
    Layers.LANDLOCK: "Landlock",
    Layers.UID_DROP: "unprivileged uid and gid",
    Layers.USERNS: "user namespace",
    Layers.EMPTY_ROOT: "empty root (chroot)",
    Layers.LIMITS: "resource limits",
    Layers.NO_PROCESSES: "no new processes",
    Layers.DESCRIPTORS: "only its own descriptors",
}
#: The minimum: without these the engine refuses untrusted code on the host.
MINIMUM = Layers.SECCOMP | Layers.LIMITS | Layers.DESCRIPTORS


@dataclass(frozen=True)
class Row:
    """One layer: ``holds``, ``FAILED`` (a probe got out, or the kernel disagrees), ``missing`` or ``not here``."""

    name: str
    state: str
    detail: str


@dataclass(frozen=True)
class Verdict:
    """The host's verdict: its layers and probes, and whether untrusted code may run here (``ok``)."""

    host: str
    rows: list[Row]
    probes: list[Outcome] = field(default_factory=list)
    minimum: bool = False
    words: str = ""

    @property
    def failed(self) -> list[str]:
        """What failed, in words: layers that did not hold and probes that got out."""
        return ([r.name for r in self.rows if r.state in ("FAILED", "missing")]
                + [o.what for o in self.probes if not o.held])

    @property
    def ok(self) -> bool:
        return self.minimum and not self.failed


def _host() -> str:
    uname = platform.uname()
    who = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
    return f"{uname.system} {uname.release} {uname.machine}, running as {who}"


def _kernel_agrees(layer: Layers, seen: dict[str, str]) -> str | None:
    """Why the kernel's view of a box disagrees with ``layer`` holding in it (None: it agrees)."""
    if layer == Layers.SECCOMP:
        if seen.get("Seccomp") != "2" or seen.get("NoNewPrivs") != "1":
            return f"the kernel shows Seccomp {seen.get('Seccomp')}, NoNewPrivs {seen.get('NoNewPrivs')}"
    elif layer == Layers.DESCRIPTORS:
        if seen.get("fds") != "0 1 2 3 4":
            return f"it holds descriptors {seen.get('fds')}"
    elif layer == Layers.LIMITS:
        want = {"Max cpu time": f"{LIMITS.cpu_seconds} {LIMITS.cpu_seconds}",
                "Max open files": f"{LIMITS.open_files} {LIMITS.open_files}",
                "Max file size": f"{LIMITS.output_bytes} {LIMITS.output_bytes}",
                "Max address space": f"{LIMITS.memory_bytes} {LIMITS.memory_bytes}",
                "Max core file size": "0 0", "Max locked memory": "0 0", "Max msgqueue size": "0 0"}
        wrong = [k for k, v in want.items() if seen.get(f"limit {k}") != v]
        if wrong:
            return "the kernel shows " + ", ".join(f"{k} {seen.get('limit ' + k)}" for k in wrong)
        peak = _kib(seen.get("VmPeak"))
        if peak is None or peak << 10 > LIMITS.memory_bytes:  # mapped past the limit before it was set
            return f"the kernel shows VmPeak {seen.get('VmPeak')}, over the memory limit"
    elif layer == Layers.NO_PROCESSES:
        if seen.get("limit Max processes") != "0 0":
            return f"the kernel shows Max processes {seen.get('limit Max processes')}"
    elif layer == Layers.EMPTY_ROOT:
        from twentyone.players.sandbox.settings import box_root

        if seen.get("root") != str(box_root()):
            return f"its root is {seen.get('root')}"
    elif layer == Layers.UID_DROP:
        uid = (seen.get("Uid") or "0").split()
        if "0" in uid or seen.get("Groups"):
            return f"the kernel shows Uid {seen.get('Uid')}, Groups {seen.get('Groups')!r}"
    elif layer == Layers.USERNS:
        if seen.get("uid_map", "0 0 4294967295") == "0 0 4294967295":
            return "it is in the host's user namespace"
    return None


def _kib(text: str | None) -> int | None:
    """``12345 kB`` as 12345; None when it is not so."""
    words = (text or "").split()
    return int(words[0]) if len(words) == 2 and words[0].isdigit() and words[1] == "kB" else None


def _layer_row(program: Path, layer: Layers, full: Layers, abi: int, available: Layers) -> Row:
    name = _NAMES[layer]
    if not layer & available:
        why = {Layers.LANDLOCK: "this kernel has no Landlock" if landlock.kernel_abi() == 0
               else "turned off (TWENTYONE_LANDLOCK_ABI=0)",
               Layers.USERNS: "started as root" if os.geteuid() == 0 else "user namespaces are turned off",
               Layers.UID_DROP: "not started as root"}.get(layer, "not available here")
        return Row(name, "not here", why)
    if not layer & full:
        return Row(name, "missing", "a box here did not set it")
    if layer == Layers.USERNS:  # proved with the empty root it makes possible
        return Row(name, "holds", "an ordinary user's box: a user namespace of its own")
    start, seen, outcomes = layer_alone(program, layer, abi)
    got = [o for o in outcomes if not o.held]
    if start.how != "ready":
        return Row(name, "FAILED", f"a box with it alone did not start ({start.how} {start.text})")
    if not start.layers & layer:
        return Row(name, "FAILED", "a box with it alone did not observe it")
    disagree = _kernel_agrees(layer, seen)
    if disagree:
        return Row(name, "FAILED", disagree)
    if got:
        return Row(name, "FAILED", "alone, it let through: " + ", ".join(o.what for o in got))
    detail = {Layers.LANDLOCK: f"ABI {abi}" + (f" (the kernel has {landlock.kernel_abi()})"
                                               if landlock.kernel_abi() != abi else ""),
              Layers.SECCOMP: f"{filter_architecture()}, {len(build_filter() or b'') // 8} instructions",
              Layers.LIMITS: f"CPU {LIMITS.cpu_seconds} s (hard = soft), {LIMITS.open_files} descriptors, "
                             f"{LIMITS.memory_bytes >> 20} MiB (its peak {(_kib(seen.get('VmPeak')) or 0) >> 10} MiB), "
                             f"{LIMITS.output_bytes >> 10} KiB of output",
              Layers.EMPTY_ROOT: f"root {seen.get('root')}",
              Layers.UID_DROP: f"uid {(seen.get('Uid') or '?').split()[0]}, no groups",
              Layers.DESCRIPTORS: "0-4, each its own"}.get(layer, "")
    return Row(name, "holds", f"{detail}; alone: {len(outcomes)} probe(s) held".lstrip("; "))


_BUILD_PROBE = r"""#include "mycodes.h"
#define PASTE(a, b) a##b
PASTE(__as, m__)(".section .rodata\n.incbin \"%s\"\n.text");
int bet1(int N) { return 10; }
char first_action1(char *t, int n) { return 's'; }
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""


def _build_probe(secret: Path, text: str, warn: Warn | None) -> Outcome:
    """A file whose assembler directive reads a file of the grader's (made only after preprocessing): held when
    the build is refused or its program does not hold the file's bytes."""
    from twentyone.errors import CompileError
    from twentyone.players.c.build import BOX_PROGRAM, compile_student

    what = "make the compiler read a file of the grader's"
    with tempfile.TemporaryDirectory(prefix="twentyone-doctor-build-") as tmp:
        source = Path(tmp) / "mycodes.c"
        source.write_text(_BUILD_PROBE % secret)
        try:
            built = compile_student(source, warn)
        except (CompileError, PlayerSpecError) as e:
            return Outcome("build", what, True, f"refused: {str(e).splitlines()[0]}")
        found = [p for p in (built, built.parent / BOX_PROGRAM) if p.is_file() and text.encode() in p.read_bytes()]
    if found:
        return Outcome("build", what, False, "GOT OUT: the file's bytes are in the built program")
    return Outcome("build", what, True, "built, without the file's bytes")


def examine(warn: Warn | None = None) -> Verdict:
    """Everything the doctor checks, on this host as this process runs (a few seconds)."""
    program = probe_program(warn)
    box, start = start_box(program)
    seen = observe(box) if start.how == "ready" else {}
    box.reap_or_kill(1.0)
    if start.how not in ("ready", "weak"):
        row = Row("the box", "missing", f"{start.how}: {start.text}".rstrip(": "))
        return Verdict(_host(), [row], words="none")
    full, abi = start.layers, start.abi
    available = host_layers()
    rows = _layer_rows(program, full, abi, available)
    held = Layers(0)
    for layer, row in zip(_NAMES, rows):
        if row.state == "holds":
            held |= layer
    minimum = held & MINIMUM == MINIMUM and _kernel_agrees(Layers.SECCOMP, seen) is None
    if not minimum:
        return Verdict(_host(), rows, minimum=False, words=held.describe(abi))
    outcomes = every_probe(program)
    with targets() as t:
        outcomes.append(_build_probe(t.secret, t.secret_text, warn))
    return Verdict(_host(), rows, outcomes, True, held.describe(abi))


def _layer_rows(program: Path, full: Layers, abi: int, available: Layers) -> list[Row]:
    """Each layer's row, in ``_NAMES``' order.  A layer whose own probes spin for a second of CPU (``cpu``: the
    limits) is proved on a thread beside the others: each layer's probes aim at targets of their own."""
    from concurrent.futures import ThreadPoolExecutor

    own = LAYERS(abi)
    spin = [layer for layer in _NAMES if layer in own and SPINNING & set(own[layer][1])]
    with ThreadPoolExecutor(max(1, len(spin))) as pool:
        beside = {layer: pool.submit(_layer_row, program, layer, full, abi, available) for layer in spin}
        rows = {layer: _layer_row(program, layer, full, abi, available) for layer in _NAMES if layer not in beside}
        return [beside[layer].result() if layer in beside else rows[layer] for layer in _NAMES]


def _key() -> str:
    """The host configuration a verdict holds for: kernel, root or not, Landlock cap, user namespaces, and the
    sandbox's own code (its C and Python files and the build's)."""
    from twentyone.players.c.build import C_SRC

    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for p in sorted([*here.glob("*.py"), *(C_SRC / "box").glob("*.[ch]"), C_SRC / "bridge" / "tw_serve.c",
                     *(here.parent / "c").glob("*.py")]):
        h.update(p.name.encode() + p.read_bytes())
    from twentyone.players.sandbox import box

    h.update(repr((platform.release(), platform.machine(), os.geteuid() == 0, landlock_cap(), userns_allowed(),
                   landlock.kernel_abi(), sys.version, int(box.FORCE_OFF))).encode())
    return h.hexdigest()[:32]


def _verdict_file() -> Path:
    from twentyone.players.c.build import cache_dir

    return cache_dir().parent / "doctor" / f"{_key()}.json"


#: The looks in progress in this process, by verdict file: a second asker waits for the first's (``verdict``).
_LOOKS: dict[Path, tuple[threading.Event, list[Verdict]]] = {}
_LOOKS_LOCK = threading.Lock()


def verdict(warn: Warn | None = None, fresh: bool = False) -> Verdict:
    """This host's verdict: kept from an earlier look at the same configuration, or found now and kept.

    Threads that ask while one of them looks (``grade`` proves the host while it builds the hand-ins, and a
    Python hand-in's check asks too) wait for that look, and share it: one proof at a time, never two at once."""
    path = _verdict_file()
    if fresh:
        return _look(path, warn)
    kept = _kept(path)
    if kept is not None:
        return kept
    with _LOOKS_LOCK:
        pending = _LOOKS.get(path)
        first = pending is None
        if pending is None:
            pending = _LOOKS[path] = (threading.Event(), [])
    done, found = pending
    if not first:
        done.wait()
        if found:
            return found[0]
        return _look(path, warn)  # the look it waited for ended in an exception: its own look says why
    try:
        found.append(_kept(path) or _look(path, warn))
        return found[0]
    finally:
        with _LOOKS_LOCK:
            del _LOOKS[path]
        done.set()


def _kept(path: Path) -> Verdict | None:
    try:
        data = json.loads(path.read_text())
        return Verdict(data["host"], [Row(**r) for r in data["rows"]], [Outcome(**o) for o in data["probes"]],
                       data["minimum"], data["words"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _look(path: Path, warn: Warn | None) -> Verdict:
    """The host examined now; the verdict kept at ``path`` when everything held."""
    v = examine(warn)
    if not v.ok and v.minimum:
        # A probe that got out on a loaded machine (a CPU figure late, a box slow to start) is looked at again
        # before the host is refused: what fails twice fails.
        v = _again(v, warn)
    if not v.ok:
        return v  # not kept: the next command looks again
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(v)))
        tmp.replace(path)
    except OSError:
        pass
    return v


def _again(v: Verdict, warn: Warn | None) -> Verdict:
    """``v`` with the layers and probes that failed looked at once more."""
    from twentyone.players.sandbox.probes import FULL

    program = probe_program(warn)
    rows = list(v.rows)
    for i, (layer, row) in enumerate(zip(_NAMES, v.rows)):
        if row.state == "FAILED":
            box, start = start_box(program)
            full, abi = start.layers, start.abi
            box.reap_or_kill(1.0)
            rows[i] = _layer_row(program, layer, full, abi, host_layers())
    outcomes = list(v.probes)
    again = [o.name for o in outcomes if not o.held and o.name in FULL]
    if again:
        fresh = {o.name: o for o in every_probe(program, tuple(again))}
        outcomes = [fresh.get(o.name, o) for o in outcomes]
    build = [i for i, o in enumerate(outcomes) if o.name == "build" and not o.held]
    if build:
        with targets() as t:
            outcomes[build[0]] = _build_probe(t.secret, t.secret_text, warn)
    return Verdict(v.host, rows, outcomes, v.minimum, v.words)


def layers_line(warn: Warn | None = None) -> str:
    """The one line a command prints before it runs untrusted code: the layers the doctor proved on this host.

    Raises PlayerSpecError (one line: what failed) when the minimum does not hold here or any probe got out."""
    v = verdict(warn)
    if not v.minimum:
        missing = [r.name for r in v.rows if r.state != "holds" and r.name in
                   (_NAMES[Layers.SECCOMP], _NAMES[Layers.LIMITS], _NAMES[Layers.DESCRIPTORS], "the box")]
        raise PlayerSpecError("this machine cannot confine unread code (" + (", ".join(missing) or "the minimum")
                              + " do not hold; twentyone doctor shows why); run with --trusted only for code "
                              "you have read")
    if v.failed:
        raise PlayerSpecError("this machine cannot confine unread code: " + "; ".join(v.failed[:3])
                              + (" ..." if len(v.failed) > 3 else "") + " (twentyone doctor shows each); run with "
                              "--trusted only for code you have read")
    return f"sandbox: {v.words} (twentyone doctor proves each layer)"


def main(out: Callable[[str], None] = print) -> int:
    """``twentyone doctor``: the layers and the probes, looked at afresh; 0 when everything held, 1 when anything
    got out or a layer failed, 2 when the minimum does not hold here."""
    out(f"host: {_host()}")
    v = verdict(fresh=True)
    out("layers of a box (each match's process, confined before any student code runs); each proved alone:")
    width = max(len(r.name) for r in v.rows)
    for r in v.rows:
        out(f"  {r.name:<{width}}  {r.state:<8}  {r.detail}")
    if not v.minimum:
        out("result: this host cannot confine code nobody has read (the system-call filter, the limits and the "
            "descriptors are the minimum); untrusted code is refused here")
        return 2
    out("probes (each in a full box of its own, trying what a hostile student's code would):")
    width = max(len(o.what) for o in v.probes)
    for o in v.probes:
        out(f"  {o.what:<{width}}  {'held' if o.held else 'ESCAPED'}  {o.how}")
    if v.failed:
        out(f"result: {len(v.failed)} thing(s) failed ({'; '.join(v.failed)}): do not grade untrusted code here")
        return 1
    out(f"result: every layer held alone and every probe held ({len(v.probes)})")
    return 0
