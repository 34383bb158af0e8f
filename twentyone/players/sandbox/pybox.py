"""The box of a Python submission: one match, in a process the engine starts for it (``box.python_argv``).

It is the Python twin of ``c_src/box/tw_box.c``: started with ``python -I`` and an empty environment, it
loads the modules a strategy may import (``PRELOAD``), reads its configuration and the submission's source
from the request pipe, confines itself with the same C code as a compiled submission's box
(``twentyone.core.confine``), says which layers hold (``H``), and only then compiles and runs the file.  It
serves the match's requests (``wire``'s frames), each call limited to its CPU time by a profiling timer, and
ends with the match.  It never imports the engine-side client.
"""

from __future__ import annotations

import builtins
import faulthandler
import importlib
import importlib.abc
import os
import signal
import struct
import sys
import traceback  # noqa: F401 - loaded before confinement: errors.own_lines uses it
from pathlib import Path
from typing import Any, NoReturn

import twentyone.safetext  # noqa: F401 - the same: legality's fault words use it

from twentyone.legality import is_action, is_bet, not_a_bet, not_an_action, raised

__all__ = ["main", "PRELOAD"]

#: Modules a sandboxed Python strategy may import: loaded before confinement, when files can still be read.
PRELOAD = ("math", "random", "collections", "itertools", "functools", "statistics", "fractions", "decimal",
           "typing", "dataclasses", "enum", "gc", "time", "re", "json", "copy", "heapq", "bisect", "string",
           "encodings.utf_8_sig", "encodings.gbk", "encodings.latin_1", "twentyone", "twentyone.cards",
           "twentyone.records", "twentyone.strategy")

_REQUESTS, _REPLIES = 3, 4
#: The CPU time loading the file may take, unless a decision's is longer (tw_box.c's TW_LOAD_USEC).
LOAD_SECONDS = 1.0
_REPLY = struct.Struct("=c3xi")
_MAX_TEXT = 4096


