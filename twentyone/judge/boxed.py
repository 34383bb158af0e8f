"""A contestant's C++ solution run in the sandbox: built once, one fresh box per test, every call served here.

``build`` compiles the solution unchanged with the project's ``Blackjack.h`` (``c_src/judge``) through the
project's confined compiler (``players.cbuild.compile_program``), linked with the judge's client
(``c_src/judge/tw_judge_client.cpp``) into one box program in which only ``play()`` of the solution stays
global.  ``run_test`` starts that program in a box of its own (``players.sandbox.box.spawn``): confined before
any of the solution's code runs, with only its pipes, an empty standard input (a pipe holding one byte, which
a read takes), a standard output that is a pipe this process watches (any byte on it is the illegal call
"wrote to standard output") and a standard error kept in a capped file.  Every call of ``Blackjack.h`` is a
request on the box's pipe, answered by the test's ``Game`` here: the shoe, the money and the rules never
enter the box, so reading its own memory shows a solution nothing of the cards to come.

The frames are described in ``c_src/judge/tw_judge_client.cpp``.  A test has a CPU budget (the box's
``RLIMIT_CPU``) and a wall-clock backstop; a box that crashes, runs out of time or stops answering ends its
test with a fault (``Ending.FAULT``), named with its place in the game.
"""

from __future__ import annotations

import os
import select
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from twentyone.errors import CompileError, PlayerSpecError, strategy_text
from twentyone.judge.game import Ending, Game, Illegal, IllegalCall, JudgeStop, TestResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from twentyone.players.sandbox.box import Box, BoxSettings

__all__ = ["JudgeLimits", "build", "read_solution", "run_test", "HEADER", "CLIENT"]

_JUDGE_SRC: Final = Path(__file__).resolve().parents[2] / "c_src" / "judge"
#: The header contestants include, and the judge's side of it in the box.
HEADER: Final = _JUDGE_SRC / "Blackjack.h"
CLIENT: Final = _JUDGE_SRC / "tw_judge_client.cpp"
#: The only symbol of the solution left global: ``void play()``.
PLAY_SYMBOL: Final = "_Z4playv"
_PACKS: dict[int, struct.Struct] = {}


@dataclass(frozen=True)
class JudgeLimits:
    """What one test may use: CPU seconds (the box's RLIMIT_CPU), a wall-clock backstop, memory, and the size
    of the standard error file."""

    cpu_seconds: int = 10
    wall_seconds: float = 0.0
    memory_bytes: int = 1 << 30
    stderr_bytes: int = 1 << 20
    load_seconds: float = 10.0

    def wall(self) -> float:
        """The wall-clock backstop: as given, or three times the CPU budget and ten seconds more."""
        return self.wall_seconds or 3.0 * self.cpu_seconds + 10.0


