"""Turn a ``--player`` SPEC into a seated strategy.

SPEC is one of ``stand``, ``basic``, ``hilo``, ``human``, ``path/to/file.py[:K]`` (a course-style
Python function set K, default 1, or a file defining ``STRATEGY``, a ``Strategy`` subclass or
instance) or ``path/to/mycodes.c[:K]`` (a student's C file, compiled through cffi).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twentyone.errors import PlayerSpecError
from twentyone.records import Banker, Player
from twentyone.strategy import FunctionSetStrategy, Strategy

__all__ = ["parse_spec", "make_strategy", "ModuleFunctionSet", "FUNCTION_NAMES", "BUILTIN_NAMES"]

FUNCTION_NAMES = ("bet", "first_action", "continue_action", "show")
BUILTIN_NAMES = ("stand", "basic", "hilo", "champion", "human")


_warned: set[str] = set()


def _stderr_warn(message: str) -> None:
    """Print a warning once: a file seated at several seats warns once, not once per seat."""
    if message not in _warned:
        _warned.add(message)
        print(f"twentyone: warning: {message}", file=sys.stderr)


def parse_spec(spec: str) -> tuple[str, int | None]:
    """Split ``path[:K]`` into the path and K (None when not given); K must be 1..5."""
    head, sep, tail = spec.rpartition(":")
    if sep and tail.isdigit() and head:
        k = int(tail)
        if not 1 <= k <= 5:
            raise PlayerSpecError(f"function set out of range in player {spec!r}: {k} (1 .. 5)")
        return head, k
    return spec, None


def _read_source(path: Path, spec: str) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise PlayerSpecError(f"cannot read player file {spec!r}: it is a directory") from None
    except OSError as e:
        raise PlayerSpecError(f"cannot read player file {spec!r}: {e.strerror or e}") from None


class ModuleFunctionSet:
    """A course function set K from a Python file; ``reset`` re-runs the file for fresh globals."""

    def __init__(self, path: Path, k: int, warn: Callable[[str], None] = _stderr_warn,
                 execute: bool = True) -> None:
        """Read and compile the file; run it now unless ``execute`` is False (the sandbox runs it later)."""
        self.path = path
        self.k = k
        raw = _read_source(path, str(path))
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("gbk", errors="replace")
        try:
            self._code = compile(text, str(path), "exec")
        except SyntaxError as e:
            raise PlayerSpecError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
        self._warned = False
        self._warn = warn
        if execute:
            self.reset()
        else:
            import ast

            defined = {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
            missing = [f"{n}{k}" for n in FUNCTION_NAMES if f"{n}{k}" not in defined]
            if missing:
                raise PlayerSpecError(f"{path} has no function set {k} (missing: {', '.join(missing)})")

    def reset(self) -> None:
        """Run the file again in a fresh module, so its globals start at their initial values."""
        module = types.ModuleType(f"_twentyone_player_{abs(hash(str(self.path)))}")
        module.__file__ = str(self.path)
        ns = module.__dict__
        try:
            exec(self._code, ns)  # noqa: S102 - running the player's own file is the point
        except Exception as e:
            raise PlayerSpecError(f"{self.path}: running the file raised {type(e).__name__}: {e}") from None
        if ns.get("PERSON"):
            ns["PERSON"] = False
            if not self._warned:
                self._warned = True
                self._warn(f"{self.path}: PERSON is on; playing automatically (the file is not changed)")
        self._ns = ns
        k = self.k
        missing = [f"{n}{k}" for n in FUNCTION_NAMES if not callable(ns.get(f"{n}{k}"))]
        if missing:
            raise PlayerSpecError(f"{self.path} has no function set {k} (missing: {', '.join(missing)})")
        self.bet: Callable[[int], int] = ns[f"bet{k}"]
        self.first_action: Callable[[str, int], str] = ns[f"first_action{k}"]
        self.continue_action: Callable[[list[Player]], str] = ns[f"continue_action{k}"]
        self.show: Callable[[Banker, list[Player], int, int, int], None] = ns[f"show{k}"]

    def close(self) -> None:
        """Nothing to release."""


def _python_player(path: Path, k: int | None, spec: str, warn: Callable[[str], None],
                   sandbox: Any = None, capture_dir: Path | None = None) -> Strategy:
    if k is None and sandbox is not None and b"STRATEGY" in _read_source(path, spec):
        raise PlayerSpecError(f"{spec}: a STRATEGY class runs in process only; seat it with --trusted, "
                              "or write it as function sets (bet1, first_action1, ...)")
    if sandbox is not None:
        from twentyone.sandbox import SandboxFunctionSet

        k = k or 1
        ModuleFunctionSet(path, k, warn, execute=False)  # one clear line now if it is unusable
        from twentyone.submissions import safe_name

        fs = SandboxFunctionSet("py", path, k, sandbox, capture_dir=capture_dir, warn=warn, label=safe_name(path))
        return FunctionSetStrategy(fs, k, name=f"{path.name}:{k}")
    if k is None:
        raw = _read_source(path, spec)
        if b"STRATEGY" in raw:
            ns: dict[str, Any] = {"__file__": str(path), "__name__": "_twentyone_strategy"}
            try:
                exec(compile(raw, str(path), "exec"), ns)  # noqa: S102
            except SyntaxError as e:
                raise PlayerSpecError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
            except Exception as e:
                raise PlayerSpecError(f"{path}: running the file raised {type(e).__name__}: {e}") from None
            obj = ns.get("STRATEGY")
            if isinstance(obj, type) and issubclass(obj, Strategy):
                return obj()
            if isinstance(obj, Strategy):
                return obj
            raise PlayerSpecError(f"{path}: STRATEGY is not a twentyone.strategy.Strategy")
        k = 1
    return FunctionSetStrategy(ModuleFunctionSet(path, k, warn), k, name=f"{path.name}:{k}")


def make_strategy(spec: str, warn: Callable[[str], None] = _stderr_warn, *, sandbox: Any = None,
                  capture_dir: Path | None = None, **options: Any) -> Strategy:
    """Return a fresh strategy for ``spec``; raise PlayerSpecError with one clear line if it can't.

    ``sandbox`` (a ``twentyone.sandbox.Limits``) runs a file's strategy in a worker process under those
    limits; None runs it in this process (trusted).  Built-in players always run in process.
    ``capture_dir`` receives what a file's strategy prints, one file per match.
    """
    from mycodes.builtin import BUILTINS

    if spec in BUILTINS:
        return BUILTINS[spec]()
    if spec == "human":
        from twentyone.terminal import Human

        return Human(**{k: v for k, v in options.items() if k in ("lang",)})
    target, k = parse_spec(spec)
    path = Path(target).expanduser()
    suffix = path.suffix.lower()
    if suffix == ".py":
        return _python_player(path.resolve(), k, spec, warn, sandbox, capture_dir)
    if suffix == ".c":
        from twentyone.cplayer import c_strategy

        return c_strategy(path.resolve(), k or 1, warn=warn, sandbox=sandbox, capture_dir=capture_dir)
    known = ", ".join(BUILTIN_NAMES)
    raise PlayerSpecError(f"unknown player {spec!r} (use {known}, a .py file or a .c file, optionally :K)")
