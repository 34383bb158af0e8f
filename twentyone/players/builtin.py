"""The built-in players: ``stand`` (the rubric's baseline), ``basic`` and ``hilo``.

Each is a ``twentyone.strategy.Strategy`` and can sit at any seat.  ``basic`` (and ``hilo``, which
builds on it) plays the best total-dependent chart of the rules and decks it is seated under, derived
by the exact analyser (``twentyone.analysis.derived_basic_chart``, cached per rule set); it learns
the rules from its view (``SeatView.rules``) and the decks from ``new_match``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Final

from twentyone.cards import VALUE, hand_value
from twentyone.players.champion import Champion
from twentyone.records import SeatView
from twentyone.rules import COURSE, Rules
from twentyone.strategy import Strategy

if TYPE_CHECKING:
    from twentyone.analysis import Chart

__all__ = ["Stand", "Basic", "HiLo", "BUILTINS", "basic_chart"]

UP: Final = "23456789TA"
_COL: Final = {c: UP.index("T" if c in "JQK" else c) for c in "A23456789TJQK"}
#: A card's rank index as the analyser's chart rows count pairs (0 = A .. 9 = any ten-valued card).
_PAIR: Final = {c: VALUE[c] - 1 for c in VALUE}

#: (soft, total, three cards or more, pair rank or -1) -> ten preference strings, one per up card.
_Cells = dict[tuple[bool, int, bool, int], tuple[str, ...]]


def basic_chart(rules: Rules = COURSE, decks: int = 6) -> Chart:
    """The chart ``basic`` plays under ``rules`` with ``decks`` decks: the analyser's derived basic chart."""
    from twentyone.analysis import derived_basic_chart

    return derived_basic_chart(rules, decks)


@lru_cache(maxsize=64)
def _cells(chart: Chart) -> _Cells:
    """Every situation's full preference (ending with H or S), read once from ``chart`` for quick lookups."""
    from twentyone.analysis import Kind

    out: _Cells = {}
    for soft, lo in ((False, 4), (True, 12)):
        kind = Kind.SOFT if soft else Kind.HARD
        for total in range(lo, 22):
            for more in (False, True):
                out[soft, total, more, -1] = tuple(
                    chart.preference(kind, total, 3 if more else 2, None, u).lower() for u in UP)
    for r in range(10):
        soft, total = (True, 12) if r == 0 else (False, 2 * (r + 1))
        out[soft, total, False, r] = tuple(
            chart.preference(Kind.SOFT if soft else Kind.HARD, total, 2, r, u).lower() for u in UP)
    return out


class Stand(Strategy):
    """Always stands, bets 10, never insures: the rubric's baseline player."""

    name = "stand"

    def bet(self, view: SeatView) -> int:
        return 10

    def first_action(self, view: SeatView) -> str:
        return "s"

    def continue_action(self, view: SeatView) -> str:
        return "s"


class Basic(Strategy):
    """The derived basic strategy of the table's rules (``basic_chart``); flat minimum bet, never insures.

    The chart is chosen by the rules the seat's view reports and the decks of ``new_match``; before
    its first view (``decide`` called directly) it plays the course rules.
    """

    name = "basic"

    def __init__(self) -> None:
        self._rules: Rules = COURSE
        self._decks = 0
        self.new_match(6, 1, 1)

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        self._use(self._rules, decks)

    def _use(self, rules: Rules, decks: int) -> None:
        """Play the chart of ``rules`` with ``decks`` decks from now on."""
        self._rules, self._decks = rules, decks
        self.chart = basic_chart(rules, decks)
        self._table = _cells(self.chart)

    def _seated(self, view: SeatView) -> None:
        """Follow the rules and decks of the table the view shows (a lookup when nothing changed)."""
        rules = view.rules
        if rules is not self._rules or view.decks != self._decks:
            self._use(rules, view.decks)

    def bet(self, view: SeatView) -> int:
        return 10

    def decide(self, cards: str, up: str, can_double: bool, can_surrender: bool, can_split: bool = False) -> str:
        """The chart's decision for ``cards`` against ``up``: its first choice that is allowed."""
        total, soft = hand_value(cards)
        if total >= 21:
            return "s"
        pair = _PAIR[cards[0]] if len(cards) == 2 and _PAIR[cards[0]] == _PAIR[cards[1]] else -1
        for a in self._table[soft, total, len(cards) > 2, pair][_COL[up]]:
            if a == "d":
                if can_double:
                    return a
            elif a == "u":
                if can_surrender:
                    return a
            elif a == "p":
                if can_split:
                    return a
            else:
                return a
        return "s"  # not reached: every preference ends with h or s

    def first_action(self, view: SeatView) -> str:
        self._seated(view)
        return self.decide(view.my_cards, view.up_card, view.can_double, view.can_surrender)

    def continue_action(self, view: SeatView) -> str:
        self._seated(view)
        cards = view.my_cards
        two = len(cards) == 2
        return self.decide(cards, view.up_card, two and view.can_double, two and view.can_surrender)


