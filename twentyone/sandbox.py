"""Run an untrusted strategy in a worker process: a crash, hang, flood or cheat costs only that player.

The engine process keeps the shoe.  For each student strategy it starts a **zygote**: a fresh Python
process (started with exec, never forked from the engine, so it never holds a shoe) that loads the
strategy once.  For every match the zygote forks a **child**, which gets fresh static state and, before
it runs any student code:

- resource limits: CPU seconds, address space, file size, open files, no core dumps, no processes;
- SIGXFSZ and SIGPIPE back to their default actions;
- stdout and stderr sent to a per-match file capped by the file-size limit (a flood is a fault);
- a seccomp allow-list (through libseccomp, when present) that kills the child on any other system
  call: opening files, sockets, fork/exec, ptrace, process_vm_readv, kill.  Without libseccomp the
  child runs with the resource limits only, and the engine says so once.

Each child has two pipes of its own with the engine.  The zygote forks the next match's child (a
*spare*) while the current match plays, on another CPU when there is one; the spare sets up what it
can and waits on the engine's CPU, and a finished child exits on another CPU, so starting a match
costs well under a millisecond of the engine's time.  Requests and replies are small binary frames
(see ``c_src/tw_serve.c``): a C strategy's child serves them in C, calling the student's functions on
fresh zero-filled struct copies; a Python strategy's child serves them in Python.  ``show`` and the
next round's ``bet`` travel together when the engine knows that bet will be asked for (see
``Strategy.show_before_bet``); the child answers each call before it starts the next, so a crash or a
hang is still charged to the call that caused it, and the round log is the one play in process
writes.  Every reply has a wall-clock limit per decision and per match.  Any failure becomes a
``StrategyFault`` with its cause (crash, timeout, forbidden system call, output flood, CPU limit,
malformed reply), which the table turns into a foul and takes the player out of that match.  A
strategy only ever receives the copies the course interface describes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import marshal
import os
import resource
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twentyone.errors import PlayerSpecError
from twentyone.records import Banker, Player
from twentyone.table import Foul, StrategyFault

__all__ = ["Limits", "SandboxFunctionSet", "seccomp_available", "main"]


@dataclass(frozen=True)
class Limits:
    """The limits a sandboxed strategy runs under."""

    decision_timeout: float = 1.0
    match_timeout: float = 60.0
    cpu_seconds: int = 60
    memory_bytes: int = 1 << 30
    output_bytes: int = 1 << 20
    open_files: int = 32
    #: Run the engine and the strategy's child on one CPU: a request then costs one context switch
    #: (about 10 us here) instead of a cross-CPU wake-up (about 50 us on this VM).  Zygotes, spare
    #: children and finished children use the other CPUs.
    pin_cpu: bool = True


_PINNED: int | None = None
_AWAY: set[int] = set()


def engine_cpu() -> int:
    """Pin this (engine) process to one CPU, once, and return it; children follow it there.

    The engine also switches to SCHED_BATCH, which keeps a child's reply from preempting the child:
    a child that answers ``show`` and goes on to the next ``bet`` then finishes both before the
    engine runs again, one round trip instead of two.
    """
    global _PINNED, _AWAY
    if _PINNED is None:
        cpus = sorted(os.sched_getaffinity(0))
        cpu = int(os.environ.get("TWENTYONE_CPU", cpus[os.getpid() % len(cpus)]))
        if cpu not in cpus:
            cpu = cpus[0]
        os.sched_setaffinity(0, {cpu})
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        except (AttributeError, OSError):
            pass
        _PINNED = cpu
        _AWAY = {c for c in cpus if c != cpu}
    return _PINNED


def away_cpus() -> set[int]:
    """The CPUs other than the engine's (empty on one CPU, or before ``engine_cpu``)."""
    return set(_AWAY)


#: Modules a sandboxed Python strategy may import (loaded before the filter forbids opening files).
PRELOAD = ("math", "random", "collections", "itertools", "functools", "statistics", "fractions", "decimal",
           "typing", "dataclasses", "enum", "gc", "time", "re", "json", "copy", "heapq", "bisect", "string",
           "twentyone", "twentyone.cards", "twentyone.records", "twentyone.strategy", "mycodes",
           "mycodes.builtin", "mycodes.charts", "mycodes.mycodes")

