"""Turn a ``--player`` SPEC into a seated strategy: the one factory that decides where a strategy runs.

SPEC is one of the built-in names (``stand``, ``basic``, ``hilo``, ``champion``, the French game's AI levels
``amateur``, ``intermediate``, ``expert``, ``optimal``, and ``mimic``, the Monte Carlo report's player),
``human``, ``chart:path.csv`` (a strategy
chart, ``chart:french-expert`` for the shipped one), ``path/to/file.py[:K]`` (a course-style Python
function set K, default 1, or a file defining ``STRATEGY``, a ``Strategy`` subclass or instance),
``path/to/mycodes.c[:K]`` or ``mycodes.cpp[:K]`` (a student's C or C++ file, compiled once and cached), or a
folder or zip holding one (``path/to/folder[:K]``, ``path/to/li.zip[:K]``): ``players.intake`` finds the
strategy file in it, and a zip is unpacked into a temporary folder removed when the process ends.

A file's strategy runs in this process (trusted) or, given sandbox ``Limits``, in a box of its own for
every match (``twentyone.players.sandbox``).  Built-in players always run in process.  The loaders below
take their label (which names output files) and their warning sink from here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from twentyone.errors import CompileError, PlayerSpecError
from twentyone.players.builtin.course import BUILTINS, Mimic
from twentyone.players.c.build import compile_student, missing_functions
from twentyone.players.builtin.chart import FRENCH_EXPERT, ChartStrategy, load_chart
from twentyone.players.c.module import CFunctionSet, load_student
from twentyone.players.files.intake import KINDS, SourceKind, is_container, readable, student_name, take
from twentyone.players.builtin.levels import LEVELS
from twentyone.players.builtin.optimal import Optimal
from twentyone.players.files.python import (ModuleFunctionSet, defines_strategy, person_note, person_on, read_source,
                                            strategy_from_file)
from twentyone.players.sandbox.client import SandboxFunctionSet
from twentyone.players.sandbox.limits import Limits
from twentyone.players.terminal import Human
from twentyone.safetext import visible
from twentyone.strategy import FunctionSet, FunctionSetStrategy, Strategy

__all__ = ["parse_spec", "make_strategy", "build_c", "check_file", "stderr_warn", "builtin_name", "BUILTIN_NAMES",
           "Warn"]

#: Built-in players beyond the course's: the French game's AI levels, the analyser's optimal play and the Monte
#: Carlo report's player, who draws as the dealer does.
MORE_BUILTINS: dict[str, type[Strategy]] = {**LEVELS, "optimal": Optimal, "mimic": Mimic}
BUILTIN_NAMES = (*BUILTINS, *MORE_BUILTINS, "human")

#: Where a loader's warnings go: one line of text each.
Warn = Callable[[str], None]

_warned: set[str] = set()
_K = re.compile(r"[0-9]+")


def stderr_warn(message: str) -> None:
    """Print a warning once: a file seated at several seats warns once, not once per seat."""
    if message not in _warned:
        _warned.add(message)
        print(f"twentyone: warning: {visible(message)}", file=sys.stderr)


def builtin_name(spec: str) -> str | None:
    """The entry name of a SPEC that needs no file of code (a built-in player, ``chart:FILE``), or None."""
    if spec in BUILTINS or spec in MORE_BUILTINS:
        return spec
    if spec.startswith("chart:"):
        where = spec[len("chart:"):]
        return "chart-" + (where if where == "french-expert" else student_name(Path(where)))
    return None


def parse_spec(spec: str) -> tuple[str, int | None]:
    """Split ``path[:K]`` into the path and K (None when not given); K must be 1..5, in ASCII digits."""
    head, sep, tail = spec.rpartition(":")
    if sep and head and _K.fullmatch(tail):
        k = int(tail)
        if not 1 <= k <= 5:
            raise PlayerSpecError(f"function set out of range in player {readable(spec)!r}: {k} (1 .. 5)")
        return head, k
    if sep and head and tail and any(ch.isnumeric() for ch in tail):
        # '²', '３', '٣' and '½' pass str.isdigit() or isnumeric(), then int() refuses them.
        raise PlayerSpecError(f"function set must be 1 .. 5 in ASCII digits in player {readable(spec)!r}, "
                              f"not {tail!r}")
    return spec, None


def make_strategy(spec: str, warn: Warn = stderr_warn, *, sandbox: Limits | None = None,
                  capture_dir: Path | None = None, lang: str = "en") -> Strategy:
    """Return a fresh strategy for ``spec``; raise PlayerSpecError with one clear line if it can't.

    ``sandbox`` runs a file's strategy in a box per match under those limits; None runs it in this
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
    path = Path(target).expanduser()
    label = None
    kind: SourceKind | None
    if is_container(path):
        found = take(path)
        for w in found.warnings:
            warn(w)
        path, kind, label = found.path, found.kind, found.name
        # what is said about the file names it as grade does, never the temporary folder it was unpacked into
        shown_as: tuple[str, str] | None = (str(path), found.where)
        warn = _naming(warn, str(path), found.where)
    else:
        path = path.resolve()
        kind = KINDS.get(path.suffix.lower())
        shown_as = None
    if sandbox is not None and kind in (SourceKind.PY, SourceKind.C, SourceKind.CPP):
        confinable()
    try:
        if kind == SourceKind.PY:
            return _python_player(path, k, spec, warn, sandbox, capture_dir, label or student_name(path))
        if kind in (SourceKind.C, SourceKind.CPP):
            return _c_player(path, kind, k or 1, warn, sandbox, capture_dir, label or student_name(path))
    except CompileError as e:
        if shown_as is None:
            raise
        raise CompileError(str(e).replace(*shown_as), e.messages.replace(*shown_as)) from None
    except PlayerSpecError as e:
        if shown_as is None:
            raise
        raise PlayerSpecError(str(e).replace(*shown_as)) from None
    known = ", ".join(BUILTIN_NAMES)
    raise PlayerSpecError(f"unknown player {readable(spec)!r} (use {known}, chart:FILE.csv, a .py, .c or .cpp "
                          "file, or a folder or zip holding one, optionally :K)")


