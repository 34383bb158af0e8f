"""The built-in players: ``stand`` (the rubric's baseline), ``basic`` and ``hilo``.

Each is a ``twentyone.strategy.Strategy`` and can sit at any seat.
"""

from __future__ import annotations

from twentyone.cards import hand_value
from twentyone.players.charts import UP, chart
from twentyone.players.champion import Champion
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["Stand", "Basic", "HiLo", "BUILTINS"]

_COL = {c: UP.index("T" if c in "JQK" else c) for c in "A23456789TJQK"}


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
    """The total-dependent basic strategy of ``twentyone.players.charts``; flat minimum bet, never insures."""

    name = "basic"

    def __init__(self) -> None:
        self._decks = 0
        self.new_match(6, 1, 1)

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        if decks != self._decks:
            self._decks = decks
            self._h2, self._s2, self._h3, self._s3 = chart(decks)

    def bet(self, view: SeatView) -> int:
        return 10

    def decide(self, cards: str, up: str, can_double: bool, can_surrender: bool) -> str:
        """The chart's decision for ``cards`` against ``up``."""
        total, soft = hand_value(cards)
        if total > 21:
            return "s"
        two = len(cards) == 2
        rows = (self._s2 if soft else self._h2) if two else (self._s3 if soft else self._h3)
        a = rows[total][_COL[up]]
        if a == "D":
            return "d" if can_double else "h"
        if a == "E":
            return "d" if can_double else "s"
        if a == "U":
            return "u" if can_surrender else "h"
        return "h" if a == "H" else "s"

    def first_action(self, view: SeatView) -> str:
        return self.decide(view.my_cards, view.up_card, view.can_double, view.can_surrender)

    def continue_action(self, view: SeatView) -> str:
        cards = view.my_cards
        two = len(cards) == 2
        return self.decide(cards, view.up_card, two and view.can_double, two and view.can_surrender)


_HILO = {c: (1 if c in "23456" else -1 if c in "ATJQK" else 0) for c in "A23456789TJQK"}


class HiLo(Basic):
    """Hi-Lo card counting on top of ``basic``.

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
        tc = self.true_count(view.pos)
        if view.up_card == "A" and tc >= 3 and view.can_insure:
            return "i"
        cards, up = view.my_cards, view.up_card
        return self._index(cards, up, tc, view.can_double, view.can_surrender) or self.decide(
            cards, up, view.can_double, view.can_surrender)

    def continue_action(self, view: SeatView) -> str:
        cards, up = view.my_cards, view.up_card
        two = len(cards) == 2
        tc = self.true_count(view.pos)
        cd, cs = two and view.can_double, two and view.can_surrender
        return self._index(cards, up, tc, cd, cs) or self.decide(cards, up, cd, cs)


BUILTINS: dict[str, type[Strategy]] = {"stand": Stand, "basic": Basic, "hilo": HiLo, "champion": Champion}
