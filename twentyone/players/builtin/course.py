"""The built-in players: ``stand`` (the rubric's baseline), ``basic``, ``hilo`` and ``mimic``.

Each is a ``twentyone.strategy.Strategy`` and can sit at any seat.  ``basic`` (and ``hilo``, which
builds on it) plays the best total-dependent chart of the rules and decks it is seated under, derived
by the exact analyser (``twentyone.analysis.derived_basic_chart``, cached per rule set); it learns
the rules and decks from its view (``SeatView.rules``, ``SeatView.decks``).  Where a player deals (the
Lianzhong table), ``basic`` and ``hilo`` choose as the dealer by the stakes on the table
(``dealer_decision``).  ``mimic`` is the Monte Carlo report's player, who draws as the dealer does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from twentyone.cards import VALUE, hand_total, hand_value
from twentyone.legality import dealer_may_choose
from twentyone.players.builtin.champion import Champion
from twentyone.records import SeatView
from twentyone.rules import COURSE, Rules
from twentyone.strategy import Strategy

if TYPE_CHECKING:
    from twentyone.analysis import Chart

__all__ = ["Stand", "Basic", "HiLo", "Mimic", "BUILTINS", "basic_chart", "basic_tables", "dealer_decision"]

UP: Final = "23456789TA"
_COL: Final = {c: UP.index("T" if c in "JQK" else c) for c in "A23456789TJQK"}
#: A card's rank index as the analyser's chart rows count pairs (0 = A .. 9 = any ten-valued card).
_PAIR: Final = {c: VALUE[c] - 1 for c in VALUE}


#: The analyser takes shoes of 1 to 8 decks: at a table of more (the ``judge`` preset's 5000), basic plays the
#: 8-deck chart, as ``optimal`` plays the 8-deck decisions.
_MAX_DECKS: Final = 8


def basic_chart(rules: Rules = COURSE, decks: int = 6) -> Chart:
    """The chart ``basic`` plays under ``rules`` with ``decks`` decks: the analyser's derived basic chart."""
    from twentyone.analysis import derived_basic_chart

    decks = min(decks, _MAX_DECKS)
    return derived_basic_chart(replace(rules, decks=decks), decks)


_Cell = tuple[str, int]
_Rows = dict[int, tuple[_Cell, ...]]


@dataclass(frozen=True)
class _Lookup:
    """A chart read once for quick decisions.  Each row (two-card and 3+ card rows by total, two-card pairs
    by rank index) has ten cells, one per up card.  A cell is ``(actions, needs)``: ``actions`` is the action
    for every combination of what is allowed, ``actions[4 * can_double + 2 * can_surrender + can_split]``,
    and ``needs`` has bit 4, 2 or 1 set when the answer depends on that permission, so that a decision
    asks the view only what changes it."""

    chart: Chart
    hard2: _Rows
    soft2: _Rows
    hard3: _Rows
    soft3: _Rows
    pairs: _Rows
    #: The cell of each two-card hand met so far, by up card then cards (at most 169 per up card).
    two: dict[str, dict[str, _Cell]] = field(default_factory=lambda: {c: {} for c in VALUE})


def _allowed(prefs: str) -> _Cell:
    """The first action of ``prefs`` (e.g. ``DS``) allowed, for each of the eight combinations, and which
    permissions that answer depends on (see ``_Lookup``)."""
    out = ""
    for i in range(8):
        allowed = "HS" + "D" * (i >> 2) + "U" * (i >> 1 & 1) + "P" * (i & 1)
        out += next(a for a in prefs if a in allowed).lower()
    needs = sum(bit for bit in (4, 2, 1) if any(out[i] != out[i ^ bit] for i in range(8)))
    return out, needs