_ALLOWED = ("read", "write", "readv", "writev", "close", "fstat", "newfstatat", "lseek", "mmap", "munmap",
            "mremap", "mprotect", "madvise", "brk", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
            "sigaltstack", "futex", "clock_gettime", "clock_getres", "gettimeofday", "nanosleep",
            "clock_nanosleep", "getpid", "gettid", "exit", "exit_group", "getrandom", "poll", "ppoll",
            "select", "pselect6", "sched_yield", "getrusage", "times", "restart_syscall", "fcntl",
            "ioctl", "sysinfo", "prlimit64", "getuid", "geteuid")

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_ACT_KILL_PROCESS = 0x80000000
_SCMP_CMP_EQ = 4


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _libseccomp() -> Any:
    if os.environ.get("TWENTYONE_NO_SECCOMP"):
        return None  # for testing the fallback, and for machines where the filter must be off
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def seccomp_available() -> bool:
    """True when libseccomp can be loaded, so children run under the system-call allow-list."""
    return _libseccomp() is not None


_PID_PLACEHOLDER = 0x7EADBEEF


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def build_filter() -> bytes | None:
    """The allow-list as a classic BPF program (built once, in the zygote), or None without libseccomp.

    The tgkill rule compares with a placeholder pid that each child replaces with its own.
    """
    lib = _libseccomp()
    if lib is None:
        return None
    ctx = _filter_context(lib, _PID_PLACEHOLDER)
    if not ctx:
        return None
    r, w = os.pipe()
    try:
        lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
        if lib.seccomp_export_bpf(ctx, w) != 0:
            return None
        os.close(w)
        w = -1
        chunks = []
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


class _FilterLoader:
    """``bpf`` (from ``build_filter``) prepared for this process, its pid patched in; call it to load it.

    A spare child prepares it while it waits, so loading it when its match starts is two prctl calls.
    """

    def __init__(self, bpf: bytes) -> None:
        prog = bytearray(bpf)
        pid = os.getpid()
        for i in range(0, len(prog), 8):  # struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
            if struct.unpack_from("=I", prog, i + 4)[0] == _PID_PLACEHOLDER:
                struct.pack_into("=I", prog, i + 4, pid)
        self._prog = prog
        self._buf = (ctypes.c_char * len(prog)).from_buffer(prog)
        self._fprog = _SockFprog(len(prog) // 8, ctypes.addressof(self._buf))
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def __call__(self) -> bool:
        PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
        if self._prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return bool(self._prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(self._fprog), 0, 0) == 0)


def load_filter(bpf: bytes) -> bool:
    """Load ``bpf`` (from ``build_filter``) into this process, with this process's pid patched in."""
    return _FilterLoader(bpf)()


def _filter_context(lib: Any, pid: int) -> Any:
    """A libseccomp context holding the allow-list, tgkill allowed only towards ``pid``."""
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    ctx = lib.seccomp_init(_SCMP_ACT_KILL_PROCESS)
    if not ctx:
        return None
    for name in _ALLOWED:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr >= 0:
            lib.seccomp_rule_add_array(ctx, _SCMP_ACT_ALLOW, nr, 0, None)
    nr = lib.seccomp_syscall_resolve_name(b"tgkill")
    cmp = (_ArgCmp * 1)(_ArgCmp(0, _SCMP_CMP_EQ, pid, 0))
    lib.seccomp_rule_add_array(ctx, _SCMP_ACT_ALLOW, nr, 1, cmp)
    return ctx


