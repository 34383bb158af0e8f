"""The sandbox's worker process: ``python -m twentyone.players.sandbox.worker FD KIND TARGET K CONFIG``.

The process the engine starts is a **zygote**: a fresh Python process (started with exec, never forked
from the engine, so it never holds a shoe).  Before it touches the student's file it confines itself:

- it dies with the engine (``PR_SET_PDEATHSIG``), and leaves when the engine's control socket closes;
- resource limits: address space, CPU seconds, no core dumps, no file writes (soft ``RLIMIT_FSIZE`` 0);
- Landlock: it may read only the module (or the ``.py``), the Python installation and the system
  libraries, and write, run or signal nothing outside the sandbox;
- the zygote's system-call filter (``seccomp``): no programs, sockets, ``ptrace``, or calls on other pids.

Only then does it load the strategy: a C module's constructors and C++ static initialisers, and the
parsing of a ``.py``, run under all of that.  For every match the engine sends it (over the control
socket) the pipes and the capture file of the next match, and it forks a **child** on them, which
adds before any student call: the per-match limits (CPU seconds, output size, no processes) and the
child's stricter filter, which kills it on any call a strategy has no business making.  A C strategy's
child then serves the match in C (``tw_serve``); a Python strategy's child runs the student's module and
serves it here.  The frames are ``wire``'s.  This module never imports the engine-side client.

Without libseccomp the filters are missing, so the worker isolates itself another way: a network
namespace (and a user namespace when not root) and, when started as root, the uid ``nobody`` before the
module is loaded, so that ``RLIMIT_NPROC`` binds and no other process is within reach.  If even that is
impossible, it says so and the engine refuses to run unread code without ``--trusted``.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import os
import resource
import select
import shutil
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

from twentyone.players.cplayer import CFunctionSet, load_student
from twentyone.players.pyplayer import ModuleFunctionSet
from twentyone.players.sandbox import landlock, wire
from twentyone.players.sandbox.limits import Confinement, Limits, WorkerConfig, die_with_parent
from twentyone.players.sandbox.seccomp import FilterLoader, build_filter

__all__ = ["main", "PRELOAD"]

#: Modules a sandboxed Python strategy may import (loaded before the filter forbids opening files).
PRELOAD = ("math", "random", "collections", "itertools", "functools", "statistics", "fractions", "decimal",
           "typing", "dataclasses", "enum", "gc", "time", "re", "json", "copy", "heapq", "bisect", "string",
           "encodings.utf_8_sig", "encodings.gbk", "encodings.latin_1", "_cffi_backend", "twentyone", "twentyone.cards", "twentyone.records", "twentyone.strategy",
           "twentyone.table", "twentyone.match")

_NOBODY = 65534
_libc = ctypes.CDLL(None, use_errno=True)

Loaded = CFunctionSet | ModuleFunctionSet


class _Conn:
    """The child's ends of its pipes: request frames in (``rfd``), reply frames out (``wfd``)."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd = rfd
        self.wfd = wfd
        self.buf = b""

    def frame(self) -> tuple[bytes, int, int, int, int, bytes] | None:
        """The next request (op, n, a, b, c, body), or None when the engine has gone."""
        buf = self.buf
        size = wire.REQUEST.size
        while True:
            if len(buf) >= size:
                op, n, a, b, c = wire.REQUEST.unpack_from(buf)
                end = size + wire.body_size(op, n, a)
                if len(buf) >= end:
                    self.buf = buf[end:]
                    return op, n, a, b, c, buf[size:end]
            try:
                chunk = os.read(self.rfd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                return None
            buf += chunk

    def reply(self, tag: bytes, value: int) -> None:
        os.write(self.wfd, wire.REPLY.pack(tag, value))

    def text(self, tag: bytes, text: str) -> None:
        data = text.encode("utf-8", "replace")[:wire.MAX_TEXT]
        os.write(self.wfd, wire.REPLY.pack(tag, len(data)) + data)


# -- confining the zygote --------------------------------------------------------------------------
def _zygote_limits(limits: Limits) -> None:
    """Limits that bind the zygote while it loads the module (the children tighten them)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    # No file may grow here; a child raises its soft limit to the output cap for its capture file.
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, limits.output_bytes))


def _readable(target: Path) -> list[str]:
    """What a zygote may read once confined: the strategy's file, Python, the installed packages."""
    import site
    import sysconfig

    paths = {str(target), sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(__file__).resolve().parents[2])}
    paths.update(site.getsitepackages())
    paths.update(p for p in sysconfig.get_paths().values() if p)
    return sorted(paths)