def read_solution(path: Path) -> bytes:
    """A solution's text as the compiler takes it: UTF-8 (GBK read too), LF endings; PlayerSpecError (one line)
    when it cannot be read or is not C++ text."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise PlayerSpecError(f"cannot read solution {str(path)!r}: it is a directory") from None
    except OSError as e:
        raise PlayerSpecError(f"cannot read solution {str(path)!r}: {e.strerror or e}") from None
    if b"\0" in raw or not raw.strip():
        raise PlayerSpecError(f"{path} is not a C++ source file ({'empty' if not raw.strip() else 'binary data'})")
    from twentyone.handin import source_text

    return source_text(raw).replace("\r\n", "\n").replace("\r", "\n").encode("utf-8")


def build(path: Path, warn: Callable[[str], None] | None = None) -> Path:
    """Compile the solution ``path`` (or reuse its cached build) and return its box program."""
    from twentyone.players.c.build import compile_program

    source = read_solution(path)
    try:
        return compile_program(path, source, lang="cpp", headers=[HEADER], box_sources=[CLIENT],
                               keep=[PLAY_SYMBOL], warn=warn)
    except CompileError as e:
        raise CompileError(str(e), e.messages.replace("`_Z4playv'", "`play()'")) from None


def _pack(tag: bytes, money: int, value: int, cards: list[int] | tuple[int, ...] = ()) -> bytes:
    n = len(cards)
    s = _PACKS.get(n)
    if s is None:
        s = _PACKS[n] = struct.Struct(f"=4i{n}i")
    return s.pack(tag[0], money, value, n, *cards)


def _complete(buf: bytes) -> bool:
    """True when ``buf`` starts with a whole frame (or one ``Box.frame`` refuses at once: a text too long); a
    crash report (``C``: the box's words of where it crashed) counts whole once its words are in."""
    if len(buf) < 8:
        return False
    n = int.from_bytes(buf[4:8], "little", signed=True)
    if buf[0] == 67:  # 'C', only ever before a box's end (imported here: 'report' loads no sandbox module)
        from twentyone.players.sandbox.box import MAX_CRASH

        if not 0 < n <= MAX_CRASH:
            return True
        end = 8 + 8 * n
        return len(buf) > end and _complete(buf[end:])  # the frame after it (at the end: the box's end)
    if buf[0] != 69:  # not 'E'
        return True
    return not 0 <= n <= 4096 or len(buf) >= 8 + n


class _Served:
    """One test served to one box."""

    def __init__(self, game: Game, box: Box, stdout_r: int, limits: JudgeLimits, deadline: float) -> None:
        self.game = game
        self.box = box
        self.stdout_r = stdout_r
        self.limits = limits
        self.deadline = deadline
        self.poll = select.poll()
        self.poll.register(box.rfd, select.POLLIN)
        self.poll.register(stdout_r, select.POLLIN)

    def wrote_stdout(self) -> bool:
        """True when a byte waits on the box's standard output (its end, when the box has gone, is not one)."""
        if self.stdout_r < 0 or not select.select([self.stdout_r], [], [], 0)[0]:
            return False
        try:
            if os.read(self.stdout_r, 1):
                return True
        except OSError:
            pass
        self.poll.unregister(self.stdout_r)  # the box has closed it: it has ended, which the reply pipe shows
        self.stdout_r = -1
        return False

    def frame(self) -> tuple[bytes, int, bytes] | None:
        """The box's next frame (read with ``Box.frame``); raises IllegalCall for standard output written,
        _Blocked when the box is blocked (neither running nor waiting for a CPU) for ``BLOCKED`` s, TimeoutError
        at the wall-clock backstop; None when the box has ended."""
        from twentyone.players.sandbox.box import BLOCKED, SLICE

        box = self.box
        box.new_call()
        while not _complete(box.buf):
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            events = self.poll.poll(min(left, SLICE) * 1000.0)
            if not events:
                if box.stalled(BLOCKED):
                    raise _Blocked
                continue
            for fd, _ in events:
                if fd == self.stdout_r and self.wrote_stdout():
                    self.stdout_illegal()
            try:
                chunk = os.read(box.rfd, 8 + 4096 - len(box.buf))
            except BlockingIOError:
                continue
            except OSError:
                return None
            if not chunk:
                return box.frame(0.0) if len(box.buf) >= 8 else None
            box.buf += chunk
        return box.frame(0.0)

    def stdout_illegal(self) -> None:
        game = self.game
        game.illegal = Illegal("", "wrote to standard output", game.hands, len(game.log) + 1, game.pos, game.money,
                               ())
        game.ending = Ending.ILLEGAL
        raise IllegalCall(game.illegal)

    def send(self, data: bytes) -> None:
        try:
            os.write(self.box.wfd, data)
        except OSError:
            pass  # the box is gone: the next read says how

    def serve(self) -> None:
        """Answer the box's calls until the test is decided (JudgeStop) or the box fails (a fault is returned
        through ``self.fault``)."""
        game = self.game
        game.begin_play()
        send = self.send
        send(_pack(b"P", game.money, 0))
        while True:
            frame = self.frame()
            if frame is None:
                raise _BoxEnded
            tag, value, text = frame
            if tag == b"s" or tag == b"K":
                dealer = game.stand() if tag == b"s" else game.stand_2()
                if game.ending is not None:
                    return
                send(_pack(b"V", game.money, 0, dealer) + _pack(b"P", game.money, 0))
            elif tag == b"h":
                c = game.hit()
                send(_pack(b"V", game.money, c))
            elif tag == b"I":
                send(_pack(b"V", game.money, 0, game.init_game(value)))
            elif tag == b"R":
                game.end_play()
                game.begin_play()  # its 'P' went with the hand's last reply
            elif tag == b"N":
                r = game.buy_insurance(value)
                send(_pack(b"V", game.money, r))
            elif tag == b"D":
                c = game.double_down()
                send(_pack(b"V", game.money, c))
            elif tag == b"S":
                send(_pack(b"V", game.money, 0, game.split()))
            elif tag == b"j":
                c = game.hit_1()
                send(_pack(b"V", game.money, c))
            elif tag == b"k":
                game.stand_1()
            elif tag == b"J":
                c = game.hit_2()
                send(_pack(b"V", game.money, c))
            elif tag == b"E":
                self.client_illegal(text.decode("utf-8", "replace"))
            else:
                raise _Malformed(f"a frame tagged {tag!r}")

    def client_illegal(self, text: str) -> None:
        """An illegal call the box's client saw (standard input read, standard output written, a call from a
        global initialiser)."""
        game = self.game
        game.illegal = Illegal("", strategy_text(text), game.hands, len(game.log) + 1, game.pos, game.money, ())
        game.ending = Ending.ILLEGAL
        raise IllegalCall(game.illegal)


class _BoxEnded(Exception):
    pass


class _Malformed(Exception):
    pass


class _Blocked(Exception):
    """The box was blocked, neither running nor waiting for a CPU, for ``box.BLOCKED`` s (RULES.md, sandbox_time)."""


def _fault_of(status: int, cpu: float, limits: JudgeLimits, killed: bool = False) -> str:
    """A box's end (its wait status; ``killed``: the engine sent it SIGKILL) in words."""
    import signal

    from twentyone.players.sandbox.ends import at_cpu_limit, describe_status

    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if at_cpu_limit(status, cpu, limits.cpu_seconds, killed):
            return f"the test's CPU time limit of {limits.cpu_seconds} s (signal {signal.Signals(sig).name})"
        if sig == signal.SIGSYS:
            return ("a forbidden system call (signal SIGSYS): a solution may only compute and call Blackjack.h "
                    "(no files, processes or sockets)")
        if sig == signal.SIGABRT:
            return "it crashed: abort (signal SIGABRT): an exception left play(), or abort() was called"
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 1):
        return f"the program ended (exit status {os.WEXITSTATUS(status)}) inside play()"
    return f"it crashed: {describe_status(status)[1]}"


