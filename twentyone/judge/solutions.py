"""What ``twentyone judge`` can judge, and how one test of each is played.

A solution is given as:

- a C++ file (``.cpp``, ``.cc``, ``.cxx``): built with the project's ``Blackjack.h`` and run in the sandbox,
  a fresh box per test (``judge.boxed``);
- a Python file (``.py``) written against ``judge.blackjack``: run in this process, so only with
  ``--trusted`` (there is no sandbox for the Python form);
- a built-in: ``sample`` (the statement's sample solution, ``data/sample.cpp``, built and boxed like any
  C++ file), ``strong`` (the project's strong solution, ``judge.strong``, in process), ``strong-wait`` or
  ``strong-bold`` (its variants).

``Solution.test(seed)`` plays one test and returns its ``TestResult``; ``Solution.tests(seeds, workers)``
plays several, in worker processes when asked.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from twentyone.errors import PlayerSpecError, strategy_text
from twentyone.judge.boxed import JudgeLimits
from twentyone.judge.game import Game, JudgeStop, TestResult

__all__ = ["Solution", "solution", "BUILTINS", "SAMPLE", "CPP_SUFFIXES", "test_seeds"]

#: The statement's sample solution, as shipped.
SAMPLE: Final = Path(__file__).resolve().parent / "data" / "sample.cpp"
#: Built-in solutions by name, and what they are.
BUILTINS: Final = {
    "sample": "the statement's sample solution (C++, in the sandbox)",
    "strong": "the project's strong solution: the exact analyser's decisions off the composition seen, bets from a "
              "table that maximises the chance to reach the target (in process)",
    "strong-wait": "the strong solution's decisions, bets of 2 until the end of the shoe, then what the target needs "
                   "whenever the composition's EV is high (in process)",
    "strong-bold": "the strong solution's decisions, betting what the target needs from the first hand (bold play, "
                   "in process)",
}
CPP_SUFFIXES: Final = (".cpp", ".cc", ".cxx", ".c++")


def test_seeds(seed: int, tests: int) -> list[int]:
    """The shoe seeds of a run: ``seed``, ``seed + 1``, ... (a test is named by its seed: ``--local`` replays it)."""
    from twentyone.rules import MAX_SEED

    if not 0 <= seed <= MAX_SEED - tests + 1:
        raise PlayerSpecError(f"seed out of range: {seed} (0 .. {MAX_SEED - tests + 1} for {tests} tests)")
    return [seed + i for i in range(tests)]


@dataclass
class Solution:
    """A solution to judge: its name (for tables and files), what was given, its kind and file."""

    name: str
    spec: str
    kind: str  # "cpp", "py" or "builtin"
    path: Path | None = None
    limits: JudgeLimits = field(default_factory=JudgeLimits)
    #: Where each test's standard error goes (a folder; None: nowhere).
    stderr_dir: Path | None = None
    _program: Path | None = None
    _source: bytes | None = None

    def prepare(self, warn: Callable[[str], None] | None = None) -> None:
        """Build a C++ solution (or find its cached build), read a Python one: CompileError or PlayerSpecError,
        one line, when it cannot be judged."""
        if self.kind == "cpp" and self._program is None:
            from twentyone.judge.boxed import build
            from twentyone.players.spec import confinable

            assert self.path is not None
            confinable()  # a host where any of the doctor's probes got out runs no solution (one line)
            self._program = build(self.path, warn)
        elif self.kind == "py" and self._source is None:
            assert self.path is not None
            try:
                self._source = self.path.read_bytes()
            except OSError as e:
                raise PlayerSpecError(f"cannot read solution {str(self.path)!r}: {e.strerror or e}") from None
            try:
                compile(self._source, str(self.path), "exec")
            except (SyntaxError, ValueError) as e:
                raise PlayerSpecError(f"{self.path}: not Python: {e}") from None

    def stderr_path(self, seed: int) -> Path | None:
        if self.stderr_dir is None:
            return None
        return self.stderr_dir / f"{self.name}-seed{seed}.stderr"

    def test(self, seed: int, game: Game | None = None) -> TestResult:
        """Play one test: shoe ``seed`` (or the stacked ``game``)."""
        self.prepare()
        if self.kind == "cpp":
            from twentyone.judge.boxed import run_test

            assert self._program is not None
            return run_test(self._program, seed, self.limits, self.stderr_path(seed), game)
        game = game if game is not None else Game(seed)
        start = time.perf_counter()
        if self.kind == "py":
            result = _run_python(game, self.path or Path(self.spec), self._source or b"")
        else:
            result = _run_strong(game, self.spec)
        result.seconds = time.perf_counter() - start
        return result

    def tests(self, seeds: Sequence[int], workers: int = 1,
              progress: Callable[[int, TestResult], None] | None = None) -> list[TestResult]:
        """Play the tests of ``seeds`` in order (``workers`` processes when above 1); ``progress`` is told of each
        as it ends."""
        self.prepare()
        if workers <= 1 or len(seeds) < 2:
            out = []
            for s in seeds:
                r = self.test(s)
                out.append(r)
                if progress is not None:
                    progress(len(out), r)
            return out
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if self.spec.startswith("strong"):
            from twentyone.judge.strong import ev_model

            ev_model()  # fitted once here; the workers inherit it
        chunks = [list(seeds[i::workers]) for i in range(workers)]
        results: dict[int, TestResult] = {}
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_chunk, self, chunk) for chunk in chunks if chunk]
            for fut in futures:
                for r in fut.result():
                    results[r.seed] = r
                    if progress is not None:
                        progress(len(results), r)
        return [results[s] for s in seeds]


def _chunk(sol: Solution, seeds: list[int]) -> list[TestResult]:
    """A worker's share of the tests."""
    from twentyone.players.sandbox.cpus import release

    release()
    return [sol.test(s) for s in seeds]