# -- wire format -------------------------------------------------------------------------------
# Engine -> child: a 16-byte header {op, n, a, b, c} and a body (c_src/tw_serve.c lists them).
#   'M' start the match: body = the capture file's path (a bytes)      'Q' the match is over
#   'B' bet(a)   'F' first_action(body = n bytes of tmpcards, a)
#   'C' continue_action, 'S' show(banker, players, a = pNum, b = N, c = pos): for a C strategy the body
#       is the C structs (n players); for a Python one it is marshal data (a bytes).
# Child -> engine: 8-byte frames {tag, value}: 'H' pid (first, written before any student code runs),
#   'P' ready for the match, 'R' a call's value, 'E' a fault's text (value bytes follow).
# Zygote -> engine (control socket): 12-byte frames {tag, a, b}: 'R' ready (a = 1 with the seccomp
#   filter), 'E' could not load (a bytes of text follow), 'S' child a forked, 'X' child a exited with
#   wait status b.
# Engine -> zygote: one byte 'F' carrying two descriptors (SCM_RIGHTS), the read end of a request pipe
#   and the write end of a reply pipe: fork a spare child on them.
_HDR = struct.Struct("=cB2xiii")
_REPLY = struct.Struct("=c3xi")
_CTL = struct.Struct("=c3xii")
_PLAYER = struct.Struct("=20si20sic3xiii")  # the C Player struct, 64 bytes
_BANKER = struct.Struct("=20sic3xi")  # the C Banker struct, 32 bytes
_MAX_TEXT = 1 << 16
_QUIT = _HDR.pack(b"Q", 0, 0, 0, 0)
_NAMES: dict[str, bytes] = {}


def _c_player(p: Player) -> bytes:
    """``p`` as the C struct, as ``cplayer.CFunctionSet`` fills it in process."""
    name = _NAMES.get(p.name)
    if name is None:
        name = p.name.encode("utf-8")[:19]
        if len(_NAMES) < 4096:
            _NAMES[p.name] = name
    return _PLAYER.pack(name, p.account, p.mycards.encode("latin-1")[:19], p.count,
                        p.state.encode("latin-1")[:1] or b"\0", p.mybets, p.points, p.rounds)


def _py_player(p: Player) -> tuple[Any, ...]:
    return (p.name, p.account, p.mycards, p.count, p.state, p.mybets, p.points, p.rounds)


_SIGNAL_CAUSE: dict[int, tuple[str, str]] = {
    signal.SIGSEGV: (Foul.CRASH, "segmentation fault"),
    signal.SIGBUS: (Foul.CRASH, "bus error"),
    signal.SIGFPE: (Foul.CRASH, "arithmetic error"),
    signal.SIGILL: (Foul.CRASH, "illegal instruction"),
    signal.SIGABRT: (Foul.CRASH, "abort"),
    signal.SIGSYS: (Foul.CRASH, "forbidden system call"),
    signal.SIGXCPU: (Foul.TIMEOUT, "cpu time limit"),
    signal.SIGXFSZ: (Foul.CRASH, "output flood (file size limit)"),
    signal.SIGKILL: (Foul.CRASH, "killed (memory or process limit)"),
    signal.SIGPIPE: (Foul.CRASH, "broken pipe"),
}


