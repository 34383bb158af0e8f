"""The sandbox's worker process: ``python -m twentyone.players.sandbox.worker FD KIND TARGET K CONFIG``.

The process started by the engine is a **zygote**: a fresh Python process (started with exec, never
forked from the engine, so it never holds a shoe) that loads the strategy once.  For every match the
engine asks it (over the control socket FD) to fork a **child** on two new pipes; the child sets up,
before it runs any student code:

- resource limits: CPU seconds, address space, file size, open files, no core dumps, no processes;
- SIGXFSZ and SIGPIPE back to their default actions;
- stdout and stderr sent to the match's capture file, capped by the file-size limit (a flood is a fault);
- the system-call filter (``seccomp``), loaded last.

A C strategy's child then serves the match in C (``tw_serve``); a Python strategy's child runs the
student's module and serves it here.  The frames are ``wire``'s.  This module never imports the
engine-side client.
"""

from __future__ import annotations

import gc
import importlib
import os
import resource
import select
import signal
import socket
import sys
from pathlib import Path
from typing import NoReturn

from twentyone.players.cplayer import CFunctionSet, load_student
from twentyone.players.pyplayer import ModuleFunctionSet
from twentyone.players.sandbox import wire
from twentyone.players.sandbox.limits import Limits, WorkerConfig
from twentyone.players.sandbox.seccomp import FilterLoader, build_filter

__all__ = ["main", "PRELOAD"]

#: Modules a sandboxed Python strategy may import (loaded before the filter forbids opening files).
PRELOAD = ("math", "random", "collections", "itertools", "functools", "statistics", "fractions", "decimal",
           "typing", "dataclasses", "enum", "gc", "time", "re", "json", "copy", "heapq", "bisect", "string",
           "twentyone", "twentyone.cards", "twentyone.records", "twentyone.strategy", "twentyone.table",
           "twentyone.match")


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


def _load(kind: str, target: str, k: int) -> Loaded:
    """Load the strategy in the zygote without running any of its code (a C file's constructors aside)."""
    if kind == "c":
        return CFunctionSet(load_student(Path(target)), k, Path(target).stem)
    return ModuleFunctionSet(Path(target), k, warn=lambda m: print(m, file=sys.stderr), execute=False)


# -- the child -------------------------------------------------------------------------------------
def _confine(rfd: int, wfd: int, limits: Limits) -> None:
    """Keep only the match's pipes, restore the default signal actions and set the resource limits."""
    lo, hi = sorted((rfd, wfd))
    os.closerange(3, lo)  # the zygote's control socket and wake-up pipe
    os.closerange(lo + 1, hi)
    os.closerange(hi + 1, 1 << 12)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cap = limits.output_bytes
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))


def _capture(path: str, loaded: Loaded, limits: Limits) -> None:
    """Send stdout and stderr (and a C module's own capture) to the match's capture file."""
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    if isinstance(loaded, CFunctionSet):
        # C output goes through the module's capture; its own cap sits above the file-size limit,
        # so a flood hits RLIMIT_FSIZE and the child dies of SIGXFSZ: a fault, not a silent cut.
        loaded.state.lib.tw_capture_open(b"/dev/stdout", 4 * limits.output_bytes)
    else:
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = sys.stdout


def _spare(rfd: int, wfd: int, loaded: Loaded, k: int, config: WorkerConfig, bpf: bytes | None) -> NoReturn:
    """A child forked ahead of its match: it sets up what it can, waits for the match, then serves it."""
    os.write(wfd, wire.REPLY.pack(b"H", os.getpid()))
    conn = _Conn(rfd, wfd)
    if isinstance(loaded, CFunctionSet):
        loaded.state.reset_statics()
    _confine(rfd, wfd, config.limits)
    load_filter = FilterLoader(bpf) if bpf is not None else None
    if config.cpu >= 0:
        # Wait on the engine's CPU: waking a process there is quick, waking an idle CPU is not.
        os.sched_setaffinity(0, {config.cpu})
    request = conn.frame()
    if request is None or request[0] != b"M":
        os._exit(0)
    _capture(request[5].decode("utf-8"), loaded, config.limits)
    if load_filter is not None and not load_filter():
        conn.text(b"E", "the system-call filter could not be loaded")
        os._exit(6)
    if isinstance(loaded, CFunctionSet):
        conn.reply(b"P", os.getpid())
        loaded.state.lib.tw_serve(rfd, wfd, k)  # the match, served in C; it ends the process
        os._exit(0)
    try:
        loaded.reset(None)  # the student's module code runs here, under the limits and the filter
    except Exception as e:  # noqa: BLE001 - report, don't crash silently
        conn.text(b"E", str(e))
        os._exit(3)
    conn.reply(b"P", os.getpid())
    _serve_python(conn, loaded)


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


def _serve_python(conn: _Conn, fs: ModuleFunctionSet) -> NoReturn:
    """A Python strategy's match: each call answered before the next request is read.

    A fault is reported in the words the engine uses for the same fault in process, and ends the child.
    """
    while True:
        request = conn.frame()
        if request is None or request[0] == b"Q":
            break
        op, _, a, _, _, body = request
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


def _fork_spare(ctl: socket.socket, rfd: int, wfd: int, loaded: Loaded, k: int, config: WorkerConfig,
                bpf: bytes | None) -> bool:
    """Fork a spare child on the pipes ``rfd``/``wfd`` and tell the engine its pid; False once it is gone."""
    try:
        pid = os.fork()
    except OSError as e:
        text = f"cannot start the worker: {e}".encode()
        try:
            os.write(wfd, wire.REPLY.pack(b"E", len(text)) + text)
        except OSError:
            pass
        pid = -1
    if pid == 0:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _spare(rfd, wfd, loaded, k, config, bpf)
        finally:
            os._exit(5)
    os.close(rfd)
    os.close(wfd)
    if pid > 0:
        try:
            ctl.sendall(wire.CONTROL.pack(b"S", pid, 0))
        except OSError:
            return False
    return True


def _serve_zygote(ctl: socket.socket, loaded: Loaded, k: int, config: WorkerConfig, bpf: bytes | None) -> int:
    """Fork a spare child whenever the engine sends a pair of pipes, and report children's exits."""
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
            return 0
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            continue
        if not _fork_spare(ctl, fds[0], fds[1], loaded, k, config, bpf):
            return 0


def main(argv: list[str] | None = None) -> int:
    """The zygote: load the strategy, say ready, then fork a child for every match."""
    args = argv if argv is not None else sys.argv[1:]
    fd, kind, target, k = int(args[0]), args[1], args[2], int(args[3])
    config = WorkerConfig.from_json(args[4])
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
    try:
        loaded = _load(kind, target, k)
    except Exception as e:  # noqa: BLE001 - reported to the engine as one message
        text = str(e).encode("utf-8", "replace")[:wire.MAX_TEXT]
        ctl.sendall(wire.CONTROL.pack(b"E", len(text), 0) + text)
        return 1
    bpf = build_filter()
    gc.collect()
    gc.freeze()  # children share the zygote's objects; the collector need not touch (copy) them
    ctl.sendall(wire.CONTROL.pack(b"R", 1 if bpf is not None else 0, 0))
    return _serve_zygote(ctl, loaded, k, config, bpf)


if __name__ == "__main__":
    sys.exit(main())