def solution(spec: str, trusted: bool = False, limits: JudgeLimits = JudgeLimits(),
             stderr_dir: Path | None = None) -> Solution:
    """The solution ``spec`` names: a built-in name or a file; PlayerSpecError (one line) when it names none."""
    if spec in BUILTINS:
        if spec == "sample":
            return Solution("sample", spec, "cpp", SAMPLE, limits, stderr_dir)
        return Solution(spec, spec, "builtin", None, limits, stderr_dir)
    path = Path(spec)
    name = _name_of(path)
    suffix = path.suffix.lower()
    if not path.exists():
        raise PlayerSpecError(f"no such solution: {spec!r} (a .cpp or .py file, or {', '.join(BUILTINS)})")
    if path.is_dir():
        raise PlayerSpecError(f"{spec!r} is a folder: give the solution's .cpp file")
    if suffix in CPP_SUFFIXES:
        return Solution(name, spec, "cpp", path, limits, stderr_dir)
    if suffix == ".py":
        if not trusted:
            raise PlayerSpecError(f"{spec}: a Python solution runs in this process, unconfined (the sandbox takes "
                                  "C++): add --trusted if you have read it")
        return Solution(name, spec, "py", path, limits, stderr_dir)
    raise PlayerSpecError(f"{spec}: not a solution file (a C++ .cpp file, or .py with --trusted)")


def _name_of(path: Path) -> str:
    """A name fit for a file and a table: the file's stem, or its folder's name when the stem is generic."""
    stem = path.stem
    if stem.lower() in ("blackjack", "solution", "main", "sol", "answer") and path.resolve().parent.name:
        stem = path.resolve().parent.name
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) or "solution"


# -- in process --------------------------------------------------------------------------------------------------

class _Guard(io.TextIOBase):
    """Standard input and output while a Python solution plays: any use is the illegal call it is."""

    def __init__(self, game: Game, what: str) -> None:
        self._game = game
        self._what = what

    def _refuse(self, *args: Any, **kw: Any) -> Any:
        self._game.refuse_io(self._what)

    write = read = readline = readlines = _refuse

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True


def _run_python(game: Game, path: Path, source: bytes) -> TestResult:
    """A Python solution's test, in this process: the file loaded afresh, then ``play()`` called hand after hand."""
    import sys

    from twentyone.judge import blackjack

    namespace: dict[str, Any] = {"__name__": "__judge_solution__", "__file__": str(path)}
    old_out, old_in = sys.stdout, sys.stdin
    blackjack.bind(game)
    sys.stdout, sys.stdin = _Guard(game, "wrote to standard output"), _Guard(game, "read from standard input")
    try:
        exec(compile(source, str(path), "exec"), namespace)
        play = namespace.get("play")
        if not callable(play):
            return game.stop(f"{path} defines no play()")
        while game.ending is None:
            game.begin_play()
            play()
            game.end_play()
    except JudgeStop:
        pass
    except Exception as e:  # noqa: BLE001 - the solution's own error ends its test, named
        return game.stop(f"play() raised {type(e).__name__}: {strategy_text(str(e))}, {game.place()}")
    finally:
        sys.stdout, sys.stdin = old_out, old_in
        blackjack.bind(None)
    return game.result()


def _run_strong(game: Game, spec: str) -> TestResult:
    """The strong solution's test, in this process."""
    from twentyone.judge.strong import Strong

    player = Strong(wait=spec == "strong-wait", bets="table" if spec == "strong" else "bold")
    try:
        while game.ending is None:
            game.begin_play()
            player.play(game)
            game.end_play()
    except JudgeStop:
        pass
    return game.result()
