"""Evaluate a built-in player by the course's measure: how often it finishes first, with Wilson intervals.

``python -m twentyone.grading.evaluate [--evaluate] [--against stand,basic,hilo,basic*4] [--matches N]``
prints ``champion``'s own forecast (its dynamic program's value from level money) and, with
``--evaluate``, plays duplicate-seed matches against each opponent: seed ``seed + i`` is played once with
the player at each seat in turn; a win is ranking first alone, a shared first counts half.  These are
the figures the README reports for ``champion`` (issue 13).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence

from twentyone.grading.stats import wilson
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import BUILTINS
from twentyone.players.builtin.champion import D_LO, OPPONENT_MODELS, Champion, tables_for
from twentyone.rules import COURSE
from twentyone.strategy import Strategy

__all__ = ["evaluate", "main"]


def evaluate(opponent: str, matches: int, seed: int = 1, seats: int = 2, decks: int = 6,
             player: Callable[[], Strategy] = Champion) -> tuple[float, int]:
    """(wins, matches) of ``player`` at tables of ``seats`` with ``seats - 1`` copies of ``opponent``.

    Duplicate seeds: seed ``seed + i`` is played once with the player at each seat in turn (so
    ``matches`` is rounded down to a multiple of ``seats``).  A win is ranking first alone; first
    shared with others counts half.  ``opponent`` is a built-in name (``stand``, ``basic``, ``hilo``,
    ``champion``).
    """
    make = BUILTINS[opponent]
    wins = 0.0
    played = 0
    for i in range(matches // seats):
        for at in range(seats):
            seatings = [Seating(f"p{k + 1}", opponent, make()) for k in range(seats)]
            seatings[at] = Seating(f"p{at + 1}", "champion", player())
            result = play_match(seatings, decks, seed + i)
            top = [s.seat for s in result.ranking if s.rank == 1]
            if at + 1 in top:
                wins += 1.0 if len(top) == 1 else 0.5
            played += 1
    return wins, played


class _EVHands(Champion):
    """``champion`` with every hand played EV-best: what the dynamic program assumes."""

    name = "champion (EV hands)"
    critical = float("inf")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m twentyone.grading.evaluate --evaluate``: the figures of the README, with their intervals."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m twentyone.grading.evaluate", description=main.__doc__)
    parser.add_argument("--evaluate", action="store_true", help="play the evaluation matches")
    parser.add_argument("--against", default="stand,basic,hilo,basic*4",
                        help="comma-separated opponents; NAME*4 is a 5-seat table with four NAMEs")
    parser.add_argument("--matches", type=int, default=2000, help="matches per opponent (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--ev-hands", action="store_true",
                        help="play every hand EV-best (bets still by the program): the program's own assumption")
    args = parser.parse_args(argv)
    specs = args.against.split(",")
    for spec in specs:
        name, _, times = spec.partition("*")
        if name not in BUILTINS or not (times == "" or times in ("1", "2", "3", "4")):
            parser.error(f"unknown opponent: {spec!r} (a built-in name, optionally *1 .. *4)")
    player = _EVHands if args.ev_hands else Champion
    rounds = (COURSE.rounds_per_seat or 50) * 2
    for model in OPPONENT_MODELS:
        v = tables_for(model)
        v.upto(rounds)
        print(f"dynamic program, 2 seats, {rounds} rounds, opponent playing {model!r}: "
              f"P(finish ahead) = {v.lists[rounds][-D_LO]:.1%} from level money")
    if not args.evaluate:
        return 0
    for spec in specs:
        name, _, times = spec.partition("*")
        seats = int(times) + 1 if times else 2
        start = time.perf_counter()
        wins, n = evaluate(name, args.matches, args.seed, seats, args.decks, player)
        rate, low, high = wilson(wins, n)
        print(f"{player.name} vs {spec}: {rate:.1%} [{low:.1%}, {high:.1%}], {wins:g} wins of {n} matches "
              f"({'rank 1 of ' + str(seats) if seats > 2 else 'ties half'}, seed {args.seed}, "
              f"{time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
