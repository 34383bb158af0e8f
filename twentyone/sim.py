"""Expected value by simulation: one seat, a fresh shoe every hand, the engine's own rounds.

This is how the reference EVs of RULES.md ("Reference values") are defined (one player off the top of a full shoe),
so ``fresh_shoe_ev`` can be compared with them; the standard error comes with the mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from twentyone.core import Generator
from twentyone.rules import COURSE, Rules
from twentyone.strategy import Strategy
from twentyone.table import Table

__all__ = ["EV", "fresh_shoe_ev"]


@dataclass(frozen=True)
class EV:
    """A simulated expected value per initial bet, with its standard error."""

    hands: int
    mean: float
    se: float

    def __str__(self) -> str:
        return f"{100 * self.mean:+.4f}% ± {100 * self.se:.4f}% over {self.hands} hands"


def fresh_shoe_ev(make: Callable[[], Strategy], decks: int, hands: int, seed: int,
                  rules: Rules = COURSE, bet: int = 10) -> EV:
    """Play ``hands`` rounds for one seat, each from a freshly shuffled shoe, and return the EV."""
    strategy = make()
    table = Table([("ev", "ev", strategy)], decks, Generator(seed), rules)
    strategy.start_match(object(), decks, 1, 1)
    seat = table.seats[0]
    total = 0
    squares = 0
    for _ in range(hands):
        table.shuffle_cards()
        active = table.round_init()
        seat.account = 10 * bet
        table.play_round(active)
        d = seat.account - 10 * bet
        total += d
        squares += d * d
    mean = total / hands / bet
    var = squares / hands / (bet * bet) - mean * mean
    return EV(hands, mean, math.sqrt(max(var, 0.0) / hands))
