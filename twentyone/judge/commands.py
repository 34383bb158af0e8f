"""``twentyone judge``: the judge problem of seed 004 on the command line.

    twentyone judge solution.cpp [--seed S] [--tests 5] [--json]   the five-test verdict
    twentyone judge solution.cpp --local                           the statement's local testing tool
    twentyone judge a.cpp b.cpp ... --out DIR [--resume]           a class on the same seeds, with its page

JUDGE.md is the manual.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from twentyone.isolation import int_range
from twentyone.errors import TwentyOneError

__all__ = ["add_parsers", "run"]




def add_parsers(sub: Any) -> None:
    """Add the ``judge`` command to the ``twentyone`` command line."""
    from twentyone.judge.solutions import BUILTINS
    from twentyone.rules import MAX_SEED

    j = sub.add_parser("judge", help="judge solutions of the interactive judge problem (seed 004, Blackjack.h)",
                       description="Judge Blackjack.h solutions of the judge problem of seed 004: 5000 decks, "
                                   "10^6 to start, a test won above 1.3x10^6; Accepted when every test is won. "
                                   "See twentyone/judge/JUDGE.md.")
    j.add_argument("solutions", nargs="*", metavar="SOLUTION",
                   help="a .cpp file (run in the sandbox), a .py file written against twentyone.judge.blackjack "
                        "(with --trusted), or a built-in: " + "; ".join(f"{k}: {v}" for k, v in BUILTINS.items()))
    j.add_argument("--seed", "-s", type=int_range(0, MAX_SEED, "seed"), default=None,
                   help="the first test's shoe seed; test k plays seed S+k-1 (default: random, printed)")
    j.add_argument("--tests", "-t", type=int_range(1, 1_000_000, "tests"), default=5,
                   help="tests to play (5, as the statement's judge)")
    j.add_argument("--json", action="store_true", help="print the result as JSON")
    j.add_argument("--local", action="store_true",
                   help="the statement's local testing tool: one test, its seed read from standard input, "
                        "then Accepted or Wrong_answer and the message")
    j.add_argument("--out", type=Path, metavar="DIR", help="judge a class: results.sqlite, index.html and CSV here")
    j.add_argument("--resume", action="store_true", help="with --out: continue the run stored there")
    j.add_argument("--trusted", action="store_true", help="allow .py solutions, which run in this process")
    j.add_argument("--cpu-seconds", type=int_range(1, 3600, "--cpu-seconds"), default=10,
                   help="CPU seconds a C++ solution may use in one test (10)")
    j.add_argument("--wall-seconds", type=float, default=0.0, metavar="SECONDS",
                   help="wall-clock backstop of a test (default 3x --cpu-seconds + 10)")
    j.add_argument("--workers", "-j", type=int_range(1, 256, "workers"), default=1, metavar="N",
                   help="play tests in N processes (1)")
    j.add_argument("--output-dir", type=Path, default=None, metavar="DIR",
                   help="where each test's standard error goes, capped at 1 MiB (default: --out DIR/stderr, "
                        "else ~/.cache/twentyone/output/judge)")
    j.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    j.set_defaults(judge_run=run)


def _limits(args: argparse.Namespace) -> Any:
    from twentyone.judge.boxed import JudgeLimits
    from twentyone.players.sandbox.limits import check_timeout

    wall = check_timeout("--wall-seconds", args.wall_seconds) if args.wall_seconds else 0.0
    return JudgeLimits(cpu_seconds=args.cpu_seconds, wall_seconds=wall)


def _stderr_dir(args: argparse.Namespace) -> Path:
    if args.output_dir is not None:
        return Path(args.output_dir)
    if args.out is not None:
        return Path(args.out) / "stderr"
    from twentyone.players.c.build import output_dir

    return output_dir() / "judge"


def run(args: argparse.Namespace) -> int:
    """Run ``twentyone judge`` as ``args`` ask; the exit status."""
    from twentyone.judge.solutions import solution

    if not args.solutions and not args.resume:
        raise TwentyOneError("no solution: give a .cpp file (or .py with --trusted, or sample, strong, strong-bold)")
    if args.local and args.out is not None:
        raise TwentyOneError("--local plays one test of one solution: it takes no --out")
    if args.resume and args.out is None:
        raise TwentyOneError("--resume continues a class run: give its --out DIR")
    if args.out is None and len(args.solutions) > 1 and not args.local:
        raise TwentyOneError(f"{len(args.solutions)} solutions: judge a class with --out DIR")
    if args.local and len(args.solutions) != 1:
        raise TwentyOneError("--local plays one solution")
    limits = _limits(args)
    if args.out is not None:
        from twentyone.judge.classrun import judge_class

        return judge_class(args.solutions, args.out, args.seed, args.tests, args.resume, args.trusted, limits,
                           _stderr_dir(args), args.workers, quiet=args.quiet, as_json=args.json)
    sol = solution(args.solutions[0], args.trusted, limits, _stderr_dir(args))
    if args.local:
        return _local(sol)
    return _single(sol, args)


def _read_seed() -> int:
    """The local tool's input: one line, a positive whole number, the seed."""
    from twentyone.rules import MAX_SEED

    text = sys.stdin.readline()
    word = text.strip()
    if not word.isdigit() or not 1 <= int(word) <= MAX_SEED:
        shown = word[:40] or "nothing"
        raise TwentyOneError(f"--local reads one positive whole number, the seed, from standard input; got {shown!r}")
    return int(word)


def _local(sol: Any) -> int:
    """The statement's local testing tool: the seed from standard input, ``Accepted`` or ``Wrong_answer`` and its
    message."""
    from twentyone.judge.verdict import Judgement

    seed = _read_seed()
    sol.prepare(warn=_warn)
    result = sol.test(seed)
    if result.won:
        print("Accepted")
        print(result.reason())
        return 0
    j = Judgement(sol.name, sol.spec, sol.kind, [seed], [result])
    print("Wrong_answer")
    print(j.results[0].reason())
    return 1


def _warn(message: str) -> None:
    print(f"twentyone: warning: {message}", file=sys.stderr)


def _single(sol: Any, args: argparse.Namespace) -> int:
    from twentyone.judge.solutions import test_seeds
    from twentyone.judge.verdict import Judgement

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    seeds = test_seeds(seed, args.tests)
    sol.prepare(warn=_warn)
    each = not args.quiet and not args.json and args.tests <= 20

    def progress(done: int, r: Any) -> None:
        if each:
            print(f"test {done} (seed {r.seed}): {r.reason()} [{r.seconds:.2f} s]", flush=True)

    results = sol.tests(seeds, args.workers, progress if args.workers <= 1 else None)
    j = Judgement(sol.name, sol.spec, sol.kind, seeds, results)
    if args.json:
        print(json.dumps(j.to_dict(), ensure_ascii=False))
    else:
        lines = j.lines(each=each and args.workers > 1)
        for line in lines:
            print(line)
        bad = j.first_failure()
        if bad is not None and not args.quiet:
            spec = sol.spec if " " not in sol.spec else repr(sol.spec)
            print(f"replay test {bad[0]}: echo {bad[1].seed} | twentyone judge {spec} --local"
                  + (" --trusted" if sol.kind == "py" else ""))
    return 0 if j.verdict == "Accepted" else 1