def _isolate_without_filter(target: Path, kind: str) -> Path | None:
    """Without a system-call filter: a network namespace, and as root the uid nobody (with a readable copy
    of the module).  Returns the path to load, or None if the process cannot be isolated."""
    flags = 0x40000000  # CLONE_NEWNET
    if os.geteuid() != 0:
        flags |= 0x10000000  # CLONE_NEWUSER: lets an ordinary user make the network namespace
    if _libc.unshare(flags) != 0:
        return None
    if os.geteuid() != 0:
        return target
    if kind == "c":
        # nobody cannot read root's cache: load a copy from a folder of its own (removed by the engine's tmp).
        scratch = Path(tempfile.mkdtemp(prefix="tw-zygote-"))
        os.chmod(scratch, 0o755)
        copy = scratch / target.name
        shutil.copyfile(target, copy)
        os.chmod(copy, 0o644)
        target = copy
    try:
        os.setgroups([])
        os.setresgid(_NOBODY, _NOBODY, _NOBODY)
        os.setresuid(_NOBODY, _NOBODY, _NOBODY)
    except OSError:
        return None
    return target


def _confine_zygote(config: WorkerConfig, kind: str, target: Path) -> tuple[Confinement, Path]:
    """Confine this zygote before it loads anything of the student's; say how (and what to load)."""
    how = Confinement(0)
    bpf = build_filter(zygote=True)
    readable = _readable(target)
    if bpf is None:
        isolated = _isolate_without_filter(target, kind)
        if isolated is None:
            return how, target
        how |= Confinement.NAMESPACES
        readable.append(str(isolated))
        target = isolated
    _zygote_limits(config.limits)
    if landlock.abi() >= 1:
        try:
            landlock.restrict(read=readable, execute=())
            how |= Confinement.LANDLOCK
        except OSError:
            pass
    if bpf is not None:
        if not FilterLoader(bpf)():
            return Confinement(0), target
        how |= Confinement.SECCOMP
    return how, target


def _read_capped(path: Path, cap: int) -> bytes:
    """The bytes of a strategy file, refused when it is larger than ``cap``."""
    with open(path, "rb") as f:
        data = f.read(cap + 1)
    if len(data) > cap:
        raise OSError(f"{path} is larger than {cap} bytes")
    return data


def _load(kind: str, target: Path, k: int, source: bytes | None) -> Loaded:
    """Load the strategy: a C module's constructors run here, and a ``.py`` (read before) is parsed here."""
    if kind == "c":
        return CFunctionSet(load_student(target), k, target.stem)
    return ModuleFunctionSet(target, k, warn=lambda m: print(m, file=sys.stderr), execute=False, source=source)


# -- the child -------------------------------------------------------------------------------------
def _confine(rfd: int, wfd: int, capture: int, limits: Limits, how: Confinement) -> None:
    """Keep only the match's pipes and capture file (as stdout and stderr), restore the default signal
    actions and set the per-match resource limits."""
    os.dup2(capture, 1)
    os.dup2(capture, 2)
    last = 2
    for fd in sorted({rfd, wfd}):  # everything else goes: the zygote's control socket and wake-up pipe too
        os.closerange(last + 1, fd)
        last = fd
    os.closerange(last + 1, 1 << 12)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cap = limits.output_bytes
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))


