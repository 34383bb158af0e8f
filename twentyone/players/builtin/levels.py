"""The French game's AI levels (seed 001), usable as built-in players anywhere: ``amateur``,
``intermediate`` and ``expert``.

Each bets a tenth of the money it had when the match began (at least 1; the table then clamps the bet
to its limits), never insures, never surrenders and never uses the Changer.

- ``amateur`` hits and stands only, without doubling or splitting (the document's words): it draws as
  the dealer must, below 17 (and on a soft 17 when the dealer hits one), and stands otherwise.
- ``intermediate`` sits between the two, by rules of thumb a casual player knows:
  hard 11 or less hits, but doubles 10 and 11 against a 2 to 9; hard 12 to 16 stands against a 2 to 6
  (the dealer may bust) and hits against a 7 to an A; hard 17 or more stands; soft 17 or less hits,
  soft 18 or more stands; it splits only aces and eights, and plays any other pair as its total.
- ``expert`` plays exactly the chart printed in the document, splits included
  (``twentyone/analysis/data/french-expert.csv``), through ``ChartStrategy``.
"""

from __future__ import annotations

from twentyone.cards import hand_value
from twentyone.players.builtin.chart import FRENCH_EXPERT, ChartStrategy, load_chart
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["Amateur", "Intermediate", "Expert", "LEVELS"]


class _TenthBet(Strategy):
    """Bets a tenth of the money it held at its first bet of the match (at least 1)."""

    _stake = 0

    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        self._stake = 0
        super().start_match(match, decks, seats, seat)

    def bet(self, view: SeatView) -> int:
        if not self._stake:
            self._stake = max(1, view.account // 10)
        return self._stake


class Amateur(_TenthBet):
    """Hits and stands only, drawing as the dealer does: below 17, and on a soft 17 if the dealer hits it."""

    name = "amateur"

    def _decide(self, view: SeatView) -> str:
        t = view.total
        if t < 17 or (t == 17 and view.soft and view.rules.dealer_hits_soft_17):
            return "h"
        return "s"

    def first_action(self, view: SeatView) -> str:
        return self._decide(view)

    def continue_action(self, view: SeatView) -> str:
        return self._decide(view)


_LOW_UP = frozenset("23456")


class Intermediate(_TenthBet):
    """Rules of thumb between the amateur and the expert (see the module's docstring)."""

    name = "intermediate"

    def _decide(self, view: SeatView) -> str:
        cards, up = view.my_cards, view.up_card
        up = "T" if up in "JQK" else up
        t, soft = hand_value(cards)
        if len(cards) == 2 and cards[0] == cards[1] and cards[0] in "A8" and view.can_split:
            return "p"
        if soft:
            return "h" if t <= 17 else "s"
        if t <= 11:
            return "d" if t >= 10 and up not in ("T", "A") and view.can_double else "h"
        if t <= 16:
            return "s" if up in _LOW_UP else "h"
        return "s"

    def first_action(self, view: SeatView) -> str:
        return self._decide(view)

    def continue_action(self, view: SeatView) -> str:
        return self._decide(view)


class Expert(_TenthBet, ChartStrategy):
    """Plays the French document's expert chart exactly, splits included."""

    name = "expert"

    def __init__(self) -> None:
        ChartStrategy.__init__(self, load_chart(FRENCH_EXPERT), name="expert")

    def bet(self, view: SeatView) -> int:
        return _TenthBet.bet(self, view)


#: The AI levels by name (built-in players).
LEVELS: dict[str, type[Strategy]] = {"amateur": Amateur, "intermediate": Intermediate, "expert": Expert}
