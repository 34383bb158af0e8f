"""The C bridge: a student's compiled ``mycodes.c`` (from ``twentyone.players.c.build``) loaded through
cffi and seated like any player.  This is the only module that touches a compiled student library.

``load_student`` loads a built module without ``RTLD_GLOBAL`` (so two students' ``bet1`` never meet)
and snapshots its static variables; ``CFunctionSet`` calls function set K with the course's C
arguments.  The file's statics are put back to their initial values at the start of every match,
and whatever it prints goes to a size-capped per-match log file, never to the terminal.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from twentyone.errors import PlayerSpecError
from twentyone.records import Banker, Player

__all__ = ["load_student", "CFunctionSet", "STDOUT_CAP"]

STDOUT_CAP = 1 << 20

_loaded: dict[Path, _ModuleState] = {}


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
    state = _ModuleState(module)
    _loaded[built] = state
    return state


class _ModuleState:
    """A loaded student module and the snapshot of its static variables, taken right after loading."""

    def __init__(self, module: ModuleType) -> None:
        self.ffi: Any = getattr(module, "ffi")
        self.lib: Any = getattr(module, "lib")
        ffi = self.ffi
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
        self._saved = [ffi.buffer(ffi.cast("char *", a), ln)[:] for a, ln in self._segments]

    def reset_statics(self) -> None:
        """Put every static variable of the module back to its value at load time."""
        self.lib.tw_capture_close()
        for (addr, n), saved in zip(self._segments, self._saved):
            self.ffi.memmove(self.ffi.cast("char *", addr), saved, n)


class CFunctionSet:
    """Course function set K of a compiled student file, with the C arguments."""

    def __init__(self, state: _ModuleState, k: int, label: str, capture_dir: Path | None = None) -> None:
        """Set ``k`` of the loaded module ``state``; ``label`` names its output files in ``capture_dir``."""
        self.state = state
        self.k = k
        self.label = label
        self._ffi = state.ffi
        self._lib = state.lib
        self.capture_dir = capture_dir

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

    def bet(self, N: int) -> int:
        return int(self._lib.tw_bet(self.k, N))

    def first_action(self, tmpcards: str, length: int) -> str:
        buf = self._ffi.new("char[]", tmpcards.encode("latin-1") + b"\0")
        return str(self._lib.tw_first_action(self.k, buf, length).decode("latin-1"))

    def _players(self, players: list[Player]) -> Any:
        arr = self._ffi.new("Player[]", len(players))
        for i, p in enumerate(players):
            c = arr[i]
            if p.name:
                c.name = p.name.encode("utf-8")[:19]
            c.account = p.account
            if p.mycards:
                c.mycards = p.mycards.encode("latin-1")[:19]
            c.count = p.count
            if p.state:
                c.state = p.state.encode("latin-1")[:1]
            c.mybets = p.mybets
            c.points = p.points
            c.rounds = p.rounds
        return arr

    def continue_action(self, players: list[Player]) -> str:
        return str(self._lib.tw_continue_action(self.k, self._players(players)).decode("latin-1"))

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        b = self._ffi.new("Banker *")
        if banker.mycards:
            b.mycards = banker.mycards.encode("latin-1")[:19]
        b.count = banker.count
        b.state = banker.state.encode("latin-1")[:1] if banker.state else b"\0"
        b.points = banker.points
        self._lib.tw_show(self.k, b, self._players(players), pNum, N, pos)

    def close(self) -> None:
        self._lib.tw_capture_close()
