"""Rule sets: the ``Rules`` dataclass and its named presets, of which ``course`` is the first.

``course`` is the 21点 course game as ``RULES.md`` reads it.  The other presets change one rule
each; they exist so that the engine, its tests and the benchmarks can show what each rule is worth.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from twentyone.errors import RulesError

__all__ = ["Rules", "PRESETS", "COURSE", "get_rules", "MAX_SEED"]

#: The largest match seed: seeds are 0 .. 2^64-1.
MAX_SEED = 2**64 - 1


@dataclass(frozen=True)
class Rules:
    """Every number and switch the engine plays by."""

    name: str = "course"
    start_money: int = 1000
    min_bet: int = 10
    max_shoes: int = 5
    rounds_per_seat: int = 50
    #: Reshuffle after a round when fewer than ``reshuffle_den``-th of the shoe remains.
    reshuffle_den: int = 4
    blackjack_pays: Fraction = Fraction(2)
    insurance_pays: int = 2
    dealer_hits_soft_17: bool = False
    surrender: bool = True
    min_decks: int = 1
    max_decks: int = 8
    max_seats: int = 5

    def check_table(self, decks: int, seats: int) -> None:
        """Raise RulesError if ``decks`` or ``seats`` is outside what these rules allow."""
        if not isinstance(decks, int) or not self.min_decks <= decks <= self.max_decks:
            raise RulesError(f"decks out of range: {decks!r} ({self.min_decks} .. {self.max_decks})")
        if not isinstance(seats, int) or not 1 <= seats <= self.max_seats:
            raise RulesError(f"seats out of range: {seats!r} (1 .. {self.max_seats})")

    def blackjack_return(self, bet: int) -> int:
        """Money handed back for a winning Black Jack on ``bet``: the stake plus the payout."""
        return bet + int(bet * self.blackjack_pays)


COURSE = Rules()
PRESETS: dict[str, Rules] = {
    "course": COURSE,
    "course-h17": replace(COURSE, name="course-h17", dealer_hits_soft_17=True),
    "course-3to2": replace(COURSE, name="course-3to2", blackjack_pays=Fraction(3, 2)),
    "course-nosurrender": replace(COURSE, name="course-nosurrender", surrender=False),
}


def get_rules(name: str) -> Rules:
    """Return the preset called ``name``, or raise RulesError listing the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown rules: {name!r} (known: {', '.join(PRESETS)})") from None