@lru_cache(maxsize=64)
def _lookup(rules: Rules, decks: int) -> _Lookup:
    from twentyone.analysis import Kind

    chart = basic_chart(rules, decks)

    def rows(kind: Kind, lo: int, cards: int) -> _Rows:
        return {t: tuple(_allowed(chart.preference(kind, t, cards, None, u)) for u in UP) for t in range(lo, 22)}

    pairs = {r: tuple(_allowed(chart.preference(Kind.SOFT if r == 0 else Kind.HARD, 12 if r == 0 else 2 * (r + 1), 2,
                                                r, u)) for u in UP) for r in range(10)}
    return _Lookup(chart, rows(Kind.HARD, 4, 2), rows(Kind.SOFT, 12, 2), rows(Kind.HARD, 4, 3),
                   rows(Kind.SOFT, 12, 3), pairs)


@lru_cache(maxsize=16)
def basic_tables(decks: int) -> tuple[bytes, bytes]:
    """``basic``'s decisions under the course rules with ``decks`` decks as ``c_src/fast/tw_fast.c`` reads them (cards
    and up cards indexed A, 2 .. 9, ten): the first decision on two cards, double and surrender allowed and no split,
    by up card and both cards (1,000 bytes); then a decision on three cards or more, by softness, total (0 .. 31)
    and up card (640 bytes; totals of 21 or more stand)."""
    basic = Basic()
    basic.new_match(decks, 1, 1)
    ranks = "A23456789T"
    first = "".join(basic.decide(a + b, up, True, True, False) for up in ranks for a in ranks for b in ranks)
    later = "".join(rows[total][_COL[up]][0][0] if total < 21 and total in rows else "s"
                    for rows in (basic._h3, basic._s3) for total in range(32) for up in ranks)
    return first.encode("ascii"), later.encode("ascii")


#: The cell of a total of 21 or more: stand whatever is allowed.
_STAND: Final[_Cell] = ("s" * 8, 0)


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

    The chart is that of the rules and decks the seat's view shows (``SeatView.rules``, ``decks``);
    before any view (``decide`` called directly) the course rules with the decks of ``new_match``.
    ``chart`` is the ``Chart`` being played.
    """

    name = "basic"

    def __init__(self) -> None:
        self._view: SeatView | None = None
        self._use(COURSE, 6)

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        self._view = None  # the next view is looked at again
        self._use(self._rules, decks)

    def _use(self, rules: Rules, decks: int) -> None:
        """Play the chart of ``rules`` with ``decks`` decks from now on."""
        self._rules, self._decks = rules, decks
        t = _lookup(rules, decks)
        self.chart = t.chart
        self._h2, self._s2, self._h3, self._s3, self._pairs = t.hard2, t.soft2, t.hard3, t.soft3, t.pairs
        self._two = t.two

    def _seated(self, view: SeatView) -> None:
        """Follow the rules and decks of the table the view shows (one identity test while the view is the same)."""
        if view is not self._view:
            self._view = view
            rules, decks = view.rules, view.decks
            if rules is not self._rules or decks != self._decks:
                self._use(rules, decks)

    def bet(self, view: SeatView) -> int:
        return 10

    def _cell(self, cards: str, up: str) -> _Cell:
        """The chart's cell for ``cards`` against ``up`` (``_STAND`` at 21 or more)."""
        total, soft = hand_value(cards)
        if total >= 21:
            return _STAND
        col = _COL[up]
        if len(cards) == 2:
            pair = _PAIR[cards[0]]
            if pair == _PAIR[cards[1]]:
                return self._pairs[pair][col]
            return (self._s2 if soft else self._h2)[total][col]
        return (self._s3 if soft else self._h3)[total][col]

    def decide(self, cards: str, up: str, can_double: bool, can_surrender: bool, can_split: bool = False) -> str:
        """The chart's decision for ``cards`` against ``up``: its first choice that is allowed."""
        return self._cell(cards, up)[0][4 * can_double + 2 * can_surrender + can_split]

    def _play(self, view: SeatView, cards: str) -> str:
        """The chart's decision for ``cards`` (the hand being played), asking the view only the permissions
        the answer depends on (each is worked out by the table on demand)."""
        up = view.up_card
        if len(cards) == 2:
            known = self._two[up]
            cell = known.get(cards)
            if cell is None:
                cell = known[cards] = self._cell(cards, up)
            actions, needs = cell
        else:
            actions, needs = self._cell(cards, up)
        if not needs:
            return actions[0]
        return actions[(4 if needs & 4 and view.can_double else 0) + (2 if needs & 2 and view.can_surrender else 0)
                       + (1 if needs & 1 and view.can_split else 0)]

    def first_action(self, view: SeatView) -> str:
        if view is not self._view:  # _seated, inlined: this is the engine's hottest call
            self._seated(view)
        return self._play(view, view.my_cards)

    def continue_action(self, view: SeatView) -> str:
        if view is not self._view:
            self._seated(view)
        cards = view.my_cards  # after a split: the hand being played
        if len(cards) != 2:
            return self.decide(cards, view.up_card, False, False)
        return self._play(view, cards)

    def dealer_action(self, view: SeatView) -> str:
        """As a dealer who chooses: ``dealer_decision``."""
        return dealer_decision(view)


