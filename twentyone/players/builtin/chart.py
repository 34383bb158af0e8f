"""A strategy chart as a player: ``--player chart:path.csv`` (the French document's layout, as CSV).

The chart is a ``twentyone.analysis.Chart`` (rows of hands, columns of up cards ``2..9 T A``, cells
H/S/D/U/P with fallbacks; the French letters R, T, D, Div are written S, H, D, P, see
``twentyone/analysis/data/french-expert.csv``).  ``ChartStrategy`` plays it: every decision is the
chart's first choice that the table allows now (``view.can_double``, ``can_surrender``,
``can_split``), never insurance or the Changer, a flat bet.  Decisions are remembered by hand for each
chart object (across players and matches), so a chart plays about as fast as the built-in ``basic``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from twentyone.analysis.charts import Chart
from twentyone.analysis.errors import ChartError
from twentyone.cards import VALUE
from twentyone.errors import PlayerSpecError
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["ChartStrategy", "FRENCH_EXPERT", "load_chart"]

#: What a chart's decision depends on: total, soft, cards (2, or 3 for more), pair rank, up card, and
#: whether double, surrender and split are allowed.
_Key = tuple[int, bool, int, str, str, bool, bool, bool]
_TEN: Final = {"J": "T", "Q": "T", "K": "T"}
#: id(chart) -> (the chart, kept alive so that its id stays its own; its decisions by hand and what is allowed).
_MEMOS: dict[int, tuple[Chart, dict[_Key, str]]] = {}

#: The French document's expert chart, as printed (seed 001).
FRENCH_EXPERT: Final = Path(__file__).resolve().parents[2] / "analysis" / "data" / "french-expert.csv"


def load_chart(path: Path) -> Chart:
    """Read a chart CSV for a player; PlayerSpecError (one line) if it cannot be read or parsed."""
    try:
        return Chart.read(path)
    except ChartError as e:
        raise PlayerSpecError(f"chart {str(path)!r}: {e}") from None


class ChartStrategy(Strategy):
    """Plays ``chart``: the first action of each cell the table allows; bets ``stake`` every round."""

    name = "chart"

    def __init__(self, chart: Chart, name: str = "", stake: int = 10) -> None:
        self.chart = chart
        self.name = name or f"chart:{chart.title}"
        self.stake = stake
        memo = _MEMOS.get(id(chart))
        if memo is None:
            memo = _MEMOS[id(chart)] = (chart, {})
        self._memo = memo[1]

    def bet(self, view: SeatView) -> int:
        return self.stake

    def decide(self, view: SeatView) -> str:
        """The chart's action for the hand being played, given what is allowed now."""
        cards = view.my_cards
        n = len(cards)
        pair = _TEN.get(cards[0], cards[0]) if n == 2 and VALUE[cards[0]] == VALUE[cards[1]] else ""
        up = view.up_card
        key = (view.total, view.soft, min(n, 3), pair, _TEN.get(up, up), view.can_double, view.can_surrender,
               view.can_split)
        a = self._memo.get(key)
        if a is None:
            a = self.chart.decide(cards, up, can_double=key[5], can_surrender=key[6], can_split=key[7])
            self._memo[key] = a
        return a

    def first_action(self, view: SeatView) -> str:
        return self.decide(view)

    def continue_action(self, view: SeatView) -> str:
        return self.decide(view)
