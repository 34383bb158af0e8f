"""Shoe compositions and hands for the exact analyser: how many A, 2..9 and ten-valued cards remain.

A composition is written ``A:24,2:24,3:24,4:24,5:24,6:24,7:24,8:24,9:24,T:96`` (ranks not named are 0;
``10``, ``J``, ``Q`` and ``K`` add to ``T``), or as the remaining cards themselves, ``AAT5K9...``.
Only ranks matter to the analysis, so J, Q and K are counted as T everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from twentyone.errors import BadCardsError

__all__ = ["RANKS", "Shoe", "rank_index", "parse_card", "parse_hand", "hand_counts"]

#: The analyser's ranks in index order (the C core's order): ace, two .. nine, ten-valued.
RANKS: Final = "A23456789T"
_INDEX: Final[dict[str, int]] = {**{c: i for i, c in enumerate(RANKS)}, "J": 9, "Q": 9, "K": 9, "10": 9}


def rank_index(card: str) -> int:
    """The rank index (0 = A .. 9 = ten-valued) of a card code, or raise BadCardsError."""
    try:
        return _INDEX[card.upper()]
    except KeyError:
        raise BadCardsError(f"bad card code: {card!r} (A 2..9 T J Q K)") from None


def parse_card(text: str) -> str:
    """One card (``A``, ``2``..``9``, ``T``/``10``/``J``/``Q``/``K``) as its rank letter."""
    return RANKS[rank_index(text.strip())]


def parse_hand(text: str) -> str:
    """A hand such as ``T6``, ``10-6``, ``A,7`` or ``k 6`` as rank letters (``T6``); two cards or more."""
    cards = [RANKS[rank_index(t)] for t in re.findall(r"10|\S", re.sub(r"[\s,;+\-/]", "", text))]
    if len(cards) < 2:
        raise BadCardsError(f"a hand needs two cards or more: {text!r}")
    if sum(1 if c == "A" else 10 if c == "T" else int(c) for c in cards) > 21:
        raise BadCardsError(f"hand is already bust: {text!r}")
    return "".join(cards)


def hand_counts(cards: str) -> tuple[int, ...]:
    """Counts by rank index of the cards in ``cards``."""
    counts = [0] * 10
    for c in cards:
        counts[rank_index(c)] += 1
    return tuple(counts)


@dataclass(frozen=True)
class Shoe:
    """The unseen cards: ``counts[i]`` cards of rank ``RANKS[i]``."""

    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.counts) != 10 or any(not isinstance(n, int) or n < 0 for n in self.counts):
            raise BadCardsError(f"a shoe is ten counts of 0 or more (A, 2..9, T): {self.counts!r}")
        if self.total < 3:
            raise BadCardsError(f"shoe too small to deal a round: {self.total} cards ({self})")

    @classmethod
    def decks(cls, decks: int) -> Shoe:
        """A full shoe of ``decks`` 52-card decks."""
        if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 5000:
            raise BadCardsError(f"decks out of range: {decks!r} (1 .. 5000)")
        return cls(tuple([4 * decks] * 9 + [16 * decks]))

    @classmethod
    def of_counts(cls, counts: Iterable[int]) -> Shoe:
        """The shoe with these ten counts."""
        return cls(tuple(counts))

    @classmethod
    def parse(cls, text: str) -> Shoe:
        """Read ``A:24,2:24,...,T:96`` or the remaining cards ``AAT5...``; BadCardsError names the fault."""
        spec = text.strip()
        if not spec:
            raise BadCardsError("empty shoe composition")
        counts = [0] * 10
        if ":" in spec:
            seen: set[str] = set()
            for part in re.split(r"[,\s]+", spec):
                if not part:
                    continue
                rank, sep, num = part.partition(":")
                if not sep or not num.strip().isdigit():
                    raise BadCardsError(f"bad shoe entry {part!r} in {text!r} (RANK:COUNT, e.g. T:96)")
                key = rank.strip().upper()
                if key in seen:
                    raise BadCardsError(f"rank {key!r} given twice in {text!r}")
                seen.add(key)
                counts[rank_index(key)] += int(num)
        else:
            for c in re.findall(r"10|\S", re.sub(r"[\s,]", "", spec)):
                counts[rank_index(c)] += 1
        return cls(tuple(counts))

    @property
    def total(self) -> int:
        """Number of cards."""
        return sum(self.counts)

    def count(self, card: str) -> int:
        """Cards of the rank of ``card``."""
        return self.counts[rank_index(card)]

    def without(self, cards: str) -> Shoe:
        """This shoe less ``cards``; BadCardsError if the shoe does not hold them."""
        counts = list(self.counts)
        for c in cards:
            i = rank_index(c)
            counts[i] -= 1
            if counts[i] < 0:
                raise BadCardsError(f"the shoe has no {RANKS[i]} left for {cards!r} ({self})")
        return Shoe(tuple(counts))

    def holds(self, cards: str) -> bool:
        """True if ``cards`` can all be dealt from this shoe."""
        need = hand_counts(cards)
        return all(n <= have for n, have in zip(need, self.counts))

    def is_full_decks(self) -> int:
        """The number of decks if this is an untouched shoe, else 0."""
        d = self.counts[0] // 4
        return d if d >= 1 and self.counts == Shoe.decks(d).counts else 0

    def __str__(self) -> str:
        return ",".join(f"{r}:{n}" for r, n in zip(RANKS, self.counts))