def _settings(limits: JudgeLimits) -> BoxSettings:
    from twentyone.players.sandbox.settings import box_settings
    from twentyone.players.sandbox.limits import Limits

    wall = min(limits.wall(), 3600.0)
    return box_settings(Limits(decision_timeout=min(float(limits.cpu_seconds), 3600.0), match_timeout=wall,
                               cpu_seconds=limits.cpu_seconds, memory_bytes=limits.memory_bytes,
                               output_bytes=limits.stderr_bytes), python=False)


def run_test(program: Path, seed: int, limits: JudgeLimits = JudgeLimits(), stderr_path: Path | None = None,
             game: Game | None = None) -> TestResult:
    """Play one test (shoe ``seed``, or ``game``) with the box program ``program``; the box's standard error
    goes to ``stderr_path`` (capped).  PlayerSpecError (one line) when this machine cannot confine it."""
    from twentyone.players.sandbox.box import BoxStartError, private_output, spawn
    from twentyone.players.sandbox.cpus import engine_cpu

    game = game if game is not None else Game(seed)
    settings = _settings(limits)
    start = time.perf_counter()
    if stderr_path is not None:
        stderr_path.parent.mkdir(parents=True, exist_ok=True)
        cap = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    else:
        cap = private_output()
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    try:
        try:
            box = spawn([str(program)], settings.config(0), cap, stdout_fd=out_w)
        except BoxStartError as e:
            raise PlayerSpecError(str(e)) from None
        finally:
            os.close(cap)
            os.close(out_w)
        try:
            os.sched_setaffinity(box.pid, {engine_cpu()})
        except OSError:
            pass
        return _play(game, box, out_r, limits, start)
    finally:
        os.close(out_r)


def _play(game: Game, box: Box, out_r: int, limits: JudgeLimits, start: float) -> TestResult:
    from twentyone.players.sandbox.box import await_ready

    ready = await_ready(box, limits.load_seconds)
    if ready.how in ("refused", "weak"):
        detail = ready.text if ready.how == "refused" else f"only {ready.layers.describe(ready.abi)} hold"
        raise PlayerSpecError(f"this machine cannot confine unread code: {strategy_text(detail)}")
    if ready.how == "error":  # the client saw an illegal call while the solution loaded
        game.illegal = Illegal("", strategy_text(ready.text), 0, 0, game.pos, game.money, ())
        game.ending = Ending.ILLEGAL
        return _done(game.result(), box, start)
    if ready.how in ("timeout", "blocked"):
        return _done(game.stop("loading it (its global initialisers) took longer than "
                               f"{limits.load_seconds:g} s" if ready.how == "timeout" else
                               "while loading (its global initialisers): blocked, neither running nor waiting for a "
                               "CPU (it waited on a descriptor, or stopped itself)"), box, start)
    if ready.how != "ready":  # it ended while loading: its pipes are closed, nothing more to serve
        fault = _fault_of(ready.status, box.cpu, limits, box.killed)
        return _done(game.stop(f"while loading (its global initialisers): {fault}"), box, start)
    served = _Served(game, box, out_r, limits, time.monotonic() + limits.wall())
    try:
        if served.wrote_stdout():
            served.stdout_illegal()
        served.serve()
    except JudgeStop:
        pass
    except _BoxEnded:
        status = box.reap_or_kill(2.0)
        return _done(game.stop(f"{_fault_of(status, box.cpu, limits, box.killed)}, {game.place()}"), box, start)
    except _Blocked:
        box.kill()
        return _done(game.stop(f"blocked for {_blocked_seconds():g} s, neither running nor waiting for a CPU (a "
                               f"solution's sleeps return at once: it waited on a descriptor, or stopped itself), "
                               f"{game.place()}"), box, start)
    except TimeoutError:
        used = box.cpu_seconds()
        box.kill()
        return _done(game.stop(f"no answer within the test's wall-clock limit of {limits.wall():g} s "
                               f"(it used {used:.1f} s of CPU: it slept or blocked), {game.place()}"), box, start)
    except _Malformed as e:
        return _done(game.stop(f"malformed reply from the box: {e}, {game.place()}"), box, start)
    return _done(game.result(), box, start)


def _blocked_seconds() -> float:
    from twentyone.players.sandbox.box import BLOCKED

    return BLOCKED


def _done(result: TestResult, box: Box, start: float) -> TestResult:
    box.kill()
    box.reap_or_kill(1.0)
    result.seconds = time.perf_counter() - start
    return result