def _spare(fds: list[int], loaded: Loaded, k: int, config: WorkerConfig, bpf: bytes | None,
           how: Confinement, zygote: int) -> NoReturn:
    """A child forked ahead of its match: it sets up everything, waits for the match, then serves it."""
    rfd, wfd, capture = fds
    os.write(wfd, wire.REPLY.pack(b"H", os.getpid()))
    die_with_parent(zygote)
    conn = _Conn(rfd, wfd)
    if isinstance(loaded, CFunctionSet):
        loaded.state.reset_statics()  # harmless: the zygote never plays, so they are as loaded
    _confine(rfd, wfd, capture, config.limits, how)
    if isinstance(loaded, CFunctionSet):
        # C output goes through the module's capture; its own cap sits above the file-size limit,
        # so a flood hits RLIMIT_FSIZE and the child dies of SIGXFSZ: a fault, not a silent cut.
        loaded.state.lib.tw_capture_fd(os.dup(1), 4 * config.limits.output_bytes)
    else:
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = sys.stdout
    if config.cpu >= 0:
        # Wait on the engine's CPU: waking a process there is quick, waking an idle CPU is not.
        os.sched_setaffinity(0, {config.cpu})
    if bpf is not None and not FilterLoader(bpf)():
        conn.text(b"E", "the system-call filter could not be loaded")
        os._exit(6)
    problem = ""
    if isinstance(loaded, ModuleFunctionSet):
        try:
            loaded.reset(None)  # the student's module code runs here, confined
        except Exception as e:  # noqa: BLE001 - report, don't crash silently
            problem = str(e)
    request = conn.frame()
    if request is None or request[0] != b"M":
        os._exit(0)
    if problem:
        conn.text(b"E", problem)
        os._exit(3)
    conn.reply(b"P", os.getpid())
    if isinstance(loaded, CFunctionSet):
        cpu_usec = int(config.limits.decision_timeout * 1e6)
        loaded.state.lib.tw_serve(rfd, wfd, k, cpu_usec)  # the match, served in C; it ends the process
        os._exit(0)
    _serve_python(conn, loaded, config.limits.decision_timeout)


_WHERE = {b"B": "bet", b"F": "first_action", b"C": "continue_action", b"S": "show"}


def _answer(fs: ModuleFunctionSet, op: bytes, a: int, body: bytes) -> tuple[int, str]:
    """(value, problem) for one request; ``problem`` in the words the engine uses in process."""
    where = _WHERE.get(op, "request")
    try:
        if op == b"B":
            r = fs.bet(a)
            if r.__class__ is not int:
                return 0, f"bet returned {r!r}, not an int"
            return max(min(r, 2**31 - 1), -(2**31)), ""
        if op == b"F" or op == b"C":
            if op == b"F":
                c = fs.first_action(body.decode("latin-1"), a)
            else:
                c = fs.continue_action(wire.read_py_players(body))
            if c.__class__ is not str or len(c) != 1:
                return 0, f"{where} returned {c!r}, not one character"
            return ord(c), ""
        if op == b"S":
            fs.show(*wire.read_py_show(body))
            return 0, ""
        return 0, "unknown request"
    except Exception as e:  # noqa: BLE001 - a strategy's exception is reported as a fault
        return 0, f"{where} raised {type(e).__name__}: {e}"


def _serve_python(conn: _Conn, fs: ModuleFunctionSet, cpu_limit: float) -> NoReturn:
    """A Python strategy's match: each call answered before the next request is read, each limited to
    ``cpu_limit`` seconds of this process's CPU time (a profiling timer: SIGPROF ends the child).

    A fault is reported in the words the engine uses for the same fault in process, and ends the child.
    """
    while True:
        request = conn.frame()
        if request is None or request[0] == b"Q":
            break
        op, _, a, _, _, body = request
        signal.setitimer(signal.ITIMER_PROF, cpu_limit)
        value, problem = _answer(fs, op, a, body)
        if problem:
            conn.text(b"E", problem)
            sys.stdout.flush()
            os._exit(4)
        conn.reply(b"R", value)
    fs.close()
    sys.stdout.flush()
    os._exit(0)