def dealer_decision(view: SeatView) -> str:
    """As a dealer who chooses (the Lianzhong table): hit or stand, whichever wins more of the stakes still on
    the table (``view.standing_hands``: (cards, stake) of every hand his total settles).

    The cards to come are drawn from the shoe's composition less every card face up (``round_cards``),
    without removal as the dealer draws: a close estimate, quick enough for every decision.  After a hit the
    dealer goes on as he must, and chooses the same way where he may choose again.  Without the hands (a
    view that does not tell them) he stands, as the automatic play does.
    """
    hands: tuple[tuple[str, int], ...] = getattr(view, "standing_hands", ())
    if not hands:
        return "s"
    left = {c: 4 * view.decks for c in "A23456789"}
    left["T"] = 16 * view.decks
    for c in view.round_cards():
        k = "T" if c in "TJQK" else c
        left[k] = max(left[k] - 1, 0)
    n = sum(left.values()) or 1
    draws = [(VALUE[c], left[c] / n) for c in left if left[c]]
    players = [(hand_value(cards)[0], stake) for cards, stake in hands]

    def stand(total: int) -> float:
        if total > 21:
            return -float(sum(stake for _, stake in players))
        return float(sum(stake if total > t else -stake if total < t else 0 for t, stake in players))

    memo: dict[tuple[int, bool, bool], float] = {}

    def value(hard: int, ace: bool, two: bool) -> float:
        key = (hard, ace, two)
        if key in memo:
            return memo[key]
        t = hand_total(hard, ace)
        if t > 21:
            v = stand(t)
        elif t < 17:
            v = hit(hard, ace)
        elif dealer_may_choose(t, t != hard, 2 if two else 3):
            v = max(stand(t), hit(hard, ace))
        else:
            v = stand(t)
        memo[key] = v
        return v

    def hit(hard: int, ace: bool) -> float:
        return sum(p * value(hard + v, ace or v == 1, False) for v, p in draws)

    cards = view.my_cards
    hard = sum(VALUE[c] for c in cards)
    return "h" if hit(hard, "A" in cards) > stand(hand_total(hard, "A" in cards)) else "s"


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
            cards, up, view.can_double, view.can_surrender, view.can_split)

    def continue_action(self, view: SeatView) -> str:
        self._seated(view)
        cards, up = view.my_cards, view.up_card
        two = len(cards) == 2
        tc = self.true_count(view.pos)
        cd, cs = two and view.can_double, two and view.can_surrender
        return self._index(cards, up, tc, cd, cs) or self.decide(cards, up, cd, cs, two and view.can_split)


class Mimic(Strategy):
    """The Monte Carlo report's player: bets the minimum and draws as the dealer does, below 17 (and on a
    soft 17 where the dealer hits one); as the dealer it stands from 17 (the default)."""

    name = "mimic"

    def bet(self, view: SeatView) -> int:
        return view.rules.min_bet

    def _decide(self, view: SeatView) -> str:
        t = view.total
        return "h" if t < 17 or (t == 17 and view.soft and view.rules.dealer_hits_soft_17) else "s"

    def first_action(self, view: SeatView) -> str:
        return self._decide(view)

    def continue_action(self, view: SeatView) -> str:
        return self._decide(view)


BUILTINS: dict[str, type[Strategy]] = {"stand": Stand, "basic": Basic, "hilo": HiLo, "champion": Champion}
