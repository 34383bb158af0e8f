"""The exact value of the Monte Carlo course report's game (seed 003): one player who draws as the dealer
does (below 17, standing on soft 17) against the dealer, off a fresh shoe, scored as the report's text
scores it: +2 a win, +3 a win with a two-card 21, 0 a tie, -2 a loss.

The report compares totals only: a 21 ties a 21 whatever the cards, so a natural is not a Black Jack
that beats a three-card 21, and the dealer's natural does not beat the player's three-card 21 (RULES.md,
**montecarlo_ties**).  The analyser (``house_edge(..., strategy="mimic")``) counts those two cases as a
casino does; ``report_value`` starts from its value and corrects exactly these two cases, with the
probabilities ``twenty_one_cases`` computes combinatorially over the hands' compositions:

- the player's natural against the dealer's 21 of three cards or more (a casino pays 3:2, the report 0);
- the dealer's natural against the player's 21 of three cards or more (a casino takes the bet, the report 0).

``final_hands`` is the distribution of the hands a drawing rule ends with, by composition; it is exact and
independent of the order the two hands are dealt in, since each side's draws depend on its own cards only.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from twentyone.analysis.shoe import Shoe
from twentyone.rules import PRESETS, Rules

__all__ = ["final_hands", "twenty_one_cases", "report_value", "ReportValue", "SCORE_PER_BET"]

#: The report's scores are those of a bet of 2 (a win +2): the score of a game is 2 x the result per bet.
SCORE_PER_BET: Final = 2
_VALUE: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)  # by rank index: A, 2..9, ten-valued

Hand = tuple[int, ...]


def _total(hand: Hand) -> tuple[int, bool]:
    hard = sum(n * v for n, v in zip(hand, _VALUE))
    soft = hand[0] > 0 and hard <= 11
    return (hard + 10 if soft else hard), soft


def _draws(hand: Hand, hits_soft_17: bool) -> bool:
    t, soft = _total(hand)
    return t < 17 or (t == 17 and soft and hits_soft_17)


def final_hands(shoe: Shoe, hits_soft_17: bool = False) -> dict[Hand, Fraction]:
    """Every hand (counts by rank index) that drawing from ``shoe`` below 17 ends with, and its exact
    probability; the first two cards are drawn whatever they make."""
    counts = shoe.counts
    n = sum(counts)
    layer: dict[Hand, Fraction] = {(0,) * 10: Fraction(1)}
    final: dict[Hand, Fraction] = {}
    size = 0
    while layer:
        nxt: dict[Hand, Fraction] = {}
        for hand, p in layer.items():
            if size >= 2 and not _draws(hand, hits_soft_17):
                final[hand] = final.get(hand, Fraction(0)) + p
                continue
            left = n - size
            if left == 0:
                raise ValueError("the shoe ran out before the hand was complete")
            for i in range(10):
                k = counts[i] - hand[i]
                if k:
                    h = hand[:i] + (hand[i] + 1,) + hand[i + 1:]
                    nxt[h] = nxt.get(h, Fraction(0)) + p * Fraction(k, left)
        layer = nxt
        size += 1
    return final


def _without(shoe: Shoe, hand: Hand) -> Shoe:
    return Shoe(tuple(c - h for c, h in zip(shoe.counts, hand)))


def _natural(hand: Hand) -> bool:
    return sum(hand) == 2 and hand[0] == 1 and hand[9] == 1


@dataclass(frozen=True)
class TwentyOneCases:
    """The probabilities of the two cases a casino and the report score differently."""

    natural_against_21: Fraction
    twenty_one_against_natural: Fraction


def twenty_one_cases(shoe: Shoe, hits_soft_17: bool = False) -> TwentyOneCases:
    """P(player natural and dealer's 21 of 3+ cards), P(dealer natural and player's 21 of 3+ cards), both
    drawing below 17 from ``shoe``, the player's hand first."""
    counts = shoe.counts
    n = sum(counts)
    a, t = counts[0], counts[9]
    p_natural = Fraction(2 * a * t, n * (n - 1)) if n > 1 else Fraction(0)
    nat = (1,) + (0,) * 8 + (1,)
    first = Fraction(0)
    if p_natural:
        for hand, p in final_hands(_without(shoe, nat), hits_soft_17).items():
            if _total(hand)[0] == 21 and not _natural(hand):
                first += p_natural * p
    second = Fraction(0)
    for hand, p in final_hands(shoe, hits_soft_17).items():
        if _total(hand)[0] == 21 and not _natural(hand):
            rest = _without(shoe, hand).counts
            m = sum(rest)
            second += p * Fraction(2 * rest[0] * rest[9], m * (m - 1))
    return TwentyOneCases(first, second)


@dataclass(frozen=True)
class ReportValue:
    """The exact mean score of one game of the report: the analyser's value, the correction, their sum."""

    analyser_ev: float
    cases: TwentyOneCases
    blackjack_pays: Fraction

    @property
    def ev(self) -> float:
        """The exact result per bet under the report's scoring."""
        correction = -self.blackjack_pays * self.cases.natural_against_21 + self.cases.twenty_one_against_natural
        return self.analyser_ev + float(correction)

    @property
    def score(self) -> float:
        """The exact mean score of one game (a bet of 2)."""
        return SCORE_PER_BET * self.ev


def report_value(rules: Rules = PRESETS["montecarlo"], shoe: Shoe | None = None) -> ReportValue:
    """The exact value of one game of the report under ``rules`` (two decks, no peek, 3:2) off ``shoe`` (a
    full shoe of the rules' decks): the analyser's ``mimic`` value, corrected for the report's 21s."""
    from twentyone.analysis.exact import house_edge

    src = shoe if shoe is not None else Shoe.decks(rules.decks)
    ev = house_edge(rules, shoe=src, strategy="mimic").ev
    return ReportValue(ev, twenty_one_cases(src, rules.dealer_hits_soft_17), rules.blackjack_pays)