# -- the zygote ------------------------------------------------------------------------------------
def _report_exits(ctl: socket.socket, wake_r: int) -> bool:
    """Tell the engine the wait status of every child that exited; False once the engine is gone."""
    try:
        os.read(wake_r, 4096)
    except BlockingIOError:
        pass
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return True
        try:
            ctl.sendall(wire.CONTROL.pack(b"X", pid, status))
        except OSError:
            return False


def _fork_spare(ctl: socket.socket, fds: list[int], loaded: Loaded, k: int, config: WorkerConfig,
                bpf: bytes | None, how: Confinement) -> bool:
    """Fork a spare child on the engine's pipes and capture file; tell the engine its pid.

    False once the engine is gone.
    """
    zygote = os.getpid()
    try:
        pid = os.fork()
    except OSError as e:
        text = f"cannot start the worker: {e}".encode()
        try:
            os.write(fds[1], wire.REPLY.pack(b"E", len(text)) + text)
        except OSError:
            pass
        pid = -1
    if pid == 0:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _spare(fds, loaded, k, config, bpf, how, zygote)
        finally:
            os._exit(5)
    for fd in fds:
        os.close(fd)
    if pid > 0:
        try:
            ctl.sendall(wire.CONTROL.pack(b"S", pid, 0))
        except OSError:
            return False
    return True


def _serve_zygote(ctl: socket.socket, loaded: Loaded, k: int, config: WorkerConfig, bpf: bytes | None,
                  how: Confinement) -> int:
    """Fork a spare child whenever the engine sends its descriptors, and report children's exits."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_w)
    while True:
        ready = select.select([ctl.fileno(), wake_r], [], [])[0]
        if wake_r in ready and not _report_exits(ctl, wake_r):
            return 0
        if ctl.fileno() not in ready:
            continue
        try:
            msg, fds, _, _ = socket.recv_fds(ctl, 1, 4)
        except OSError:
            return 0
        if not msg:
            return 0  # the engine has gone
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        if not _fork_spare(ctl, fds, loaded, k, config, bpf, how):
            return 0


def main(argv: list[str] | None = None) -> int:
    """The zygote: confine itself, load the strategy, say ready, then fork a child for every match."""
    args = argv if argv is not None else sys.argv[1:]
    fd, kind, target, k = int(args[0]), args[1], Path(args[2]), int(args[3])
    config = WorkerConfig.from_json(args[4])
    if config.engine_pid:
        die_with_parent(config.engine_pid)
    ctl = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the engine's to handle; children inherit this
    if config.zygote_cpus:
        try:
            os.sched_setaffinity(0, set(config.zygote_cpus))
        except OSError:
            pass
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    child_bpf = build_filter()
    try:
        # A .py is read now, while the file is certainly readable, and parsed once confined.
        source = _read_capped(target, config.limits.memory_bytes // 8) if kind == "py" else None
        how, target = _confine_zygote(config, kind, target)
        loaded = _load(kind, target, k, source)
    except BaseException as e:  # noqa: BLE001 - reported to the engine as one message (MemoryError too)
        text = (str(e) or type(e).__name__).encode("utf-8", "replace")[:wire.MAX_TEXT]
        ctl.sendall(wire.CONTROL.pack(b"E", len(text), 0) + text)
        return 1
    gc.collect()
    gc.freeze()  # children share the zygote's objects; the collector need not touch (copy) them
    ctl.sendall(wire.CONTROL.pack(b"R", int(how), 0))
    return _serve_zygote(ctl, loaded, k, config, child_bpf, how)


if __name__ == "__main__":
    sys.exit(main())
