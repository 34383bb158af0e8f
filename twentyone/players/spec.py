"""Turn a ``--player`` SPEC into a seated strategy: the one factory that decides where a strategy runs.

SPEC is one of the built-in names (``stand``, ``basic``, ``hilo``, the French game's AI levels
``amateur``, ``intermediate``, ``expert``, and ``optimal``), ``human``, ``chart:path.csv`` (a strategy
chart, ``chart:french-expert`` for the shipped one), ``path/to/file.py[:K]`` (a course-style Python
function set K, default 1, or a file defining ``STRATEGY``, a ``Strategy`` subclass or instance) or
``path/to/mycodes.c[:K]`` (a student's C file, compiled through cffi).

A file's strategy runs in this process (trusted) or, given sandbox ``Limits``, in a worker process of
its own (``twentyone.players.sandbox``).  Built-in players always run in process.  The loaders below
take their label (which names output files) and their warning sink from here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.players.builtin import BUILTINS
from twentyone.players.chartplayer import FRENCH_EXPERT, ChartStrategy, load_chart
from twentyone.players.cbuild import SOURCE_SUFFIXES, compile_student, missing_functions
from twentyone.players.cplayer import CFunctionSet, load_student
from twentyone.players.levels import LEVELS
from twentyone.players.optimal import Optimal
from twentyone.players.pyplayer import ModuleFunctionSet, defines_strategy, read_source, strategy_from_file
from twentyone.players.sandbox.client import SandboxFunctionSet
from twentyone.players.sandbox.limits import Limits
from twentyone.players.terminal import Human
from twentyone.strategy import FunctionSet, FunctionSetStrategy, Strategy

__all__ = ["parse_spec", "make_strategy", "safe_name", "stderr_warn", "builtin_name", "BUILTIN_NAMES", "Warn"]

#: Built-in players beyond the course's: the French game's AI levels and the analyser's optimal play.
MORE_BUILTINS: dict[str, type[Strategy]] = {**LEVELS, "optimal": Optimal}
BUILTIN_NAMES = (*BUILTINS, *MORE_BUILTINS, "human")

#: Where a loader's warnings go: one line of text each.
Warn = Callable[[str], None]

_warned: set[str] = set()
_SAFE = re.compile(r"[^0-9A-Za-z._\-\u4e00-\u9fff]+")


def stderr_warn(message: str) -> None:
    """Print a warning once: a file seated at several seats warns once, not once per seat."""
    if message not in _warned:
        _warned.add(message)
        print(f"twentyone: warning: {message}", file=sys.stderr)


def safe_name(p: Path) -> str:
    """A file-system- and key-safe name for a player file: its file, folder or zip name (the student)."""
    stem = p.stem if p.suffix.lower() in (".zip", ".py", *SOURCE_SUFFIXES) else p.name
    if stem.lower() in ("mycodes", "strategy", "main") and p.parent.name:
        stem = p.parent.name
    return _SAFE.sub("_", stem).strip("_") or "submission"


def builtin_name(spec: str) -> str | None:
    """The entry name of a SPEC that needs no file of code (a built-in player, ``chart:FILE``), or None."""
    if spec in BUILTINS or spec in MORE_BUILTINS:
        return spec
    if spec.startswith("chart:"):
        where = spec[len("chart:"):]
        return "chart-" + (where if where == "french-expert" else safe_name(Path(where)))
    return None


def parse_spec(spec: str) -> tuple[str, int | None]:
    """Split ``path[:K]`` into the path and K (None when not given); K must be 1..5."""
    head, sep, tail = spec.rpartition(":")
    if sep and tail.isdigit() and head:
        k = int(tail)
        if not 1 <= k <= 5:
            raise PlayerSpecError(f"function set out of range in player {spec!r}: {k} (1 .. 5)")
        return head, k
    return spec, None


def make_strategy(spec: str, warn: Warn = stderr_warn, *, sandbox: Limits | None = None,
                  capture_dir: Path | None = None, lang: str = "en") -> Strategy:
    """Return a fresh strategy for ``spec``; raise PlayerSpecError with one clear line if it can't.

    ``sandbox`` runs a file's strategy in a worker process under those limits; None runs it in this
    process (trusted).  ``capture_dir`` receives what a file's strategy prints, one file per match.
    ``lang`` is the prompt language of a ``human`` seat.
    """
    builtin = BUILTINS.get(spec) or MORE_BUILTINS.get(spec)
    if builtin is not None:
        return builtin()
    if spec == "human":
        return Human(lang=lang)
    if spec.startswith("chart:"):  # data, not code: always in process
        where = spec[len("chart:"):]
        path = FRENCH_EXPERT if where == "french-expert" else Path(where).expanduser()
        return ChartStrategy(load_chart(path), name=spec)
    target, k = parse_spec(spec)
    path = Path(target).expanduser().resolve()
    suffix = path.suffix.lower()
    if suffix == ".py":
        return _python_player(path, k, spec, warn, sandbox, capture_dir)
    if suffix in SOURCE_SUFFIXES:
        return _c_player(path, k or 1, warn, sandbox, capture_dir)
    known = ", ".join(BUILTIN_NAMES)
    raise PlayerSpecError(f"unknown player {spec!r} (use {known}, chart:FILE.csv, a .py, .c or .cpp file, "
                          "optionally :K)")


def _python_player(path: Path, k: int | None, spec: str, warn: Warn, sandbox: Limits | None,
                   capture_dir: Path | None) -> Strategy:
    raw = read_source(path, spec)
    if k is None and defines_strategy(raw):
        if sandbox is not None:
            raise PlayerSpecError(f"{spec}: a STRATEGY class runs in process only; seat it with --trusted, "
                                  "or write it as function sets (bet1, first_action1, ...)")
        return strategy_from_file(path, raw)
    k = k or 1
    fs: FunctionSet
    if sandbox is not None:
        # Read, parsed and checked in the worker, under its limits: a file that exhausts the parser
        # costs only itself, and its error line comes from there.
        fs = SandboxFunctionSet("py", path, k, sandbox, capture_dir=capture_dir, warn=warn, label=safe_name(path))
    else:
        fs = ModuleFunctionSet(path, k, warn)
    return FunctionSetStrategy(fs, k, name=f"{path.name}:{k}")


def _c_player(path: Path, k: int, warn: Warn, sandbox: Limits | None, capture_dir: Path | None) -> Strategy:
    built = compile_student(path, warn)
    if sandbox is None and SOURCE_SUFFIXES[path.suffix.lower()] == "cpp":
        # A C++ file's global objects own heap memory that a snapshot of its statics cannot restore: it
        # always plays in a worker process, forked afresh from its loaded module for every match.
        sandbox = Limits()
    missing = missing_functions(built, k)
    if missing:
        raise PlayerSpecError(f"{path} has no function set {k} (missing: {', '.join(missing)})")
    fs: FunctionSet
    if sandbox is not None:
        fs = SandboxFunctionSet("c", built, k, sandbox, capture_dir=capture_dir, warn=warn, label=safe_name(path))
    else:
        fs = CFunctionSet(load_student(built), k, safe_name(path), capture_dir)
    return FunctionSetStrategy(fs, k, name=f"{path.name}:{k}")