def _naming(warn: Warn, on_disk: str, shown: str) -> Warn:
    """``warn``, with the file's path on disk replaced by the path people know it by."""
    def said(message: str) -> None:
        warn(message.replace(on_disk, shown))
    return said


_CONFINABLE: list[str] = []


def confinable() -> str:
    """The one line naming what confines unread code here, once ``twentyone doctor``'s verdict for this host says
    it holds (found once per configuration, a few seconds, then kept); PlayerSpecError (one line: what failed)
    where it does not.  Every untrusted file is seated through here."""
    if not _CONFINABLE:
        from twentyone.players.sandbox.doctor import layers_line

        _CONFINABLE.append(layers_line())
    return _CONFINABLE[0]


def build_c(path: Path, kind: SourceKind, warn: Warn | None = None, *, module: bool = False) -> Path:
    """Compile a C (or C++) strategy file, or reuse its cached build; its box program, or with ``module`` the cffi
    module a trusted player loads in process (only then is one built).

    The one place that builds a C or C++ strategy file.
    """
    return compile_student(path, warn, module=module)  # C++ by its suffix, through g++ and an extern "C" wrapper


def check_file(path: Path, kind: SourceKind, k: int, warn: Warn | None = None, limits: Limits | None = None) -> None:
    """Check that ``path`` can be seated as function set ``k``, without seating it: compile C, read Python.

    With ``limits`` a Python file is read and parsed in a sandbox worker under them, never in this process.
    Raises PlayerSpecError (CompileError for a file that does not compile) with one line.
    """
    if kind in (SourceKind.C, SourceKind.CPP):
        missing = missing_functions(build_c(path, kind, warn, module=limits is None and kind == SourceKind.C), k)
        if missing:
            raise PlayerSpecError(f"{path.name} has no function set {k} (missing: {', '.join(missing)})")
    elif kind == SourceKind.PY:
        if not path.is_file():
            raise PlayerSpecError(f"cannot read player file {readable(path)!r}: no such file")
        if limits is None:
            _read_python(path, k, warn or (lambda m: None), execute=False)
        else:
            confinable()
            SandboxFunctionSet("py", path, k, limits, warn=warn).close()
            if warn is not None and person_on(read_source(path, str(path))):
                warn(person_note(path))
    else:
        raise PlayerSpecError(f"{readable(path)}: not a .c, .cpp or .py strategy file")


def _python_player(path: Path, k: int | None, spec: str, warn: Warn, sandbox: Limits | None,
                   capture_dir: Path | None, label: str) -> Strategy:
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
        fs = SandboxFunctionSet("py", path, k, sandbox, capture_dir=capture_dir, warn=warn, label=label)
        if person_on(raw):
            warn(person_note(path))
    else:
        fs = _read_python(path, k, warn)
    return FunctionSetStrategy(fs, k, name=f"{path.name}:{k}")


def _read_python(path: Path, k: int, warn: Warn, execute: bool = True) -> ModuleFunctionSet:
    """``ModuleFunctionSet``, with a file that exhausts the parser (100,000 unary minus signs ...) as one line."""
    try:
        return ModuleFunctionSet(path, k, warn, execute=execute)
    except (MemoryError, RecursionError) as e:
        raise PlayerSpecError(f"{readable(path)}: the file cannot be parsed ({type(e).__name__}: it is too deeply "
                              "nested or too long)") from None


def _c_player(path: Path, kind: SourceKind, k: int, warn: Warn, sandbox: Limits | None, capture_dir: Path | None,
              label: str) -> Strategy:
    # A C++ file's global objects own heap memory that a snapshot of its statics cannot restore: it always plays
    # in a box, a new program for every match.  Only a C file played in process needs its cffi module.
    built = build_c(path, kind, warn, module=sandbox is None and kind == SourceKind.C)
    missing = missing_functions(built, k)
    if missing:
        raise PlayerSpecError(f"{readable(path)} has no function set {k} (missing: {', '.join(missing)})")
    if sandbox is None and kind == SourceKind.CPP:
        sandbox = Limits()
    fs: FunctionSet
    if sandbox is not None:
        fs = SandboxFunctionSet("c", built, k, sandbox, capture_dir=capture_dir, warn=warn, label=label,
                                source_name=path.name)
    else:
        fs = CFunctionSet(load_student(built), k, label, capture_dir, source_name=path.name)
    return FunctionSetStrategy(fs, k, name=f"{path.name}:{k}")
