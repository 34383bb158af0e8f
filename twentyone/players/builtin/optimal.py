"""``optimal``: the exact analyser's composition-dependent play (``twentyone.analysis.decision_evs``).

Every decision takes the action with the best exact EV for the hand's own cards against the up card,
off a full shoe of the table's decks under the table's rules, as the analyser's ``optimal`` strategy
is defined: split hands play as the same cards would unsplit ("CDZ-"), choosing among stand, hit and
(when the table allows it) double, and a pair dealt to a split hand is always split again when
allowed.  Ties go to the earlier of stand, hit, double, split, surrender, as in the analyser.  It
never insures and bets 10.  Decisions are cached by (rules, decks, cards, up card) in this process,
shared by every ``Optimal``; ``house_edge(rules, strategy="optimal")`` is the EV it plays to, which is
how the EV tests use it.  The analyser takes shoes of 1 to 8 decks: at a table of more (the ``judge``
preset's 5000), it plays the 8-deck decisions, which are within a hair of an infinite shoe's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from twentyone.analysis.options import AnalysisRules
from twentyone.cards import hand_value
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["Optimal", "evs_of"]

_TEN: Final = str.maketrans("JQK", "TTT")
_MAX_DECKS: Final = 8
_Evs = tuple[float | None, ...]
#: options -> (hand as sorted ranks, up rank) -> EV of stand, hit, double, split, surrender (None: not allowed).
#: One table per options, so that a decision hashes two short strings, not the options' fractions.
_CACHE: dict[AnalysisRules, dict[tuple[str, str], _Evs]] = {}


def evs_of(opts: AnalysisRules, cards: str, up: str) -> _Evs:
    """The exact EVs (stand, hit, double, split, surrender) of ``cards`` against ``up``, cached."""
    return _cached(_CACHE.setdefault(opts, {}), opts, cards, up)


def _cached(table: dict[tuple[str, str], _Evs], opts: AnalysisRules, cards: str, up: str) -> _Evs:
    """``evs_of`` with ``opts``' table of the cache already found."""
    hand = "".join(sorted(cards.translate(_TEN)))
    up = up.translate(_TEN)
    key = (hand, up)
    got = table.get(key)
    if got is None:
        from twentyone.analysis.exact import decision_evs  # loads the compiled analyser on first use

        d = decision_evs(hand, up, opts)
        got = (d.stand, d.hit, d.double, d.split, d.surrender)
        table[key] = got
    return got


class Optimal(Strategy):
    """The analyser's optimal (composition-dependent, CDZ-) play; never insures; bets 10."""

    name = "optimal"

    def __init__(self) -> None:
        self._opts: AnalysisRules | None = None
        self._for: tuple[object, int] | None = None
        self._table: dict[tuple[str, str], _Evs] = {}

    def _options(self, view: SeatView) -> AnalysisRules:
        rules, decks = view.rules, view.decks
        key = self._for
        if self._opts is None or key is None or key[0] is not rules or key[1] != decks:
            self._opts = AnalysisRules.of(replace(rules, decks=min(decks, _MAX_DECKS)))
            self._for = (rules, decks)
            self._table = _CACHE.setdefault(self._opts, {})
        return self._opts

    def decide(self, view: SeatView) -> str:
        """The best allowed action for the hand being played."""
        cards = view.my_cards
        if hand_value(cards)[0] >= 21:
            return "s"
        split_hand = len(view.hands) > 1
        if split_hand and view.can_split:
            return "p"  # a pair dealt to a split hand is split again whenever allowed
        allowed = (True, True, view.can_double, view.can_split and not split_hand,
                   view.can_surrender and not split_hand)
        opts = self._options(view)
        evs = _cached(self._table, opts, cards, view.up_card)
        best, best_v = 0, evs[0]
        for i in range(1, 5):
            v = evs[i]
            if allowed[i] and v is not None and best_v is not None and v > best_v:
                best, best_v = i, v
        return "shdpu"[best]

    def first_action(self, view: SeatView) -> str:
        return self.decide(view)

    def continue_action(self, view: SeatView) -> str:
        return self.decide(view)
