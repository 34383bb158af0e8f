"""The CPU time each decision of the real hand-ins takes (RULES.md, **grade_decision_limit**).

Run as ``python -m tests.decisions [--matches N]``: every C and Python hand-in of ``tests/fixtures/`` that plays
(not the hostile ones, nor the looping and sleeping ones, whose time is what the limit is for) plays N matches
against ``stand`` in this process; each call of its function set is timed in CPU time (``time.thread_time_ns``),
and the median, the 99.9th percentile and the slowest are printed, slowest last.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.spec import make_strategy
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["Timed", "hand_ins", "main"]

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: Hand-ins whose time is the point (they loop or sleep), or that attack the sandbox.
SKIPPED = ("looper", "aces_looper", "sleeper", "sleep_show", "hostile", "escape")


class Timed(Strategy):
    """A strategy whose every call is timed in CPU time (nanoseconds, in ``times``)."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.course_interface = inner.course_interface
        self.times: list[int] = []

    def _timed(self, call: Callable[[SeatView], Any], view: SeatView) -> Any:
        start = time.thread_time_ns()
        out = call(view)
        self.times.append(time.thread_time_ns() - start)
        return out

    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        self.inner.start_match(match, decks, seats, seat)

    def bet(self, view: SeatView) -> int:
        return int(self._timed(self.inner.bet, view))

    def first_action(self, view: SeatView) -> str:
        return str(self._timed(self.inner.first_action, view))

    def continue_action(self, view: SeatView) -> str:
        return str(self._timed(self.inner.continue_action, view))

    def show(self, view: SeatView) -> None:
        self._timed(self.inner.show, view)

    def show_before_bet(self, view: SeatView) -> None:
        self._timed(self.inner.show_before_bet, view)


def hand_ins() -> list[Path]:
    """Every real hand-in of the fixtures: the hand-in folders' ``mycodes.c``, the C students, the similarity
    fixtures and the Python files, less ``SKIPPED``."""
    found = [*FIXTURES.glob("handins/**/mycodes.c"), *FIXTURES.glob("c/students/*.c"),
             *FIXTURES.glob("similar/*/mycodes.c"), *FIXTURES.glob("py/*.py")]
    return sorted(p for p in found if not any(s in p.parts or p.stem == s for s in SKIPPED)
                  and "backup" not in p.parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--matches", type=int, default=20, help="matches against stand per hand-in (default 20)")
    args = p.parse_args(argv)
    rows = []
    for path in hand_ins():
        try:
            timed = Timed(make_strategy(f"{path}:1", warn=lambda m: None))
        except TwentyOneError as e:
            print(f"{path.relative_to(FIXTURES)}: not played ({e})")
            continue
        for seed in range(args.matches):
            play_match([Seating("x", "x", timed), Seating("stand", "stand", Stand())], 6, seed)
        t = sorted(timed.times)
        rows.append((t[-1], str(path.relative_to(FIXTURES)), len(t), t[len(t) // 2], t[int(len(t) * 0.999)]))
    for slowest, name, calls, median, p999 in sorted(rows):
        print(f"{name:48s} {calls:6d} calls: median {median / 1000:7.1f} us, 99.9% {p999 / 1000:8.1f} us, "
              f"slowest {slowest / 1000:8.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
