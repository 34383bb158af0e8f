"""Card codes and hand arithmetic: the course's one-character cards and ``calculate``.

Cards are the characters ``A 2 3 4 5 6 7 8 9 T J Q K``; T, J, Q and K count 10 and an A
counts 11 when that does not bust the hand, else 1.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from twentyone.errors import BadCardsError

__all__ = [
    "Rank",
    "RANKS",
    "TENS",
    "VALUE",
    "calculate",
    "hand_total",
    "BEST_TOTAL",
    "hand_value",
    "is_black_jack",
    "is_soft",
    "check_cards",
]


class Rank(StrEnum):
    """A card rank, spelled as the course spells it."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"


RANKS: Final = "A23456789TJQK"
TENS: Final = frozenset("TJQK")
#: Hard value of each card code (an A counts 1 here; ``hand_total`` adds the soft 10).
VALUE: Final[dict[str, int]] = {c: (1 if c == "A" else 10 if c in "TJQK" else int(c)) for c in RANKS}


def check_cards(cards: str) -> str:
    """Return ``cards`` unchanged, or raise BadCardsError naming the first bad code."""
    for c in cards:
        if c not in VALUE:
            raise BadCardsError(f"bad card code: {c!r} in {cards!r}")
    return cards


def hand_total(hard: int, has_ace: bool) -> int:
    """The best total of a hand with hard sum ``hard`` (aces as 1) and at least one ace if ``has_ace``.

    This is the soft-ace rule, written once: one ace counts 11 when that does not bust the hand.
    """
    return hard + 10 if has_ace and hard <= 11 else hard


#: ``hand_total`` as a table for the engine's hot path: ``BEST_TOTAL[has_ace][hard]``, one index instead of a
#: call.  A hand's hard sum stays below 64: one more card goes only to a total below 21.
BEST_TOTAL: tuple[tuple[int, ...], tuple[int, ...]] = (tuple(hand_total(h, False) for h in range(64)),
                                                       tuple(hand_total(h, True) for h in range(64)))


def hand_value(cards: str) -> tuple[int, bool]:
    """(best total, soft) of ``cards``: soft when an ace counts 11."""
    hard = 0
    for c in cards:
        hard += VALUE[c]
    total = hand_total(hard, "A" in cards)
    return total, total != hard


def calculate(cards: str) -> int:
    """The course's ``calculate``: the best total of ``cards``, aces as 11 where that does not bust."""
    hard = 0
    for c in cards:
        hard += VALUE[c]
    return hand_total(hard, "A" in cards)


def is_soft(cards: str) -> bool:
    """True if an ace in ``cards`` is counted as 11."""
    return hand_value(cards)[1]


def is_black_jack(cards: str) -> bool:
    """True for exactly two cards, an A and a ten-value card."""
    return len(cards) == 2 and "A" in cards and (cards[0] in TENS or cards[1] in TENS)
