"""Keep a decision trace of one seat, and ask the reference strategies what they would do in its place.

``Tracer`` wraps the traced seat's strategy: the table calls it as it calls any strategy, it passes every
call on unchanged (faults and all), and it notes each decision in a ``traces.TraceRound``.  At every
decision it also asks each strategy of the reference family (``traces.REFERENCES``) with the very same
view: the built-ins (``stand``, ``basic``, ``hilo``, ``champion``), hit below N for N = 12..17, mimic the
dealer, and the course's basic chart derived by the exact analyser (``twentyone.analysis``), played by
``players.chartplayer.ChartStrategy``.  The
references are shown every round too (``show``), so the counting ones count what the seat saw.  Their
answers never reach the table; a reference that fails simply agrees with nothing.

This is the write side: it plays nothing itself, but it builds players, so only ``runner`` imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from twentyone.cards import hand_value
from twentyone.grading.similarity.traces import REFERENCES, TraceRound
from twentyone.analysis.charts import Chart
from twentyone.players.builtin.course import Basic, HiLo, Stand
from twentyone.players.builtin.champion import Champion
from twentyone.players.builtin.chart import ChartStrategy
from twentyone.legality import is_action, is_bet
from twentyone.records import SeatView
from twentyone.rules import Rules
from twentyone.strategy import Strategy

__all__ = ["Tracer", "HitBelow", "MimicDealer", "reference_family"]


class HitBelow(Strategy):
    """Hits while the total is below ``n``, stands otherwise; flat minimum bet, never doubles, surrenders or
    insures."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.name = f"hit<{n}"

    def first_action(self, view: SeatView) -> str:
        return "h" if view.total < self.n else "s"

    def continue_action(self, view: SeatView) -> str:
        return "h" if view.total < self.n else "s"


class MimicDealer(Strategy):
    """Plays as the rules' dealer: hits below 17, and a soft 17 when the dealer does; flat minimum bet."""

    name = "dealer"

    def __init__(self, rules: Rules) -> None:
        self.soft17 = rules.dealer_hits_soft_17

    def _play(self, cards: str) -> str:
        total, soft = hand_value(cards)
        return "h" if total < 17 or (total == 17 and soft and self.soft17) else "s"

    def first_action(self, view: SeatView) -> str:
        return self._play(view.my_cards)

    def continue_action(self, view: SeatView) -> str:
        return self._play(view.my_cards)


@lru_cache(maxsize=8)
def _course_chart(rules: Rules, decks: int) -> Chart:
    from twentyone.analysis import derived_basic_chart

    return derived_basic_chart(rules, decks)


def reference_family(rules: Rules, decks: int) -> list[Strategy]:
    """Fresh strategies of the reference family, in ``traces.REFERENCES`` order."""
    refs: list[Strategy] = [Stand(), Basic(), HiLo(), Champion()]
    refs += [HitBelow(n) for n in range(12, 18)]
    refs += [MimicDealer(rules), ChartStrategy(_course_chart(rules, decks), name="chart")]
    if len(refs) != len(REFERENCES):
        raise AssertionError("the reference family and traces.REFERENCES differ")  # a programming error
    return refs


class _Open:
    """The round being traced."""

    def __init__(self, shoe: int, pos: int, rnd: int, money: tuple[int, ...]) -> None:
        self.shoe, self.pos, self.round, self.money = shoe, pos, rnd, money
        self.bet: int | None = None
        self.up = ""
        self.cards = ""
        self.actions: list[str] = []
        self.agree: list[int] = []
        self.others: list[str] = []

    def close(self) -> TraceRound:
        return TraceRound(self.shoe, self.pos, self.round, self.money, self.bet, self.up, self.cards,
                          "".join(self.actions), tuple(self.agree), tuple(self.others))


class Tracer(Strategy):
    """``inner`` as the table sees it, with a trace of its decisions and the references' answers beside them."""

    def __init__(self, inner: Strategy, references: Sequence[Strategy]) -> None:
        self.inner = inner
        self.name = inner.name
        self.course_interface = inner.course_interface  # a course function set never splits, traced or not
        self.references = list(references)
        self.rounds: list[TraceRound] = []
        self._open: _Open | None = None
        self._shoe = 0
        self._last_pos = -1

    def trace(self) -> tuple[TraceRound, ...]:
        """The rounds traced so far (a round the seat faulted in is closed as it stands)."""
        self._close()
        return tuple(self.rounds)

    # -- the references ------------------------------------------------------------------------
    def _asked(self, ask: Callable[[Strategy], object], mine: object) -> tuple[int, str]:
        """(agreement bits, the references' choices when none agrees) for the seat's choice ``mine``."""
        bits = 0
        seen: list[str] = []
        for i, ref in enumerate(self.references):
            try:
                theirs = ask(ref)
            except Exception:  # noqa: BLE001 - a reference that fails agrees with nothing
                continue
            if theirs == mine:
                bits |= 1 << i
            elif str(theirs) not in seen:
                seen.append(str(theirs))
        return bits, "" if bits else "/".join(seen)

    def _note(self, choice: str, ask: Callable[[Strategy], object], mine: object) -> None:
        o = self._open
        if o is None:
            return
        bits, others = self._asked(ask, mine)
        o.actions.append(choice)
        o.agree.append(bits)
        o.others.append(others)

    def _close(self) -> None:
        if self._open is not None:
            self.rounds.append(self._open.close())
            self._open = None

    # -- the strategy ----------------------------------------------------------------------------
    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        self.inner.start_match(match, decks, seats, seat)
        for ref in self.references:
            ref.start_match(match, decks, seats, seat)

    def bet(self, view: SeatView) -> int:
        self._close()
        pos = view.pos
        if pos < self._last_pos or self._shoe == 0:
            self._shoe += 1
        self._last_pos = pos
        money = tuple(p.account for p in view.players())
        o = self._open = _Open(self._shoe, pos, view.round, money)
        o.agree.append(0)  # the bet's place, kept even if the bet faults
        o.others.append("")
        b = self.inner.bet(view)
        o.bet = b if is_bet(b) else None
        o.agree[0], o.others[0] = self._asked(lambda r: r.bet(view), o.bet)
        return b

    def first_action(self, view: SeatView) -> str:
        a = self.inner.first_action(view)
        self._seen(view)
        mine = a if is_action(a) else "?"
        self._note(mine, lambda r: r.first_action(view), mine)
        return a

    def continue_action(self, view: SeatView) -> str:
        a = self.inner.continue_action(view)
        self._seen(view)
        mine = a if is_action(a) else "?"
        self._note(mine, lambda r: r.continue_action(view), mine)
        return a

    def _seen(self, view: SeatView) -> None:
        if self._open is not None:
            self._open.up = view.up_card
            self._open.cards = view.my_cards

    def _shown(self, view: SeatView) -> None:
        o = self._open
        if o is not None:
            o.cards = view.my_cards
            o.up = o.up or view.up_card
        for ref in self.references:
            try:
                ref.show(view)
            except Exception:  # noqa: BLE001 - a reference that fails only stops agreeing
                pass
        self._close()

    def show(self, view: SeatView) -> None:
        try:
            self.inner.show(view)
        finally:
            self._shown(view)

    def show_before_bet(self, view: SeatView) -> None:
        try:
            self.inner.show_before_bet(view)
        finally:
            self._shown(view)

    def close(self) -> None:
        """The inner strategy belongs to whoever made it (the runner's cache): nothing is closed here."""
