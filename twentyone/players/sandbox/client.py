"""The engine side of the sandbox: a course function set run in a worker process (``SandboxFunctionSet``).

For each sandboxed strategy the engine starts a zygote (``python -m twentyone.players.sandbox.worker``)
and, for every match, has it fork a child with two pipes of its own.  The zygote forks the next
match's child (a *spare*) while the current match plays, on another CPU when there is one; the spare
sets up what it can and waits on the engine's CPU, and a finished child exits on another CPU, so
starting a match costs well under a millisecond of the engine's time.

Requests and replies are the small binary frames of ``wire``: a C strategy's child serves them in C,
calling the student's functions on fresh zero-filled struct copies; a Python strategy's child serves
them in Python.  ``show`` and the next round's ``bet`` travel together when the engine knows that bet
will be asked for (see ``Strategy.show_before_bet``); the child answers each call before it starts
the next, so a crash or a hang is still charged to the call that caused it, and the round log is the
one play in process writes.  Every reply has a wall-clock limit per decision and per match.  Any
failure becomes a ``StrategyFault`` with its cause (crash, timeout, forbidden system call, output
flood, CPU limit, malformed reply), which the table turns into a foul and takes the player out of
that match.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from twentyone.errors import PlayerSpecError, strategy_text
from twentyone.legality import Foul
from twentyone.players.sandbox import wire
from twentyone.players.sandbox.cpus import away_cpus, engine_cpu
from twentyone.players.sandbox.limits import Confinement, Limits, WorkerConfig
from twentyone.records import Banker, Player
from twentyone.table import StrategyFault

__all__ = ["SandboxFunctionSet", "describe_status"]

#: The hot path's names for the frame layout of ``wire`` (a request header, a Player struct): one
#: attribute lookup fewer per call, a few percent of a sandboxed table's speed.
_pack = wire.REQUEST.pack
_c_player = wire.c_player

_SIGNAL_CAUSE: dict[int, tuple[Foul, str]] = {
    signal.SIGSEGV: (Foul.CRASH, "segmentation fault"),
    signal.SIGBUS: (Foul.CRASH, "bus error"),
    signal.SIGFPE: (Foul.CRASH, "arithmetic error"),
    signal.SIGILL: (Foul.CRASH, "illegal instruction"),
    signal.SIGABRT: (Foul.CRASH, "abort"),
    signal.SIGSYS: (Foul.CRASH, "forbidden system call"),
    signal.SIGXCPU: (Foul.TIMEOUT, "the match's CPU time limit"),
    signal.SIGPROF: (Foul.TIMEOUT, "no answer within the decision limit of CPU time"),
    signal.SIGXFSZ: (Foul.CRASH, "output flood (file size limit)"),
    signal.SIGKILL: (Foul.CRASH, "killed (memory or process limit)"),
    signal.SIGPIPE: (Foul.CRASH, "broken pipe"),
}


def describe_status(status: int) -> tuple[Foul, str]:
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
        #: The wall-clock backstop of a decision (its CPU limit is enforced in the child).
        self._decision = limits.wall_timeout()
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
        #: The next match's child, forked ahead: its request pipe, its reply pipe and its capture file.
        self._spare: tuple[int, int] | None = None
        self._spare_capture: Path | None = None
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
        pin = self.limits.pin_cpu
        config = WorkerConfig(self.limits, engine_cpu() if pin else -1, tuple(sorted(away_cpus())) if pin else (),
                              os.getpid())
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "twentyone.players.sandbox.worker", str(theirs.fileno()), self.kind,
             str(self.target), str(self.k), config.to_json()],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=dict(os.environ), close_fds=True)
        theirs.close()
        end = time.monotonic() + 30.0
        while not self._ctl_msgs and self._ctl_read(max(end - time.monotonic(), 0.0)):
            if time.monotonic() >= end:
                break
        tag, value, text = self._ctl_msgs.pop(0) if self._ctl_msgs else (b"", 0, b"")
        if tag != b"R":
            detail = text.decode("utf-8", "replace") if tag == b"E" else self._zygote_end()
            self.close()
            detail = strategy_text(detail)
            raise PlayerSpecError(detail if str(self.target) in detail else f"{self.target}: {detail}")
        how = Confinement(value)
        if not how.safe:
            self.close()
            raise PlayerSpecError("this machine cannot confine unread code: there is no system-call filter "
                                  "(install libseccomp2) and no network namespace could be made; run with "
                                  "--trusted only for code you have read")
        if not how & Confinement.SECCOMP and not SandboxFunctionSet._warned_no_seccomp:
            SandboxFunctionSet._warned_no_seccomp = True
            if self.warn is not None:
                self.warn("libseccomp not found: sandboxed strategies run without a system-call filter, in a "
                          "network namespace of their own (as nobody when run as root), with resource limits")
        self._request_spare()

    def _zygote_end(self) -> str:
        """Why the zygote did not get ready: how it ended, if it did."""
        proc = self._proc
        if proc is None:
            return "the worker did not start"
        try:
            code = proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return "the worker did not start in time"
        if code < 0:
            return "loading it ended the worker: " + describe_status(-code & 0x7F)[1]
        return f"the worker ended while loading it (status {code})"

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
        while len(buf) >= wire.CONTROL.size:
            tag, a, b = wire.CONTROL.unpack_from(buf)
            n = a if tag == b"E" and 0 <= a <= wire.MAX_TEXT else 0
            if len(buf) < wire.CONTROL.size + n:
                break
            if tag == b"X":
                self._exits[a] = b
                if len(self._exits) > 1024:
                    del self._exits[next(iter(self._exits))]
            elif tag == b"S":
                self._exits.pop(a, None)  # a new child: any older status under its pid is stale
            else:
                self._ctl_msgs.append((tag, a, buf[wire.CONTROL.size:wire.CONTROL.size + n]))
            buf = buf[wire.CONTROL.size + n:]
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

    def _next_capture(self) -> tuple[int, Path | None]:
        """The next match's capture file, opened here (the child may open no file): (fd, path or None)."""
        if self.capture_dir is None:
            return os.open(os.devnull, os.O_WRONLY), None
        try:
            self.capture_dir.mkdir(parents=True, exist_ok=True)
            path = self.capture_dir / f"{self.label}-set{self.k}-match{self.match_no + 1}.out"
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), path
        except OSError as e:
            raise PlayerSpecError(f"cannot write the output file in {str(self.capture_dir)!r}: "
                                  f"{e.strerror or e}") from None

    def _request_spare(self) -> None:
        """Ask the zygote to fork the next match's child now, with two pipes and a capture file of its own.

        Pipes, not a socket pair: a request and its reply cost about 2 us less each on this VM.  Only
        the child holds the write end of the reply pipe, so its death reads as end of file at once.
        """
        if self._ctl is None:
            return
        capture, path = self._next_capture()
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        try:
            socket.send_fds(self._ctl, [b"F"], [req_r, rep_w, capture])
            self._spare = (req_w, rep_r)
            self._spare_capture = path
        except OSError:
            os.close(req_w)
            os.close(rep_r)
        finally:
            os.close(req_r)
            os.close(rep_w)
            os.close(capture)

    # -- the child ----------------------------------------------------------------------------

    def _frame(self, timeout: float) -> tuple[bytes, int, bytes] | None:
        """The child's next frame (tag, value, text), or None at EOF; TimeoutError after ``timeout`` s.

        A child that dribbles a frame byte by byte still gets ``timeout`` seconds in all.
        """
        end = 0.0
        while True:
            buf = self._buf
            if len(buf) >= 8:
                tag, value = wire.REPLY.unpack_from(buf)
                if tag != b"E":
                    self._buf = buf[8:]
                    return tag, value, b""
                if not 0 <= value <= wire.MAX_TEXT:
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
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGPROF:
            return StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of "
                                               f"{self.limits.decision_timeout:g} s of CPU time (signal SIGPROF)")
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
                value: int = wire.REPLY.unpack(data)[1]
                if time.monotonic() > self._deadline:
                    self._kill_child()
                    limit = self.limits.match_timeout
                    raise StrategyFault(Foul.TIMEOUT, f"the match took longer than its limit of {limit:g} s")
                return value
            if not data:
                if data is None:
                    self._kill_child()
                    raise self._wall_fault()
                raise self._gone()
            self._buf = data
        try:
            frame = self._frame(self._decision)
        except TimeoutError:
            self._kill_child()
            raise self._wall_fault() from None
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
        raise StrategyFault(Foul.ERROR, f"malformed reply {wire.REPLY.pack(tag[:1] or b'?', value)!r}")

    def _wall_fault(self) -> StrategyFault:
        return StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of {self._decision:g} s of "
                                           "wall-clock time (the strategy slept or blocked)")

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
                os.write(self._wfd, wire.QUIT)
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
        if self._spare is None:
            self._request_spare()
        self.match_no += 1
        spare, self._spare = self._spare, None
        self._spare_capture = None
        self._setup_fault = StrategyFault(Foul.CRASH, "the worker process did not start")
        if spare is None:
            return
        self._wfd, self._rfd = spare
        self._poll.register(self._rfd, select.POLLIN)
        self._buf = b""
        try:
            os.write(self._wfd, wire.request(b"M"))
        except OSError:
            pass
        self._setup_fault = self._await_ready()
        self._deadline = time.monotonic() + self.limits.match_timeout
        self._request_spare()  # forked while this match plays

    def _await_ready(self) -> StrategyFault | None:
        """Wait for the new match's child to say it is ready: None, or the fault that kept it from it."""
        pid = 0
        end = time.monotonic() + 10.0
        while True:
            try:
                frame = self._frame(max(end - time.monotonic(), 0.001))
            except TimeoutError:
                self.child_pid = pid
                self._kill_child()
                return StrategyFault(Foul.CRASH, "the worker process did not start in time")
            if frame is not None and frame[0] == b"H" and not pid:
                pid = frame[1]  # written by the child before any student code could run
                try:
                    self._pidfd = os.pidfd_open(pid)
                except OSError:
                    self._pidfd = -1
                continue
            self.child_pid = pid
            if frame is not None and frame[0] == b"P" and pid:
                return None
            if frame is None:
                return self._gone()
            if frame[0] == b"E":
                self._forget_child()
                return StrategyFault(Foul.ERROR, frame[2].decode("utf-8", "replace"))
            self._kill_child()
            return StrategyFault(Foul.ERROR, "malformed reply at the start of the match")

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
        return self._call(_pack(b"B", 0, N, 0, 0))

    def _action(self, value: int) -> str:
        if 0 <= value <= 0x10FFFF:
            return chr(value)
        self._kill_child()
        raise StrategyFault(Foul.ERROR, f"malformed reply {value!r}")

    def first_action(self, tmpcards: str, length: int) -> str:
        t = tmpcards.encode("latin-1")
        return self._action(self._call(_pack(b"F", len(t), length, 0, 0) + t))

    def _players(self, op: bytes, players: list[Player], pNum: int = 0, N: int = 0, pos: int = 0,
                 banker: Banker | None = None) -> bytes:
        if self._c:
            head = b"" if banker is None else wire.c_banker(banker)
            return _pack(op, len(players), pNum, N, pos) + head + b"".join([_c_player(p) for p in players])
        body = wire.py_players(players) if banker is None else wire.py_show(banker, players, pNum, N, pos)
        return _pack(op, 0, len(body), 0, 0) + body

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
        self._call(self._players(b"S", players, pNum, N, pos, banker) + _pack(b"B", 0, bet_N, 0, 0))
        try:
            self._ahead = self._result()
        except StrategyFault as e:
            self._ahead = e

    def _stop_zygote(self) -> None:
        if self._spare is not None:
            for fd in self._spare:
                os.close(fd)
            self._spare = None
            if self._spare_capture is not None:  # made for a match that was never played
                self._spare_capture.unlink(missing_ok=True)
                self._spare_capture = None
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
