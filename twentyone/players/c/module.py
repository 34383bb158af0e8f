"""The C bridge: a student's compiled ``mycodes.c`` (from ``twentyone.players.c.build``) loaded through
cffi and seated like any player.  This is the only module that touches a compiled student library.

``load_student`` loads a built module without ``RTLD_GLOBAL`` (so two students' ``bet1`` never meet)
and snapshots its static variables; ``CFunctionSet`` calls function set K with the course's C
arguments.  The file's statics are put back to their initial values at the start of every match,
and whatever it prints goes to a size-capped per-match log file, never to the terminal.

Every call goes through the module's ``tw_call_*`` (``c_src/bridge/tw_dispatch.c``): the records are handed
over as the table packed them (``records.PLAYER``, no ``Player`` object on the way) and copied afresh for each
call, and a crash in the student's code comes back as that player's crash foul, with the line it happened at,
instead of ending the process (PLAYERS.md, "A crash in process").
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from twentyone.errors import PlayerSpecError
from twentyone.legality import Foul
from twentyone.players.sandbox.crash import locate
from twentyone.records import PLAYER, Banker, Player, pack_banker, pack_player
from twentyone.table import StrategyFault

__all__ = ["load_student", "CFunctionSet", "STDOUT_CAP"]

STDOUT_CAP = 1 << 20

_loaded: dict[Path, _ModuleState] = {}
#: What a guarded call returns after a crash, less the signal's number (``tw_bridge.h``).
_CRASHED = -(1 << 40)
#: A crash's words as ``tw_crash_report`` gives them (``c_src/bridge/tw_dispatch.c``).
_CRASH_WORDS = 24
#: The crash signals a guarded call catches, as the sandbox names them (``sandbox.client``).
_CRASH_NAMES: dict[int, str] = {signal.SIGSEGV: "segmentation fault", signal.SIGBUS: "bus error", signal.SIGFPE: "arithmetic error",
                signal.SIGILL: "illegal instruction", signal.SIGABRT: "abort"}
#: The function each guarded call runs, for a crash's words.
_FUNCTIONS = ("bet", "first_action", "continue_action", "show")


def load_student(built: Path) -> _ModuleState:
    """Load a built module (without RTLD_GLOBAL) once per process and return its ``lib``/``ffi``."""
    if built in _loaded:
        return _loaded[built]
    name = built.name.split(".")[0]
    loader = importlib.machinery.ExtensionFileLoader(name, str(built))
    spec = importlib.util.spec_from_file_location(name, str(built), loader=loader)
    if spec is None:
        raise PlayerSpecError(f"cannot load compiled module {built}")
    flags = sys.getdlopenflags()
    sys.setdlopenflags(os.RTLD_NOW | os.RTLD_LOCAL)
    try:
        module: ModuleType = importlib.util.module_from_spec(spec)
    finally:
        sys.setdlopenflags(flags)
    state = _ModuleState(module, built)
    _loaded[built] = state
    return state


class _ModuleState:
    """A loaded student module and the snapshot of its static variables, taken right after loading."""

    def __init__(self, module: ModuleType, built: Path) -> None:
        self.ffi: Any = getattr(module, "ffi")
        self.lib: Any = getattr(module, "lib")
        self.built = built
        ffi = self.ffi
        if self.lib.tw_guard() != 0:
            raise PlayerSpecError("cannot catch a crash of the compiled module (sigaction failed)")
        addr = ffi.new("uintptr_t[]", 8)
        size = ffi.new("size_t[]", 8)
        n = self.lib.tw_segments(addr, size, 8)
        if n <= 0:
            raise PlayerSpecError("cannot find the static data of the compiled module")
        self._segments = [(int(addr[i]), int(size[i])) for i in range(n)]
        #: The match token (``Strategy.start_match``) whose statics and output are set up.
        self.match: object = None
        #: Matches this file has played in this process (numbers its output files).
        self.matches = 0
        #: The crash of this match (a fault every later call of any of its sets in the match gets), or None.
        self.crash: StrategyFault | None = None
        self._saved = [ffi.buffer(ffi.cast("char *", a), ln)[:] for a, ln in self._segments]

    def reset_statics(self) -> None:
        """Put every static variable of the module back to its value at load time."""
        self.lib.tw_capture_close()
        for (addr, n), saved in zip(self._segments, self._saved):
            self.ffi.memmove(self.ffi.cast("char *", addr), saved, n)


class CFunctionSet:
    """Course function set K of a compiled student file, with the C arguments."""

    def __init__(self, state: _ModuleState, k: int, label: str, capture_dir: Path | None = None,
                 source_name: str = "") -> None:
        """Set ``k`` of the loaded module ``state``; ``label`` names its output files in ``capture_dir``, and
        ``source_name`` the student's file where a crash names its line (else the name the build gave it)."""
        self.state = state
        self.k = k
        self.label = label
        self.source_name = source_name
        self._ffi = state.ffi
        self._lib = state.lib
        self.capture_dir = capture_dir
        lib = state.lib
        self._bet, self._first = lib.tw_call_bet, lib.tw_call_first_action
        self._continue, self._show = lib.tw_call_continue_action, lib.tw_call_show

    def reset(self, match: object) -> None:
        """Fresh statics and a fresh output log for the new ``match`` (a token).

        Function sets of one file at one table share the file's statics and its output, as the
        five players of one mycodes.c do in the course program: the first set reset for a match
        restores them and opens the match's output file; the others join it.
        """
        st = self.state
        if match is not None and st.match is match:
            return
        st.match = match
        st.crash = None
        st.reset_statics()
        if self.capture_dir is None:
            self._lib.tw_capture_open(os.devnull.encode(), STDOUT_CAP)
            return
        st.matches += 1
        log = self.capture_dir / f"{self.label}-set{self.k}-match{st.matches}.out"
        try:
            self.capture_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise PlayerSpecError(f"cannot make the output folder {str(self.capture_dir)!r}: "
                                  f"{e.strerror or e}") from None
        if self._lib.tw_capture_open(str(log).encode(), STDOUT_CAP) != 0:
            raise PlayerSpecError(f"cannot write the output file {str(log)!r}")

    def _crashed(self, value: int, function: int) -> StrategyFault:
        """The fault of a call that crashed (``value``: its result); later calls of the file in this match get
        it too, as the sets of one program share its memory."""
        sig = _CRASHED - value  # one of _CRASH_NAMES: the only signals tw_dispatch.c catches
        words = self._ffi.new("uint64_t[]", _CRASH_WORDS)
        n = self._lib.tw_crash_report(words, _CRASH_WORDS)
        where = locate(self.state.built, tuple(int(words[i]) for i in range(n)), self.source_name or "line") \
            if n else None
        if where is not None and not self.source_name:
            where = where.replace("line:", "line ", 1)
        # as the sandbox words it (sandbox.client), and the function when the debug information names no line
        detail = f"{_CRASH_NAMES[sig]} (signal {signal.Signals(sig).name}) " + (
            f"at {where}" if where else f"in {_FUNCTIONS[function]}{self.k}")
        self.state.crash = StrategyFault(Foul.CRASH, f"the file crashed earlier in this match: {detail}")
        return StrategyFault(Foul.CRASH, detail)

    def _check(self) -> None:
        crash = self.state.crash
        if crash is not None:
            raise StrategyFault(crash.cause, crash.detail)

    def bet(self, N: int) -> int:
        if self.state.crash is not None:
            self._check()
        v: int = self._bet(self.k, N)
        if v < -2**31:
            raise self._crashed(v, 0)
        return v

    def first_action(self, tmpcards: str, length: int) -> str:
        if self.state.crash is not None:
            self._check()
        data = tmpcards.encode("latin-1")
        v: int = self._first(self.k, data, len(data), length)
        if v < 0:
            raise self._crashed(v, 1)
        return chr(v)

    def continue_packed(self, players: bytes) -> str:
        if self.state.crash is not None:
            self._check()
        v: int = self._continue(self.k, players, len(players) // _PLAYER_SIZE)
        if v < 0:
            raise self._crashed(v, 2)
        return chr(v)

    def show_packed(self, banker: bytes, players: bytes, pNum: int, N: int, pos: int) -> None:
        if self.state.crash is not None:
            self._check()
        v: int = self._show(self.k, banker, players, len(players) // _PLAYER_SIZE, pNum, N, pos)
        if v < 0:
            raise self._crashed(v, 3)

    def continue_action(self, players: list[Player]) -> str:
        return self.continue_packed(b"".join(pack_player(p) for p in players))

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        self.show_packed(pack_banker(banker), b"".join(pack_player(p) for p in players), pNum, N, pos)

    def close(self) -> None:
        self._lib.tw_capture_close()


_PLAYER_SIZE = PLAYER.size
