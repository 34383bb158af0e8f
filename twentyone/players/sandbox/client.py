"""The engine side of the sandbox: a course function set played in a box of its own, one per match.

``SandboxFunctionSet`` starts a *box* (``box.spawn``) for every match: a compiled submission's box program
or a Python box, started by the engine itself, confined before anything of the student's runs, playing that
one match and ending with it (see SANDBOX.md).  The next match's box is started while the current one plays
(a *spare*: it confines itself and runs the student's initialisers on another CPU), so a match starts in
well under a millisecond of the engine's time.  No memory, file, process or descriptor of one match's box
reaches the next: each is a new program, not a fork.

The engine believes nothing the box says beyond the value of a well-formed reply: the box's identity is the
spawn's pid (signals go through its pidfd), its end and its CPU time come from ``wait4``, and every frame is
checked (its tag, a bounded length, the value's range).  A reply that is not a frame of the protocol, a
flood, or a text too long is that submission's fault; the engine never holds more than one frame of a box's
output.  Requests and replies are ``wire``'s frames; ``show`` and the next round's ``bet`` travel together
when the engine knows that bet will be asked for (see ``Strategy.show_before_bet``); the box answers each
call before it starts the next, so a crash or a hang is charged to the call that caused it.  Any failure
becomes a ``StrategyFault`` with its cause (crash, time-out, forbidden system call, output flood, CPU limit,
malformed reply), which the table turns into a foul that takes the player out of that match.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from twentyone.errors import PlayerSpecError, strategy_text
from twentyone.legality import Foul
from twentyone.players.sandbox import wire
from twentyone.players.sandbox.box import (BLOCKED, SLICE, Box, BoxStartError, Layers, await_ready,
                                           private_output, program_zygote, python_argv, spawn, zygote, capture_file)
from twentyone.players.sandbox.cpus import away_cpus, engine_cpu
from twentyone.players.sandbox.ends import CRASHES, at_cpu_limit, describe_status
from twentyone.players.sandbox.flight import Flight
from twentyone.players.sandbox.limits import Limits
from twentyone.players.sandbox.settings import settings
from twentyone.players.sandbox.watchdog import WATCHDOG as _WATCHDOG
from twentyone.records import Banker, Player
from twentyone.table import StrategyFault

__all__ = ["SandboxFunctionSet", "host_layers_line"]

#: The hot path's names for the frame layout of ``wire`` (a request header, a Player struct).
_pack = wire.REQUEST.pack
_read = os.read
_write = os.write
_c_player = wire.c_player
_unpack_reply = wire.REPLY.unpack_from
_monotonic = time.monotonic
_SLICE_MS = int(SLICE * 1000)
#: The CPU seconds a box told its match is over may spend leaving (flushing its output) before it is killed.
_AFTER_QUIT = 0.05
#: The wall-clock backstop of a whole match, as a multiple of its configured limit.
_MATCH_BACKSTOP = 10
_BLOCKED_WORDS = (f"blocked for {BLOCKED:g} s, neither running nor waiting for a CPU (a strategy's sleeps return at "
                  "once in the sandbox: it waited on a descriptor, or stopped itself)")
_PACKAGE_ROOT = Path(__file__).resolve().parents[3]

#: The CPU time the student's initialisers (or a Python file's loading) may take, unless a decision's is longer
#: (c_src/box/tw_box.c's TW_LOAD_USEC, pybox's LOAD_SECONDS).
LOAD_SECONDS = 1.0


class SandboxFunctionSet(Flight):
    """A course function set K played in a box per match; implements ``twentyone.strategy.FunctionSet``; its
    matches may be played by the table in C (``Flight``).

    ``kind`` is ``c`` (``target``: the built module, whose box program lies beside it) or ``py``
    (``target``: the ``.py`` file, whose ``source`` the engine has read).
    """

    #: The layers of the first box this process started, for the one line a command prints.
    layers: tuple[Layers, int] | None = None
    _members: set[int]
    _lead: SandboxFunctionSet

    def __init__(self, kind: str, target: Path, k: int, limits: Limits = Limits(),
                 capture_dir: Path | None = None, warn: Callable[[str], None] | None = None,
                 label: str | None = None, source: bytes | None = None, source_name: str = "mycodes.c",
                 share: bool = True) -> None:
        self.kind = kind
        self.target = target
        #: Names the output files: the student's file, not the compiled module.
        self.label = label or target.stem
        self.k = k
        #: The student's file as a crash's line names it (``mycodes.c:123 in bet1``).
        self.source_name = source_name
        self.limits = limits
        self.capture_dir = capture_dir
        self.warn = warn
        self.match_no = 0
        self._c = kind == "c"
        #: The next round's bet, fetched together with ``show``: its value or its fault.
        self._ahead: int | StrategyFault | None = None
        if self._c:  # the table's packed records are the structs a C box reads (``strategy.PackedFunctionSet``)
            self.continue_packed, self.show_then_bet_packed = self._continue_c, self._show_then_c
        key = (kind, str(target), limits, str(capture_dir), self.label, source_name)
        lead = _join(key, k) if share else None
        if lead is not None:
            # Another set of the same submission is seated already: its box serves this set too (one program,
            # one copy of the statics, as in the course).  A Python file is checked for this set first.
            if kind == "py":
                SandboxFunctionSet(kind, target, k, limits, warn=warn, source=source, share=False).close()
            self._lead = lead
            lead._members.add(k)
            return
        self._lead = self
        self._members: set[int] = {k}
        self._token: object = None
        #: The fault that ended the current match's box, for the other sets it serves.
        self._ended: StrategyFault | None = None
        self._decision = limits.wall_timeout()
        self._cpu_limit = limits.decision_timeout
        #: The student's calls the request in flight makes (``_call``'s ``decisions``).
        self._span = 1
        self._settings = settings(limits, python=not self._c)
        if self._c:
            from twentyone.players.c.build import BOX_PROGRAM

            self._argv = [str(target.parent / BOX_PROGRAM)]
            self._extra = b""
        else:
            self._argv = python_argv(_PACKAGE_ROOT)
            if source is None:
                from twentyone.players.files.python import read_source

                source = read_source(target, str(target))
            self._extra = wire.PY_FILE.encode() + b"\0" + source  # never its path on the grader's disk
        #: The current match's box, the spare for the next match, retired boxes not yet reaped.
        self._box: Box | None = None
        #: The number of the last call, and of the call in flight (0: none), as the watchdog sees them; the call
        #: it first saw in flight (number, time, CPU clock); the fault it found for a call; the match past its
        #: wall-clock backstop.
        self._seq = 0
        self._inflight = 0
        self._first: tuple[int, float, float] | None = None
        self._watched: tuple[int, StrategyFault] | None = None
        self._overdue = False
        self._spare: tuple[Box, Path | None] | None = None
        self._retired: list[Box] = []
        self._deadline = 0.0
        self._setup_fault: StrategyFault | None = None
        self._owner = os.getpid()
        #: The last start was refused by the file itself (an error it reported while loading).
        self._loading_error = False
        #: The fault of the first box, which died while loading: the first match's.
        self._first_fault: StrategyFault | None = None
        self._pin = limits.pin_cpu
        self._cpu = engine_cpu() if self._pin else -1
        # The first box is started now, so that a file that cannot load is one clear line before any match.
        self._spare = self._start(check=True)
        _WATCHDOG.watch(self)
        if share:
            _GROUPS.setdefault(key, []).append(self)

    # -- boxes ---------------------------------------------------------------------------------------------
    def _capture(self, match_no: int) -> tuple[int, Path | None]:
        """The capture file of match ``match_no``, opened here (a box may open no file): (fd, path or None)."""
        if self.capture_dir is None:
            return private_output(), None
        try:
            return capture_file(self.capture_dir, self.label, self.k, match_no, self)
        except OSError as e:
            raise PlayerSpecError(f"cannot write the output file in {str(self.capture_dir)!r}: "
                                  f"{e.strerror or e}") from None

    def _start(self, check: bool = False, away: bool = True) -> tuple[Box, Path | None]:
        """Start the box of the next match, away from the engine's CPU (``away``: it starts while a match plays).

        With ``check``, wait until it is ready: a file that reports an error while loading (a Python file that
        does not compile, or lacks its function set) is PlayerSpecError, one line, before any match, as is a
        machine that cannot confine it; a box that dies while loading (a constructor that crashes or makes a
        forbidden call) is that player's fault in its first match, like any later one."""
        fd, path = self._capture(self.match_no + 1)
        try:
            box = spawn(self._argv, self._settings.config(self.k, self._extra), fd,
                        zygote=program_zygote(self._argv[0]) if self._c else zygote(_PACKAGE_ROOT))
        except BoxStartError as e:
            raise PlayerSpecError(str(e)) from None
        finally:
            os.close(fd)
        cpus = away_cpus() if self._pin and away else set()
        if cpus:
            try:
                os.sched_setaffinity(box.pid, cpus)
            except OSError:
                pass
        if check:
            fault = self._ready(box)
            box.ready = fault is None
            if fault is not None:
                box.reap_or_kill(1.0)
                if path is not None:
                    path.unlink(missing_ok=True)
                if not self._loading_error:
                    self._first_fault = fault
                    return box, None
                name = self.source_name if self._c else str(self.target)  # a C target is its build in the cache
                detail = self._shown(strategy_text(fault.detail or str(fault.cause)), head=name)
                raise PlayerSpecError(detail if name in detail else f"{name}: {detail}")
        return box, path

    def _ready(self, box: Box) -> StrategyFault | None:
        """Wait for a new box to confine itself and load the student's code: None, or the fault that kept it
        from it.  A box that cannot hold the minimum is refused here, in one line."""
        start = await_ready(box, 30.0 * max(1.0, self.limits.decision_timeout),
                            load_cpu=max(LOAD_SECONDS, self.limits.decision_timeout))
        self._loading_error = start.how == "error"
        if start.how == "ready":
            if SandboxFunctionSet.layers is None:
                SandboxFunctionSet.layers = (start.layers, start.abi)
            return None
        if start.how == "refused" and self._c and start.text.startswith(wire.OVER_MEMORY):
            self._loading_error = True  # the program's own statics (under a lower limit than the build's check)
            return StrategyFault(Foul.ERROR, start.text)
        if start.how == "refused":
            raise PlayerSpecError("this machine cannot confine unread code: " + strategy_text(start.text)
                                  + "; run with --trusted only for code you have read")
        if start.how == "weak":
            raise PlayerSpecError(f"this machine cannot confine unread code (only {start.layers.describe(start.abi)} "
                                  "hold); run with --trusted only for code you have read")
        if start.how == "timeout":
            what, cause = ("loading it", Foul.TIMEOUT) if start.loading else ("the sandbox's process starting", Foul.CRASH)
            return StrategyFault(cause, f"{what} took longer than its limit", wall=True)
        if start.how == "blocked":
            return StrategyFault(Foul.TIMEOUT, f"while loading: {_BLOCKED_WORDS}")
        if start.how == "overran":
            load = max(LOAD_SECONDS, self.limits.decision_timeout)
            return StrategyFault(Foul.TIMEOUT, f"while loading (its initialisers): its CPU time limit of {load:g} s for "
                                               f"loading ({start.text} with its timer disarmed)")
        if start.how == "error":
            return StrategyFault(Foul.ERROR, self._shown(start.text))
        if start.how == "ended":
            cause, detail = describe_status(start.status)
            if os.WIFSIGNALED(start.status) and os.WTERMSIG(start.status) == signal.SIGPROF:
                load = max(LOAD_SECONDS, self.limits.decision_timeout)
                cause, detail = Foul.TIMEOUT, f"its CPU time limit of {load:g} s for loading (signal SIGPROF)"
            detail += self._where(box, start.status)
            return StrategyFault(cause, f"while loading (its initialisers): {detail}" if start.loading else detail)
        return StrategyFault(Foul.ERROR, "malformed reply while loading")

    def _gone(self, box: Box) -> StrategyFault:
        """The box ended: the watchdog's fault if it ended it, else its wait status (from the kernel) as a fault."""
        self._drop()
        status = box.reap_or_kill(2.0)
        watched, self._watched = self._watched, None
        if watched is not None and watched[0] == self._seq:
            return watched[1]
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGPROF:
                return StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of "
                                                   f"{self.limits.decision_timeout:g} s of CPU time (signal SIGPROF)"
                                     + self._where(box, status))
            if at_cpu_limit(status, box.cpu, self.limits.cpu_seconds, box.killed):
                return StrategyFault(Foul.TIMEOUT, f"the match's CPU time limit of {self.limits.cpu_seconds} s "
                                                   f"(it used {box.cpu:.1f} s; signal {signal.Signals(sig).name})")
        cause, detail = describe_status(status)
        return StrategyFault(cause, detail + self._where(box, status))

    def _where(self, box: Box, status: int) -> str:
        """`` at mycodes.c:123 in bet1`` for a file that crashed, made a forbidden call or ran out of CPU time and
        said where (a compiled file's crash report, a Python file's traceback); '' otherwise."""
        if not os.WIFSIGNALED(status) or os.WTERMSIG(status) not in CRASHES:
            return ""
        from twentyone.players.c.jail import tool_output
        from twentyone.players.sandbox.crash import locate, locate_python
        if self._c:
            where = locate(Path(self._argv[0]), box.crash, self.source_name, tool_output) if box.crash else None
        else:
            where = locate_python(box.dump, wire.PY_FILE, self.target.name) if box.dump else None
        return f" at {where}" if where else ""

    def _shown(self, text: str, head: str | None = None) -> str:
        """A Python box's text naming the student's file where the box named its own (``wire.name_python_file``)."""
        return text if self._c else wire.name_python_file(text, self.target.name, head)

    def _drop(self) -> None:
        """Forget the current box (it has ended or been killed; it is reaped later or by the caller)."""
        self._inflight = 0
        self._box = None

    def _kill(self) -> None:
        box = self._box
        if box is not None:
            box.kill()
            self._drop()
            box.reap_or_kill(2.0)

    def _malformed(self, what: str) -> StrategyFault:
        self._kill()
        return StrategyFault(Foul.ERROR, f"malformed reply: {what}")

    def _result(self) -> int:
        """The value the box replies to the request just sent; raises a StrategyFault when there is none.

        The read blocks: the watchdog thread (``_Watchdog``) looks at every call that is in flight across two of
        its looks and ends a box that is blocked or past its CPU limit, so that the read then meets its end."""
        box = self._box
        if box is None:
            raise StrategyFault(Foul.CRASH, "the strategy's process is not running")
        buf = box.buf
        if not buf:
            self._inflight = self._seq
            try:
                # Two frames' worth: the replies of show and the bet sent with it come in one write, and so
                # are taken in one read (what follows a reply waits in ``buf`` for the next call).
                data = _read(box.rfd, 16)
            except OSError:
                data = b""
            if data[:1] == b"R":  # a b"R" frame: the usual case
                if len(data) == 8:
                    self._inflight = 0
                    return _unpack_reply(data)[1]  # type: ignore[no-any-return]
                if len(data) == 16 and data[8] == 82:
                    self._inflight = 0
                    box.buf = data[8:]
                    return _unpack_reply(data)[1]  # type: ignore[no-any-return]
            if not data:
                self._inflight = 0
                raise self._gone(box)
            box.buf = data
        elif len(buf) == 8 and buf[0] == 82:  # the bet's reply, read with show's
            box.buf = b""
            return _unpack_reply(buf)[1]  # type: ignore[no-any-return]
        # A frame in pieces, a text frame, a crash report: still the call in flight, watched until it is whole.
        self._inflight = self._seq
        try:
            frame = box.frame(self._decision if not box.watched else 1e9)
        except TimeoutError:
            raise self._wall_fault(box) from None
        finally:
            self._inflight = 0
        if frame is None:
            raise self._gone(box)
        tag, value, text = frame
        if tag == b"R":
            return value
        if tag == b"E":
            self._drop()
            box.reap_or_kill(1.0)
            raise StrategyFault(Foul.ERROR, self._shown(text.decode("utf-8", "replace")))
        raise self._malformed(f"{wire.REPLY.pack(tag[:1] or b'?', value)!r}")

    def _look(self, now: float) -> None:
        """The watchdog's look (in its thread) at this set's box, every slice.

        Only what the submission itself does is charged, never the machine's load.  A call in flight at two
        looks in a row has run for a slice at least: a box blocked in it (neither running nor waiting for a CPU)
        for ``BLOCKED`` s is a fault, and so is one whose CPU clock has run past the decision's CPU limit since
        the first look (it disarmed its timer; a call's CPU before that look is a slice at most, unseen); a box
        kept waiting for a CPU waits as long as it takes.  The wall clock decides only where the kernel's figures
        cannot be read, and a match past ``_MATCH_BACKSTOP`` times its limit.  A fault is noted for its call
        (``_watched``), then the box is killed: the blocked read in the engine's thread meets its end."""
        for old in list(self._retired):  # told to leave: stopped once it spends CPU instead
            if old.status is None:
                try:
                    if time.clock_gettime(old.cpu_clock) - old.retired_cpu > _AFTER_QUIT:
                        old.kill()
                except OSError:
                    pass
        box, seq = self._box, self._in_flight()
        if box is None or box.status is not None:
            self._first = None
            return
        if not seq:
            self._first = None
            if now > self._deadline and self._deadline:
                self._overdue = True
            return
        first = self._first
        if first is None or first[0] != seq:
            try:
                clock = time.clock_gettime(box.cpu_clock)
            except OSError:
                clock = 0.0
            self._first = (seq, now, clock)
            box.new_call()
            box.stalled(BLOCKED)
            return
        fault = None
        if box.stalled(BLOCKED) and not box.replied():  # waiting for its next request is not blocking
            fault = StrategyFault(Foul.TIMEOUT, _BLOCKED_WORDS)
        else:
            try:
                used = time.clock_gettime(box.cpu_clock) - first[2]
            except OSError:
                used = 0.0
            # The box's own timer ends a call at its limit; this backstop, for a box that disarmed it, waits a
            # quarter more, so that on a loaded machine the box's own report (naming the call that overran) is
            # never beaten by it.
            if used > self._cpu_limit * self._span * 1.25:
                fault = StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of "
                                                    f"{self.limits.decision_timeout:g} s of CPU time (it used more "
                                                    f"than {used:.1f} s with its own timer disarmed)")
            elif not box.watched and now - first[1] > self._decision * self._span:
                fault = self._wall_words(box)
            elif now > self._deadline:
                fault = StrategyFault(Foul.TIMEOUT, f"the match took longer than its wall-clock backstop of "
                                                    f"{_MATCH_BACKSTOP * self.limits.match_timeout:g} s", wall=True)
        if fault is not None and self._in_flight() == seq:
            self._watched = (seq, fault)
            box.kill()

    def _match_timeout(self) -> StrategyFault:
        self._kill()
        return StrategyFault(Foul.TIMEOUT, f"the match took longer than its wall-clock backstop of "
                                           f"{_MATCH_BACKSTOP * self.limits.match_timeout:g} s", wall=True)

    def _wall_fault(self, box: Box) -> StrategyFault:
        fault = self._wall_words(box)
        self._kill()
        return fault

    def _wall_words(self, box: Box) -> StrategyFault:
        used = box.cpu_seconds()
        if used > self.limits.decision_timeout + 0.5:
            return StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of "
                                               f"{self.limits.decision_timeout:g} s of CPU time (it used {used:.1f} s "
                                               "with its timer disarmed)")
        return StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of {self._decision:g} s of "
                                           "wall-clock time (the strategy slept or blocked)", wall=True)

    def _call(self, request: bytes, decisions: int = 1) -> int:
        """Send ``request`` and return its reply's value.  ``decisions``: how many of the student's calls it
        makes before the reply (show and the next bet: 2), each with its own decision limit in the box; the
        watchdog's backstops allow them all."""
        self._span = decisions
        box = self._box
        if box is None or self._overdue:
            if box is not None:
                raise self._match_timeout()
            raise self._setup_fault or self._ended or StrategyFault(Foul.CRASH,
                                                                    "the strategy's process is not running")
        self._seq += 1
        self._inflight = self._seq  # the write too: a box that never reads its requests is watched
        try:
            if _write(box.wfd, request) != len(request):
                raise BlockingIOError
        except BlockingIOError:  # its request pipe is full (non-blocking: it reads none): its fault
            self._inflight = 0
            self._kill()
            self._ended = StrategyFault(Foul.ERROR, "it does not read the engine's requests (its pipe is full)")
            raise self._ended from None
        except OSError:
            pass  # the box is gone; the read that follows reports why
        try:
            return self._result()
        except StrategyFault as e:
            if self._box is None:  # the box has ended: every set it serves has lost it to this fault
                self._ended = e
            raise

    def _retire(self) -> None:
        """End the current match's box: it is told the match is over and leaves (flushing its output) on
        another CPU, while the next match's box is made ready; then it is reaped, and killed if it has not left
        by the next match's start (``_reap_retired``), or by the watchdog as soon as it has spent ``_AFTER_QUIT`` s
        of CPU since it was told (``_look``): nothing of it runs beside the next match."""
        box = self._box
        if box is None:
            return
        self._drop()
        away = away_cpus() if self._pin else set()
        if away:
            with suppress(OSError):
                os.sched_setaffinity(box.pid, away)
        try:
            os.write(box.wfd, wire.QUIT)
        except OSError:
            pass
        box.retired = time.monotonic()
        try:
            box.retired_cpu = time.clock_gettime(box.cpu_clock)
        except OSError:
            box.retired_cpu = 0.0
        self._retired.append(box)

    def _reap_retired(self, kill: bool, grace: float = 0.0) -> None:
        """Reap the boxes of finished matches; with ``kill``, one that has not ended within ``grace`` s is killed
        (it was told to leave when the match it played ended)."""
        keep = []
        end = time.monotonic() + grace
        for box in self._retired:
            if box.reap(max(0.0, end - time.monotonic())) is None:
                if kill:
                    box.reap_or_kill(0.0)
                else:
                    keep.append(box)
        self._retired = keep

    # -- the FunctionSet protocol ----------------------------------------------------------------------------
    def _adopt(self) -> None:
        """In a forked copy of the engine (a process pool): the boxes are the original's children, not this
        process's; leave them to it (closing only this copy's descriptors) and start afresh."""
        for box in [*((self._box,) if self._box else ()), *((self._spare[0],) if self._spare else ()),
                    *self._retired]:
            box.close_pipes()
            if box.pidfd >= 0:
                os.close(box.pidfd)
                box.pidfd = -1
        self._box, self._spare, self._retired = None, None, []
        self._owner = os.getpid()
        _WATCHDOG.watch(self)
        self._cpu = engine_cpu() if self._pin else -1

    def reset(self, match: object) -> None:
        """End the previous match's box and start the new ``match`` in the spare one (once for all the sets of
        the submission seated at the table: they share the box)."""
        self._ahead = None
        self._lead._begin(match)

    def _begin(self, match: object) -> None:
        if match is not None and match is self._token and os.getpid() == self._owner:
            return  # another set of the submission began this match already
        self._token = match
        self._ended = None
        if os.getpid() != self._owner:
            self._adopt()
        self._reap_retired(kill=True)
        self._retire()
        self.match_no += 1
        spare, self._spare = self._spare, None
        self._setup_fault = None
        if self._first_fault is not None:  # the first box died while loading: this match is lost to that
            self._setup_fault, self._first_fault = self._first_fault, None
            self._spare = self._start()
            return
        if spare is None:
            try:
                spare = self._start(away=False)
            except PlayerSpecError as e:
                self._setup_fault = StrategyFault(Foul.CRASH, str(e))
                return
        box, _ = spare
        if not box.ready:
            fault = self._ready(box)
            if fault is not None:
                self._setup_fault = fault
                box.reap_or_kill(1.0)
                self._spare = self._start()
                return
            box.ready = True
        if self._cpu >= 0:
            with suppress(OSError):
                os.sched_setaffinity(box.pid, {self._cpu})
        self._box = box
        os.set_blocking(box.wfd, False)  # a request the box does not read never blocks the engine (``_call``)
        self._overdue = False
        # The match's limit is its box's CPU time (RLIMIT_CPU); the wall clock is only a backstop, far out, so
        # that a loaded machine never decides a match.
        self._deadline = time.monotonic() + _MATCH_BACKSTOP * self.limits.match_timeout
        self._spare = self._start()  # started while this match plays
        # The previous match's box has left by now, or it is stopped: it gets no time beside this match's.
        self._reap_retired(kill=False)  # what has not left yet is the watchdog's (``_look``)

    def bet(self, N: int) -> int:
        ahead = self._ahead
        if ahead is not None:
            self._ahead = None
            if isinstance(ahead, StrategyFault):
                raise ahead
            return ahead
        return self._lead._call(_pack(b"B", 0, self.k, N, 0, 0))

    def _action(self, value: int) -> str:
        if self._c:
            if 0 <= value <= 255:
                return chr(value)
        elif 0 <= value <= 0x10FFFF:
            return chr(value)
        raise self._lead._malformed(f"an action of {value}")

    def first_action(self, tmpcards: str, length: int) -> str:
        t = tmpcards.encode("latin-1")
        return self._action(self._lead._call(_pack(b"F", len(t), self.k, length, 0, 0) + t))

    def _players(self, op: bytes, players: list[Player], pNum: int = 0, N: int = 0, pos: int = 0,
                 banker: Banker | None = None) -> bytes:
        if self._c:
            head = b"" if banker is None else wire.c_banker(banker)
            return _pack(op, len(players), self.k, pNum, N, pos) + head + b"".join([_c_player(p) for p in players])
        body = wire.py_players(players) if banker is None else wire.py_show(banker, players, pNum, N, pos)
        return _pack(op, 0, self.k, len(body), 0, 0) + body

    def continue_action(self, players: list[Player]) -> str:
        return self._action(self._lead._call(self._players(b"C", players)))

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        self._ahead = None
        self._lead._call(self._players(b"S", players, pNum, N, pos, banker))

    def show_then_bet(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int,
                      bet_N: int) -> None:
        """``show``, and ``bet(bet_N)`` in the same round trip: the engine is sure to ask for that bet next.

        A fault in ``show`` is raised here; the bet's value, or its fault, is kept for ``bet``.
        """
        self._show_then(self._players(b"S", players, pNum, N, pos, banker), bet_N)

    def _show_then(self, show: bytes, bet_N: int) -> None:
        self._ahead = None
        lead = self._lead
        if len(lead._members) > 1:
            # Sets that share a box share its statics: the next bet of one must come after every set's show (the
            # course program shows every seat, then asks every bet), so it is not fetched early.
            lead._call(show)
            return
        lead._call(show + _pack(b"B", 0, self.k, bet_N, 0, 0), 2)
        lead._seq += 1  # the bet's reply is a call of its own to the watchdog
        try:
            self._ahead = lead._result()
        except StrategyFault as e:
            if lead._box is None:
                lead._ended = e
            self._ahead = e

    # A C box reads the table's packed records as they are (``strategy.PackedFunctionSet``): set for C boxes only.
    def _continue_c(self, players: bytes) -> str:
        return self._action(self._lead._call(_pack(b"C", len(players) // 64, self.k, 0, 0, 0) + players))

    def _show_then_c(self, banker: bytes, players: bytes, pNum: int, N: int, pos: int, bet_N: int) -> None:
        self._show_then(_pack(b"S", len(players) // 64, self.k, pNum, N, pos) + banker + players, bet_N)

    def close(self) -> None:
        """Leave the table; the last set of the submission to leave ends the box (its output complete) and the
        spare, and reaps them all."""
        self._ahead = None
        lead = self._lead
        lead._members.discard(self.k)
        if not lead._members:
            lead._close_box()

    def _close_box(self) -> None:
        for group in _GROUPS.values():
            if self in group:
                group.remove(self)
        if os.getpid() != self._owner:
            # A forked copy of the engine (a process pool) must not end the original's processes.
            self._box, self._spare, self._retired = None, None, []
            return
        self._retire()
        spare, self._spare = self._spare, None
        if spare is not None:
            box, path = spare
            box.kill()
            box.reap_or_kill(1.0)
            if path is not None:  # made for a match that was never played
                path.unlink(missing_ok=True)
        deadline = time.monotonic() + 0.1  # to flush its output: a box told to leave gets no more time than that
        for box in self._retired:
            box.reap_or_kill(max(deadline - time.monotonic(), 0.0))
        self._retired = []

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass


#: The sandboxed sets of this process, by submission: one box per submission per table (``_join``).
_GROUPS: dict[tuple[object, ...], list[SandboxFunctionSet]] = {}


def _join(key: tuple[object, ...], k: int) -> SandboxFunctionSet | None:
    """A set of the same submission (``key``) already seated in this process that lacks set ``k``, whose box can
    serve ``k`` too; None: ``k`` gets a box of its own (the same set seated twice is two programs)."""
    for lead in _GROUPS.get(key, ()):
        if lead._owner == os.getpid() and lead._members and k not in lead._members:
            return lead
    return None


def host_layers_line() -> str | None:
    """The one line a command prints about the layers its boxes run under, once one has started."""
    if SandboxFunctionSet.layers is None:
        return None
    layers, abi = SandboxFunctionSet.layers
    return f"sandbox: {layers.describe(abi)} (twentyone doctor proves each layer)"
