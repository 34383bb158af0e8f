"""Python players from files: a course-style function set K (a copy of ``mycodes/mycodes.py``), or a
file that defines ``STRATEGY`` (a ``Strategy`` subclass or instance).

``ModuleFunctionSet`` runs the file in a fresh module at the start of every match, so its globals
start at their initial values, as a C file's statics do.  ``PERSON = True`` is switched off (with a
warning) so that automatic play never waits for a keyboard.  The caller gives the warning sink.
"""

from __future__ import annotations

import ast
import re
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twentyone.errors import PlayerSpecError
from twentyone.handin import read_file
from twentyone.records import Banker, Player
from twentyone.strategy import FUNCTION_NAMES, Strategy

__all__ = ["ModuleFunctionSet", "read_source", "strategy_from_file", "defines_strategy"]


def read_source(path: Path, spec: str) -> bytes:
    """The bytes of a player file (a regular file, its size capped before it is read: ``handin.read_file``);
    one clear PlayerSpecError if it cannot be read."""
    return read_file(path, f"player file {spec!r}")


#: ``PERSON = True`` (or 1) at the top level of a file: what a student sets to play by hand.
_PERSON_ON = re.compile(rb"^PERSON[ \t]*+=[ \t]*+(?:True|1)\b", re.MULTILINE)


def person_on(raw: bytes) -> bool:
    """Whether the file turns PERSON on at its top level, as its text shows without running it (a sandboxed
    file is run only in its box, where a warning would reach nobody)."""
    return _PERSON_ON.search(raw) is not None


def person_note(path: Path) -> str:
    """The warning for a file whose PERSON is on."""
    return f"{path}: PERSON is on; playing automatically (the file is not changed)"


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("gbk", errors="replace")


def _compile(text: str, path: Path) -> types.CodeType:
    try:
        return compile(text, str(path), "exec")
    except SyntaxError as e:
        raise PlayerSpecError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None


def defines_strategy(raw: bytes) -> bool:
    """True when a Python player file defines ``STRATEGY`` at its top level (assigned, a class or function of that
    name, or imported as it): a Strategy class, not function sets.  The word in a comment or a string is not one;
    a file that does not parse defines none (its function sets' error says why)."""
    if b"STRATEGY" not in raw:
        return False
    import ast

    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "STRATEGY":
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == "STRATEGY"
                                                                   for a in node.names):
            return True
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        if any(isinstance(n, ast.Name) and n.id == "STRATEGY" for t in targets for n in ast.walk(t)):
            return True
    return False


#: The module each Python file last ran in, per match token: (token, the compiled file, its namespace).
_RUNS: dict[str, tuple[object, types.CodeType, dict[str, Any]]] = {}


class ModuleFunctionSet:
    """A course function set K from a Python file; ``reset`` re-runs the file for fresh globals."""

    def __init__(self, path: Path, k: int, warn: Callable[[str], None], execute: bool = True,
                 source: bytes | None = None) -> None:
        """Read (unless ``source`` holds the file already) and compile the file; run it now unless
        ``execute`` is False (the sandbox runs it later)."""
        self.path = path
        self.k = k
        text = _text(source if source is not None else read_source(path, str(path)))
        self._code = _compile(text, path)
        self._warned = False
        self._warn = warn
        if execute:
            self.reset(None)
        else:
            defined = {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
            missing = [f"{n}{k}" for n in FUNCTION_NAMES if f"{n}{k}" not in defined]
            if missing:
                raise PlayerSpecError(f"{path} has no function set {k} (missing: {', '.join(missing)})")

    def reset(self, match: object) -> None:
        """Run the file again in a fresh module, so its globals start at their initial values.

        Function sets of one file at one table share that module, as the sets of one mycodes.c share its statics
        in the course program (and in one sandbox box): the first set reset for a ``match`` (a token) runs the
        file, the others join it."""
        key = str(self.path)
        run = _RUNS.get(key)
        if match is not None and run is not None and run[0] is match and run[1] == self._code:
            self._bind(run[2])
            return
        module = types.ModuleType(f"_twentyone_player_{abs(hash(str(self.path)))}")
        module.__file__ = str(self.path)
        ns = module.__dict__
        try:
            exec(self._code, ns)  # noqa: S102 - running the player's own file is the point
        except Exception as e:
            raise PlayerSpecError(f"{self.path}: running the file raised {type(e).__name__}: {e}") from None
        if match is not None:
            _RUNS[key] = (match, self._code, ns)
        self._bind(ns)

    def _bind(self, ns: dict[str, Any]) -> None:
        if ns.get("PERSON"):
            ns["PERSON"] = False
            if not self._warned:
                self._warned = True
                self._warn(person_note(self.path))
        self._ns = ns
        k = self.k
        missing = [f"{n}{k}" for n in FUNCTION_NAMES if not callable(ns.get(f"{n}{k}"))]
        if missing:
            raise PlayerSpecError(f"{self.path} has no function set {k} (missing: {', '.join(missing)})")
        self.bet: Callable[[int], int] = ns[f"bet{k}"]
        self.first_action: Callable[[str, int], str] = ns[f"first_action{k}"]
        self.continue_action: Callable[[list[Player]], str] = ns[f"continue_action{k}"]
        self.show: Callable[[Banker, list[Player], int, int, int], None] = ns[f"show{k}"]

    def sibling(self, k: int) -> ModuleFunctionSet:
        """Function set ``k`` of the same file, in the same module: sets of one file share its globals (as the
        course program's sets share its statics).  PlayerSpecError when the file has no set ``k``."""
        other = object.__new__(ModuleFunctionSet)
        other.path, other.k, other._code = self.path, k, self._code
        other._warned, other._warn = True, self._warn
        ns = self._ns
        missing = [f"{n}{k}" for n in FUNCTION_NAMES if not callable(ns.get(f"{n}{k}"))]
        if missing:
            raise PlayerSpecError(f"{self.path} has no function set {k} (missing: {', '.join(missing)})")
        other._ns = ns
        other.bet = ns[f"bet{k}"]
        other.first_action = ns[f"first_action{k}"]
        other.continue_action = ns[f"continue_action{k}"]
        other.show = ns[f"show{k}"]
        return other

    def close(self) -> None:
        """Nothing to release."""


def strategy_from_file(path: Path, raw: bytes) -> Strategy:
    """Run a file that defines ``STRATEGY`` and return a fresh strategy from it."""
    ns: dict[str, Any] = {"__file__": str(path), "__name__": "_twentyone_strategy"}
    code = _compile(_text(raw), path)
    try:
        exec(code, ns)  # noqa: S102
    except Exception as e:
        raise PlayerSpecError(f"{path}: running the file raised {type(e).__name__}: {e}") from None
    obj = ns.get("STRATEGY")
    if isinstance(obj, type) and issubclass(obj, Strategy):
        return obj()
    if isinstance(obj, Strategy):
        return obj
    raise PlayerSpecError(f"{path}: STRATEGY is not a twentyone.strategy.Strategy")