def _read(n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = os.read(_REQUESTS, n - len(data))
        if not chunk:
            os._exit(91)
        data += chunk
    return data


def _frame(tag: bytes, value: int, text: bytes = b"") -> None:
    os.write(_REPLIES, _REPLY.pack(tag, value) + text)


def _text(tag: bytes, text: str) -> None:
    data = text.encode("utf-8", "backslashreplace")[:_MAX_TEXT]
    _frame(tag, len(data), data)


def _preload() -> None:
    """Load every module a strategy may import, and the box's own, while files can still be read."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    import twentyone.core  # noqa: F401 - the confinement
    import twentyone.players.files.python  # noqa: F401 - the file's function sets
    import twentyone.players.sandbox.wire  # noqa: F401 - the frames


def main() -> NoReturn:
    """Preload, read the configuration, confine, load the file, serve the match, end."""
    _preload()
    _box()


def zygote() -> NoReturn:
    """The engine's fork server for Python boxes (SANDBOX.md, "A fork server for boxes").

    Started by the engine like a box (an empty environment, its own descriptors; 3 is its control socket), it
    loads what every box loads, once, and then only forks: for each request (five descriptors, the new box's 0 to
    4) it forks a child that forks the box and leaves, so that the box, orphaned, becomes a child of the engine
    (a subreaper), which learns its end from the kernel like any box's; it tells the engine the box's pid.  It
    never reads a configuration, a file or anything of a student's: each box reads its own from its own pipe.
    It dies with the engine."""
    import select
    import socket

    # Not PR_SET_PDEATHSIG: it fires when the *thread* that started the zygote ends (a grade loads its hand-ins
    # in a pool of threads), not the engine. The zygote ends when its socket does (every copy of the engine's end
    # closed), or, checked every second, when the engine is no longer its parent (killed with -9 while a forked
    # copy of it still holds the socket).
    engine = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 0
    if engine and os.getppid() != engine:
        os._exit(0)
    ctrl = socket.socket(fileno=os.dup(3))
    os.close(3)
    _preload()
    while True:
        try:
            while not select.select([ctrl], [], [], 1.0)[0]:
                if engine and os.getppid() != engine:
                    os._exit(0)
            msg, fds, _, _ = socket.recv_fds(ctrl, 16, 5)
        except OSError:
            os._exit(0)
        if not msg:
            os._exit(0)
        if len(fds) != 5:
            for fd in fds:
                os.close(fd)
            ctrl.send(struct.pack("=i", -1))
            continue
        r, w = os.pipe()
        middle = os.fork()
        if middle == 0:
            box = os.fork()
            if box:
                os.write(w, struct.pack("=i", box))
                os._exit(0)
            ctrl.close()
            os.close(r)
            os.close(w)
            high = [os.dup(fd) for fd in fds]  # out of the way of 0 to 4
            for fd in fds:
                os.close(fd)
            for target, fd in enumerate(high):
                os.dup2(fd, target)
                os.close(fd)
            _box()
        os.close(w)
        os.waitpid(middle, 0)  # the box is now the engine's (orphaned: its subreaper took it)
        got = os.read(r, 4)
        os.close(r)
        for fd in fds:
            os.close(fd)
        ctrl.send(got if len(got) == 4 else struct.pack("=i", -1))


def _box() -> NoReturn:
    """Read the configuration, confine, load the file, serve the match, end."""
    from twentyone import core
    from twentyone.players.files.python import ModuleFunctionSet
    from twentyone.players.sandbox import wire

    config = wire.CONFIG
    head = _read(config.size)
    fields = config.unpack(head)
    root_len, bpf_len, extra_len = fields[-4], fields[-3], fields[-2]
    if root_len > 4096 or bpf_len > 65536 or extra_len > 8 << 20:
        _text(b"E", "bad configuration")
        os._exit(90)
    root = _read(root_len)
    bpf = _read(bpf_len)
    extra = _read(extra_len)
    file_name, _, source = extra.partition(b"\0")
    k = fields[7]
    decision = fields[10] / 1e6
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A call past its CPU limit (SIGPROF) or a crash: faulthandler writes where the strategy was on the reply pipe
    # (in the signal handler, so a loop inside one of Python's own functions is located too), then the process
    # dies of the signal; the engine learns the signal from the kernel and reads the lines only to name one.
    faulthandler.enable(file=_REPLIES, all_threads=False)
    faulthandler.register(signal.SIGPROF, file=_REPLIES, all_threads=False, chain=True)
    faulthandler.register(signal.SIGSYS, file=_REPLIES, all_threads=False, chain=True)
    out = open(1, "w", buffering=1, closefd=False, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    sys.stdout = sys.stderr = out
    sys.stdin = None
    layers, why = core.confine(head, root, bpf)
    if layers < 0:
        _text(b"E", why)
        os._exit(90)
    _frame(b"H", layers)
    _explain_refusals()
    sys.addaudithook(_forbidden)
    # The name the engine gave (wire.PY_FILE), never a folder: the file's __file__ and co_filename tell it nothing
    # of the grader's disk (SANDBOX.md, "A Python box's file name").
    path = Path(os.path.basename(os.fsdecode(file_name)) or "mycodes.py")
    signal.setitimer(signal.ITIMER_PROF, max(LOAD_SECONDS, decision))
    try:
        fs = ModuleFunctionSet(path, k, warn=lambda m: print(m, file=sys.stderr), execute=True, source=source)
    except BaseException as e:  # noqa: BLE001 - the file's own error, reported as its fault (MemoryError too)
        _text(b"E", str(e) or type(e).__name__)
        out.flush()
        os._exit(3)
    _frame(b"P", 0)
    _serve({k: fs}, decision, wire)


#: Python's ways to a forbidden call (audit events) that may run with every signal blocked (``os.system`` and
#: ``posix_spawn`` block them around their clone, so the filter's SIGSYS could not run the handler that says
#: where): stopped here first, as the filter would have stopped them, with the Python line.
_FORBIDDEN_EVENTS = frozenset(("os.system", "os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.spawn",
                               "subprocess.Popen", "socket.__new__", "os.startfile"))


def _forbidden(event: str, args: tuple[object, ...]) -> None:
    """An audit hook: a forbidden call's event ends the box as the filter would (SIGSYS), after faulthandler has
    written where it was made.  Only a report: the filter stops the call whether or not this runs."""
    if event in _FORBIDDEN_EVENTS:
        faulthandler.dump_traceback(file=_REPLIES, all_threads=False)
        signal.signal(signal.SIGSYS, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGSYS])
        os.kill(os.getpid(), signal.SIGSYS)
        os._exit(95)  # not reached


def _explain_refusals() -> None:
    """Once confined, a module that was not preloaded, or a file, cannot be opened: say so in the error a
    strategy meets (it said "No module named 'numpy'" with numpy installed, or a bare permission error)."""
    allowed = ", ".join(n for n in PRELOAD if "." not in n and n != "twentyone")

    class Refused(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: object = None, target: object = None) -> None:
            raise ModuleNotFoundError(f"No module named {name!r} in the sandbox, which lets a strategy import only "
                                      f"these: {allowed}", name=name)

    sys.meta_path.append(Refused())
    real_open = builtins.open

    def sandboxed_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return real_open(file, *args, **kwargs)
        except OSError as e:
            raise type(e)(e.errno, f"{e.strerror}: a sandboxed strategy can open no file", e.filename) from None

    builtins.open = sandboxed_open


_WHERE = {b"B": "bet", b"F": "first_action", b"C": "continue_action", b"S": "show"}


def _answer(fs: object, op: bytes, a: int, body: bytes, wire: object) -> tuple[int, str]:
    """(value, problem) for one request; ``problem`` in the words the engine uses in process."""
    where = _WHERE.get(op, "request")
    try:
        if op == b"B":
            r = fs.bet(a)  # type: ignore[attr-defined]
            if not is_bet(r):
                return 0, not_a_bet(r)
            return r, ""
        if op == b"F" or op == b"C":
            if op == b"F":
                c = fs.first_action(body.decode("latin-1"), a)  # type: ignore[attr-defined]
            else:
                c = fs.continue_action(wire.read_py_players(body))  # type: ignore[attr-defined]
            if not is_action(c):
                return 0, not_an_action(where, c)
            return ord(c), ""
        if op == b"S":
            fs.show(*wire.read_py_show(body))  # type: ignore[attr-defined]
            return 0, ""
        return 0, "unknown request"
    except Exception as e:  # noqa: BLE001 - a strategy's exception is reported as a fault
        return 0, raised(where, e)



def _serve(sets: dict[int, Any], cpu_limit: float, wire: object) -> NoReturn:
    """The match: each call answered before the next request is read, each limited to ``cpu_limit`` seconds
    of this process's CPU time (SIGPROF ends it).  A fault is reported in the engine's words and ends it.  A
    request names its function set: every set of the file is served from the one module it was loaded into, so
    they share its globals, as the course program's sets share its statics."""
    size = 16
    buf = b""
    request = struct.Struct("=cBBxiii")
    first = next(iter(sets.values()))
    while True:
        while len(buf) < size:
            chunk = os.read(_REQUESTS, 65536)
            if not chunk:
                sys.stdout.flush()
                os._exit(0)
            buf += chunk
        op, n, k, a, _, _ = request.unpack_from(buf)
        if op == b"Q":
            break
        fs = sets.get(k) if k else first
        if fs is None:
            if not 1 <= k <= 5:
                os._exit(7)
            try:
                fs = sets[k] = first.sibling(k)
            except BaseException as e:  # noqa: BLE001 - a set the file lacks: its own error
                _text(b"E", str(e) or type(e).__name__)
                os._exit(3)
        need = size + wire.body_size(op, n, a)  # type: ignore[attr-defined]
        while len(buf) < need:
            chunk = os.read(_REQUESTS, 65536)
            if not chunk:
                os._exit(0)
            buf += chunk
        body, buf = buf[size:need], buf[need:]
        if cpu_limit > 0:
            signal.setitimer(signal.ITIMER_PROF, cpu_limit)
        value, problem = _answer(fs, op, a, body, wire)
        if problem:
            _text(b"E", problem)
            sys.stdout.flush()
            os._exit(4)
        _frame(b"R", value)
    sys.stdout.flush()
    os._exit(0)