_HILO = {c: (1 if c in "23456" else -1 if c in "ATJQK" else 0) for c in "A23456789TJQK"}


class HiLo(Basic):
    """Hi-Lo card counting on top of ``basic`` (the derived chart of the table's rules).

    The running count adds +1 for 2-6 and -1 for T-A over every card ``show`` reveals and restarts at
    each new shoe; the true count divides it by the decks left.  Bets ramp with the true count
    (10 at TC <= 1, then 20, 40, 60, 80 at TC >= 5); insurance at TC >= 3; and a few index plays
    (the no-split part of the usual Hi-Lo deviations) change the chart's decision.
    """

    name = "hilo"

    RAMP = ((5, 80), (4, 60), (3, 40), (2, 20))

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        super().new_match(decks, seats, seat)
        self.running = 0
        self._last_pos = 0
        self._shoe = decks * 52

    def true_count(self, pos: int) -> float:
        """Running count per deck left, for a shoe with ``pos`` cards dealt."""
        left = max(self._shoe - pos, 26) / 52
        return self.running / left

    def show(self, view: SeatView) -> None:
        pos = view.pos
        cards = view.round_cards()
        if pos < self._last_pos:  # a new shoe began (this round's cards span the change)
            self.running = 0
            cards = cards[-pos:] if pos else ""
        self._last_pos = pos
        self.running += sum(_HILO[c] for c in cards)

    def bet(self, view: SeatView) -> int:
        tc = self.true_count(view.pos)
        for at, units in self.RAMP:
            if tc >= at:
                return units
        return 10

    def _index(self, cards: str, up: str, tc: float, can_double: bool, can_surrender: bool) -> str | None:
        t, soft = hand_value(cards)
        if soft:
            return None
        u = "T" if up in "JQK" else up
        if can_surrender:
            if t == 14 and u == "T" and tc >= 3:
                return "u"
            if t == 15 and u == "9" and tc >= 2:
                return "u"
            if t == 15 and u == "A" and tc >= 1:
                return "u"
        if can_double:
            if t == 11 and u == "A" and tc >= 1:
                return "d"
            if t == 10 and u in "TA" and tc >= 4:
                return "d"
            if t == 9 and u == "2" and tc >= 1:
                return "d"
            if t == 9 and u == "7" and tc >= 3:
                return "d"
        if t == 16 and u == "T" and not can_surrender:
            return "s" if tc >= 0 else "h"
        if t == 16 and u == "9" and not can_surrender and tc >= 5:
            return "s"
        if t == 15 and u == "T" and not can_surrender and tc >= 4:
            return "s"
        if t == 12 and u == "2":
            return "s" if tc >= 3 else "h"
        if t == 12 and u == "3":
            return "s" if tc >= 2 else "h"
        if t == 12 and u == "4":
            return "s" if tc >= 0 else "h"
        if t == 13 and u == "2":
            return "s" if tc >= -1 else "h"
        return None

    def first_action(self, view: SeatView) -> str:
        self._seated(view)
        tc = self.true_count(view.pos)
        if view.up_card == "A" and tc >= 3 and view.can_insure:
            return "i"
        cards, up = view.my_cards, view.up_card
        return self._index(cards, up, tc, view.can_double, view.can_surrender) or self.decide(
            cards, up, view.can_double, view.can_surrender)

    def continue_action(self, view: SeatView) -> str:
        self._seated(view)
        cards, up = view.my_cards, view.up_card
        two = len(cards) == 2
        tc = self.true_count(view.pos)
        cd, cs = two and view.can_double, two and view.can_surrender
        return self._index(cards, up, tc, cd, cs) or self.decide(cards, up, cd, cs)


BUILTINS: dict[str, type[Strategy]] = {"stand": Stand, "basic": Basic, "hilo": HiLo, "champion": Champion}