def describe_status(status: int) -> tuple[str, str]:
    """The fault cause and a readable detail for a child's wait status."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        cause, detail = _SIGNAL_CAUSE.get(sig, (Foul.CRASH, f"signal {sig}"))
        return cause, f"{detail} (signal {signal.Signals(sig).name})" if sig in _SIGNAL_CAUSE else detail
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return Foul.CRASH, f"exited with status {code}"


class SandboxFunctionSet:
    """A course function set K run in a zygote/child pair; implements ``twentyone.strategy.FunctionSet``."""

    _warned_no_seccomp = False

    def __init__(self, kind: str, target: Path, k: int, limits: Limits = Limits(),
                 capture_dir: Path | None = None, warn: Callable[[str], None] | None = None,
                 label: str | None = None) -> None:
        self.kind = kind
        self.target = target
        #: Names the output files: the student's file, not the compiled module.
        self.label = label or target.stem
        self.k = k
        self.limits = limits
        self.capture_dir = capture_dir
        self.warn = warn
        #: The current match's child (0 when there is none, or it has faulted).
        self.child_pid = 0
        self.match_no = 0
        self._c = kind == "c"
        self._decision = float(limits.decision_timeout)
        self._decision_ms = self._decision * 1000.0
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._ctl_buf = b""
        self._ctl_msgs: list[tuple[bytes, int, bytes]] = []
        self._exits: dict[int, int] = {}
        #: The current child's pipes: requests in (``_wfd``), replies out (``_rfd``, watched by ``_poll``).
        self._wfd = -1
        self._rfd = -1
        self._poll = select.poll()
        self._buf = b""
        self._pidfd = -1
        self._spare: tuple[int, int] | None = None
        self._deadline = 0.0
        self._setup_fault: StrategyFault | None = None
        #: The next round's bet, fetched together with ``show``: its value or its fault.
        self._ahead: int | StrategyFault | None = None
        self._owner = os.getpid()
        self._start_zygote()

    # -- the zygote ---------------------------------------------------------------------------
    def _start_zygote(self) -> None:
        ours, theirs = socket.socketpair()
        self._ctl = ours
        self._ctl_buf = b""
        self._ctl_msgs = []
        self._exits = {}
        ours.setblocking(False)
        limits: dict[str, Any] = dict(self.limits.__dict__)
        limits["cpu"] = engine_cpu() if self.limits.pin_cpu else -1
        limits["zygote_cpus"] = sorted(away_cpus()) if self.limits.pin_cpu else []
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "twentyone.sandbox", str(theirs.fileno()), self.kind, str(self.target),
             str(self.k), repr(limits)],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=dict(os.environ), close_fds=True)
        theirs.close()
        end = time.monotonic() + 30.0
        while not self._ctl_msgs and self._ctl_read(max(end - time.monotonic(), 0.0)):
            if time.monotonic() >= end:
                break
        tag, value, text = self._ctl_msgs.pop(0) if self._ctl_msgs else (b"", 0, b"")
        if tag != b"R":
            self.close()
            detail = text.decode("utf-8", "replace") if tag == b"E" else "the worker did not start"
            raise PlayerSpecError(f"{self.target}: {detail}")
        if not value and not SandboxFunctionSet._warned_no_seccomp:
            SandboxFunctionSet._warned_no_seccomp = True
            if self.warn is not None:
                self.warn("libseccomp not found: sandboxed strategies run with resource limits only")
        self._request_spare()

    def _ctl_read(self, timeout: float) -> bool:
        """Take in what the zygote sent, waiting up to ``timeout`` s for something; False once it is gone."""
        ctl = self._ctl
        if ctl is None:
            return False
        if timeout > 0 and not select.select([ctl], [], [], timeout)[0]:
            return True
        try:
            chunk = ctl.recv(65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not chunk:
            return False
        buf = self._ctl_buf + chunk
        while len(buf) >= _CTL.size:
            tag, a, b = _CTL.unpack_from(buf)
            n = a if tag == b"E" and 0 <= a <= _MAX_TEXT else 0
            if len(buf) < _CTL.size + n:
                break
            if tag == b"X":
                self._exits[a] = b
                if len(self._exits) > 1024:
                    del self._exits[next(iter(self._exits))]
            elif tag == b"S":
                self._exits.pop(a, None)  # a new child: any older status under its pid is stale
            else:
                self._ctl_msgs.append((tag, a, buf[_CTL.size:_CTL.size + n]))
            buf = buf[_CTL.size + n:]
        self._ctl_buf = buf
        return True

    def _status(self, pid: int, timeout: float) -> int | None:
        """The wait status of child ``pid`` once the zygote reports it, or None after ``timeout`` s."""
        end = time.monotonic() + timeout
        while pid not in self._exits:
            left = end - time.monotonic()
            if left <= 0 or not self._ctl_read(left):
                break
        return self._exits.pop(pid, None)

    def _request_spare(self) -> None:
        """Ask the zygote to fork the next match's child now, with two pipes of its own.

        Pipes, not a socket pair: a request and its reply cost about 2 us less each on this VM.  Only
        the child holds the write end of the reply pipe, so its death reads as end of file at once.
        """
        if self._ctl is None:
            return
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        try:
            socket.send_fds(self._ctl, [b"F"], [req_r, rep_w])
            self._spare = (req_w, rep_r)
        except OSError:
            os.close(req_w)
            os.close(rep_r)
        finally:
            os.close(req_r)
            os.close(rep_w)

    # -- the child ----------------------------------------------------------------------------

    def _frame(self, timeout: float) -> tuple[bytes, int, bytes] | None:
        """The child's next frame (tag, value, text), or None at EOF; TimeoutError after ``timeout`` s.

        A child that dribbles a frame byte by byte still gets ``timeout`` seconds in all.
        """
        end = 0.0
        while True:
            buf = self._buf
            if len(buf) >= 8:
                tag, value = _REPLY.unpack_from(buf)
                if tag != b"E":
                    self._buf = buf[8:]
                    return tag, value, b""
                if not 0 <= value <= _MAX_TEXT:
                    self._buf = b""
                    return b"?", value, b""
                if len(buf) >= 8 + value:
                    self._buf = buf[8 + value:]
                    return tag, value, buf[8:8 + value]
            if end == 0.0:
                end = time.monotonic() + timeout
                left = timeout
            else:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError
            if not self._poll.poll(left * 1000.0):
                raise TimeoutError
            try:
                chunk = os.read(self._rfd, 65536)
            except OSError:
                return None
            if not chunk:
                return None
            self._buf = buf + chunk

    def _gone(self) -> StrategyFault:
        """The child died: its wait status, as the zygote reports it, as a fault."""
        pid = self.child_pid
        self._forget_child()
        status = self._status(pid, 5.0) if pid else None
        if status is None:
            return StrategyFault(Foul.CRASH, "the worker process died")
        return StrategyFault(*describe_status(status))

    def _forget_child(self) -> None:
        self.child_pid = 0
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1

    def _kill_child(self) -> None:
        if self.child_pid:
            try:
                if self._pidfd >= 0:
                    signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
                else:
                    os.kill(self.child_pid, signal.SIGKILL)
            except OSError:
                pass
        self._forget_child()

    def _result(self) -> int:
        """The value the child replies to the request just sent; raises a StrategyFault when there is none."""
        if not self._buf:
            if not self._poll.poll(self._decision_ms):
                data = None
            else:
                try:
                    data = os.read(self._rfd, 65536)
                except OSError:
                    data = b""
            if data is not None and len(data) == 8 and data[0] == 82:  # one b"R" frame: the usual case
                value: int = _REPLY.unpack(data)[1]
                if time.monotonic() > self._deadline:
                    self._kill_child()
                    limit = self.limits.match_timeout
                    raise StrategyFault(Foul.TIMEOUT, f"the match took longer than its limit of {limit:g} s")
                return value
            if not data:
                if data is None:
                    self._kill_child()
                    raise StrategyFault(Foul.TIMEOUT,
                                        f"no answer within the decision limit of {self._decision:g} s")
                raise self._gone()
            self._buf = data
        try:
            frame = self._frame(self._decision)
        except TimeoutError:
            self._kill_child()
            raise StrategyFault(Foul.TIMEOUT,
                                f"no answer within the decision limit of {self._decision:g} s") from None
        if frame is None:
            raise self._gone()
        tag, value, text = frame
        if tag == b"R":
            if time.monotonic() > self._deadline:
                self._kill_child()
                limit = self.limits.match_timeout
                raise StrategyFault(Foul.TIMEOUT, f"the match took longer than its limit of {limit:g} s")
            return value
        if tag == b"E":
            self._forget_child()  # it leaves by itself after reporting
            raise StrategyFault(Foul.ERROR, text.decode("utf-8", "replace"))
        self._kill_child()
        raise StrategyFault(Foul.ERROR, f"malformed reply {_REPLY.pack(tag[:1] or b'?', value)!r}")

    def _call(self, request: bytes) -> int:
        if not self.child_pid:
            raise self._setup_fault or StrategyFault(Foul.CRASH, "the strategy's process is not running")
        try:
            os.write(self._wfd, request)
        except OSError:
            pass  # the child is gone; the read that follows reports why
        return self._result()

    def _retire(self) -> None:
        """End the current child's match without waiting: it leaves on another CPU, output flushed."""
        if self._wfd < 0:
            return
        if self.child_pid:
            away = away_cpus() if self.limits.pin_cpu else set()
            if away:
                try:
                    os.sched_setaffinity(self.child_pid, away)
                except OSError:
                    pass
            try:
                os.write(self._wfd, _QUIT)
            except OSError:
                pass
        self._forget_child()
        self._poll.unregister(self._rfd)
        os.close(self._wfd)
        os.close(self._rfd)
        self._wfd = self._rfd = -1
        self._buf = b""

    # -- the FunctionSet protocol ---------------------------------------------------------------
    def reset(self, match: object) -> None:
        """End the previous match's child and start the new ``match`` in the spare child."""
        self._ahead = None
        self._retire()
        if self._proc is None or self._proc.poll() is not None or self._ctl is None:
            self._restart_zygote()
        else:
            self._ctl_read(0.0)
        self.match_no += 1
        capture = os.devnull
        if self.capture_dir is not None:
            self.capture_dir.mkdir(parents=True, exist_ok=True)
            capture = str(self.capture_dir / f"{self.label}-set{self.k}-match{self.match_no}.out")
        if self._spare is None:
            self._request_spare()
        spare, self._spare = self._spare, None
        self._setup_fault = StrategyFault(Foul.CRASH, "the worker process did not start")
        if spare is None:
            return
        self._wfd, self._rfd = spare
        self._poll.register(self._rfd, select.POLLIN)
        self._buf = b""
        path = capture.encode("utf-8")
        try:
            os.write(self._wfd, _HDR.pack(b"M", 0, len(path), 0, 0) + path)
        except OSError:
            pass
        pid = 0
        end = time.monotonic() + 10.0
        fault: StrategyFault | None = None
        while True:
            try:
                frame = self._frame(max(end - time.monotonic(), 0.001))
            except TimeoutError:
                self.child_pid = pid
                self._kill_child()
                fault = StrategyFault(Foul.CRASH, "the worker process did not start in time")
                break
            if frame is not None and frame[0] == b"H" and not pid:
                pid = frame[1]  # written by the child before any student code could run
                try:
                    self._pidfd = os.pidfd_open(pid)
                except OSError:
                    self._pidfd = -1
                continue
            self.child_pid = pid
            if frame is not None and frame[0] == b"P" and pid:
                break
            if frame is None:
                fault = self._gone()
            elif frame[0] == b"E":
                self._forget_child()
                fault = StrategyFault(Foul.ERROR, frame[2].decode("utf-8", "replace"))
            else:
                self._kill_child()
                fault = StrategyFault(Foul.ERROR, "malformed reply at the start of the match")
            break
        self._deadline = time.monotonic() + self.limits.match_timeout
        self._setup_fault = fault
        self._request_spare()  # forked while this match plays

    def _restart_zygote(self) -> None:
        self._stop_zygote()
        self._start_zygote()

    def bet(self, N: int) -> int:
        ahead = self._ahead
        if ahead is not None:
            self._ahead = None
            if isinstance(ahead, StrategyFault):
                raise ahead
            return ahead
        return self._call(_HDR.pack(b"B", 0, N, 0, 0))

    def _action(self, value: int) -> str:
        if 0 <= value <= 0x10FFFF:
            return chr(value)
        self._kill_child()
        raise StrategyFault(Foul.ERROR, f"malformed reply {value!r}")

    def first_action(self, tmpcards: str, length: int) -> str:
        t = tmpcards.encode("latin-1")
        return self._action(self._call(_HDR.pack(b"F", len(t), length, 0, 0) + t))

    def _players(self, op: bytes, players: list[Player], pNum: int = 0, N: int = 0, pos: int = 0,
                 banker: Banker | None = None) -> bytes:
        if self._c:
            head = b"" if banker is None else _BANKER.pack(
                banker.mycards.encode("latin-1")[:19], banker.count,
                banker.state.encode("latin-1")[:1] or b"\0", banker.points)
            return _HDR.pack(op, len(players), pNum, N, pos) + head + b"".join([_c_player(p) for p in players])
        ps = [_py_player(p) for p in players]
        body = marshal.dumps(ps if banker is None else
                             ((banker.mycards, banker.count, banker.state, banker.points), ps, pNum, N, pos))
        return _HDR.pack(op, 0, len(body), 0, 0) + body

    def continue_action(self, players: list[Player]) -> str:
        return self._action(self._call(self._players(b"C", players)))

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        self._ahead = None
        self._call(self._players(b"S", players, pNum, N, pos, banker))

    def show_then_bet(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int,
                      bet_N: int) -> None:
        """``show``, and ``bet(bet_N)`` in the same round trip: the engine is sure to ask for that bet next.

        A fault in ``show`` is raised here; the bet's value, or its fault, is kept for ``bet``.
        """
        self._ahead = None
        self._call(self._players(b"S", players, pNum, N, pos, banker) + _HDR.pack(b"B", 0, bet_N, 0, 0))
        try:
            self._ahead = self._result()
        except StrategyFault as e:
            self._ahead = e

    def _stop_zygote(self) -> None:
        if self._spare is not None:
            for fd in self._spare:
                os.close(fd)
            self._spare = None
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        """Stop the child (its output complete) and the zygote."""
        self._ahead = None
        if os.getpid() != self._owner:
            # A forked copy of the engine (a process pool) must not end the original's processes.
            self.child_pid = 0
            self._proc = None
        pid = self.child_pid
        pidfd, self._pidfd = self._pidfd, -1
        self._retire()
        if pid and self._status(pid, 2.0) is None:
            try:
                if pidfd >= 0:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
        if pidfd >= 0:
            os.close(pidfd)
        self._stop_zygote()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass


# -- the worker side ---------------------------------------------------------------------------
class _Conn:
    """The child's ends of its pipes: request frames in (``rfd``), reply frames out (``wfd``)."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd = rfd
        self.wfd = wfd
        self.buf = b""

    def frame(self) -> tuple[bytes, int, int, int, int, bytes] | None:
        """The next request (op, n, a, b, c, body), or None when the engine has gone."""
        buf = self.buf
        while True:
            if len(buf) >= _HDR.size:
                op, n, a, b, c = _HDR.unpack_from(buf)
                size = n if op == b"F" else a if op in (b"C", b"S", b"M") else 0
                end = _HDR.size + size
                if len(buf) >= end:
                    self.buf = buf[end:]
                    return op, n, a, b, c, buf[_HDR.size:end]
            try:
                chunk = os.read(self.rfd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                return None
            buf += chunk

    def reply(self, tag: bytes, value: int) -> None:
        os.write(self.wfd, _REPLY.pack(tag, value))

    def text(self, tag: bytes, text: str) -> None:
        data = text.encode("utf-8", "replace")[:_MAX_TEXT]
        os.write(self.wfd, _REPLY.pack(tag, len(data)) + data)


def _load(kind: str, target: str, k: int) -> Any:
    """Load the strategy in the zygote without running any of its code (a C file's constructors aside)."""
    if kind == "c":
        from twentyone import cplayer

        return cplayer.CFunctionSet(cplayer.load_student(Path(target)), k, Path(target))
    from twentyone.players import ModuleFunctionSet

    return ModuleFunctionSet(Path(target), k, warn=lambda m: print(m, file=sys.stderr), execute=False)


def _spare(rfd: int, wfd: int, kind: str, loaded: Any, k: int, limits: dict[str, Any],
           bpf: bytes | None) -> None:
    """A child forked ahead of its match: it sets up what it can, waits for the match, then serves it."""
    os.write(wfd, _REPLY.pack(b"H", os.getpid()))
    conn = _Conn(rfd, wfd)
    lo, hi = sorted((rfd, wfd))
    os.closerange(3, lo)  # the zygote's control socket and wake-up pipe
    os.closerange(lo + 1, hi)
    os.closerange(hi + 1, 1 << 12)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if kind == "c":
        loaded.state.reset_statics()
    cap = int(limits["output_bytes"])
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(limits["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    nofile = int(limits["open_files"])
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    load_filter_now = _FilterLoader(bpf) if bpf is not None else None
    if int(limits.get("cpu", -1)) >= 0:
        # Wait on the engine's CPU: waking a process there is quick, waking an idle CPU is not.
        os.sched_setaffinity(0, {int(limits["cpu"])})
    request = conn.frame()
    if request is None or request[0] != b"M":
        os._exit(0)
    capture = request[5].decode("utf-8")
    out = os.open(capture, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    if kind == "c":
        # C output goes through the module's capture; its own cap sits above the file-size limit,
        # so a flood hits RLIMIT_FSIZE and the child dies of SIGXFSZ: a fault, not a silent cut.
        loaded._lib.tw_capture_open(b"/dev/stdout", 4 * cap)
    else:
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = sys.stdout
    if load_filter_now is not None and not load_filter_now():
        conn.text(b"E", "the system-call filter could not be loaded")
        os._exit(6)
    if kind == "c":
        conn.reply(b"P", os.getpid())
        loaded._lib.tw_serve(rfd, wfd, k)  # the match, served in C; it ends the process
        os._exit(0)
    try:
        loaded.reset(None)  # the student's module code runs here, under the limits and the filter
    except Exception as e:  # noqa: BLE001 - report, don't crash silently
        conn.text(b"E", str(e))
        os._exit(3)
    conn.reply(b"P", os.getpid())
    _serve_python(conn, loaded)


_WHERE = {b"B": "bet", b"F": "first_action", b"C": "continue_action", b"S": "show"}


def _serve_python(conn: _Conn, fs: Any) -> None:
    """A Python strategy's match: each call answered before the next request is read.

    A fault is reported in the words the engine uses for the same fault in process, and ends the child.
    """
    while True:
        request = conn.frame()
        if request is None or request[0] == b"Q":
            break
        op, _, a, _, _, body = request
        where = _WHERE.get(op, "request")
        problem = ""
        try:
            if op == b"B":
                r = fs.bet(a)
                if r.__class__ is not int:
                    problem = f"bet returned {r!r}, not an int"
                else:
                    value = max(min(r, 2**31 - 1), -(2**31))
            elif op == b"F" or op == b"C":
                if op == b"F":
                    r = fs.first_action(body.decode("latin-1"), a)
                else:
                    r = fs.continue_action([Player(*p) for p in marshal.loads(body)])
                if r.__class__ is not str or len(r) != 1:
                    problem = f"{where} returned {r!r}, not one character"
                else:
                    value = ord(r)
            elif op == b"S":
                b, ps, pnum, n, pos = marshal.loads(body)
                fs.show(Banker(*b), [Player(*p) for p in ps], pnum, n, pos)
                value = 0
            else:
                problem = "unknown request"
        except Exception as e:  # noqa: BLE001 - a strategy's exception is reported as a fault
            problem = f"{where} raised {type(e).__name__}: {e}"
        if problem:
            conn.text(b"E", problem)
            sys.stdout.flush()
            os._exit(4)
        conn.reply(b"R", value)
    fs.close()
    sys.stdout.flush()
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    """The zygote: ``python -m twentyone.sandbox FD KIND TARGET K LIMITS``."""
    import ast
    import gc
    import importlib

    args = argv if argv is not None else sys.argv[1:]
    fd, kind, target, k, limits = int(args[0]), args[1], args[2], int(args[3]), ast.literal_eval(args[4])
    ctl = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the engine's to handle; children inherit this
    if limits.get("zygote_cpus"):
        try:
            os.sched_setaffinity(0, set(limits["zygote_cpus"]))
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
        text = str(e).encode("utf-8", "replace")[:_MAX_TEXT]
        ctl.sendall(_CTL.pack(b"E", len(text), 0) + text)
        return 1
    bpf = build_filter()
    gc.collect()
    gc.freeze()  # children share the zygote's objects; the collector need not touch (copy) them
    ctl.sendall(_CTL.pack(b"R", 1 if bpf is not None else 0, 0))
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_w)
    while True:
        ready = select.select([ctl.fileno(), wake_r], [], [])[0]
        if wake_r in ready:
            try:
                os.read(wake_r, 4096)
            except BlockingIOError:
                pass
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                try:
                    ctl.sendall(_CTL.pack(b"X", pid, status))
                except OSError:
                    return 0
        if ctl.fileno() in ready:
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
            rfd, wfd = fds
            try:
                pid = os.fork()
            except OSError as e:
                text = f"cannot start the worker: {e}".encode()
                try:
                    os.write(wfd, _REPLY.pack(b"E", len(text)) + text)
                except OSError:
                    pass
                pid = -1
            if pid == 0:
                try:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    _spare(rfd, wfd, kind, loaded, k, limits, bpf)
                finally:
                    os._exit(5)
            os.close(rfd)
            os.close(wfd)
            if pid > 0:
                try:
                    ctl.sendall(_CTL.pack(b"S", pid, 0))
                except OSError:
                    return 0


if __name__ == "__main__":
    sys.exit(main())
