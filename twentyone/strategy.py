"""Strategies: the Pythonic ``Strategy`` class, the course's function sets, and adapters both ways.

The engine talks to every player through ``Strategy``: ``bet``, ``first_action``,
``continue_action`` and ``show``, each given the seat's ``SeatView``.  A course-style function
set (``betK``, ``first_actionK``, ``continue_actionK``, ``showK`` from a Python module or a
compiled ``mycodes.c``) is seated through ``FunctionSetStrategy``, which builds the course's
``tmpcards`` and Player/Banker copies, re-indexed for set K as RULES.md says.
``as_function_set`` goes the other way: it turns a ``Strategy`` into course-style callables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from twentyone.cards import TENS, VALUE
from twentyone.records import Banker, Player

if TYPE_CHECKING:
    from twentyone.records import SeatView

__all__ = ["Strategy", "FunctionSet", "FunctionSetStrategy", "as_function_set", "CourseFunctions"]


class Strategy:
    """A player's decisions.  Subclass it and override what you need; the defaults stand and bet 10."""

    #: A short name for tables and logs.
    name = "strategy"

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        """Called once before every match; reset any state kept between rounds here."""

    def bet(self, view: SeatView) -> int:
        """Return the bet for this round (raised to 10, lowered to all the money)."""
        return 10

    def first_action(self, view: SeatView) -> str:
        """Return ``i``, ``h``, ``s``, ``d`` or ``u`` for the two-card hand."""
        return "s"

    def continue_action(self, view: SeatView) -> str:
        """Return ``h`` or ``s`` (or ``h s d u`` right after insurance)."""
        return "s"

    def show(self, view: SeatView) -> None:
        """See every card of the finished round."""

    def show_before_bet(self, view: SeatView) -> None:
        """``show``, when this seat will be asked for its next bet unless this very call faults.

        The engine calls it instead of ``show`` when that is sure; the default is ``show``.  A strategy
        in a worker process uses the hint to fetch that bet in the same round trip: it still sees
        ``show`` and then ``bet``, in that order.
        """
        self.show(view)

    def close(self) -> None:
        """Release anything the strategy holds (worker processes, loaded libraries)."""


class FunctionSet(Protocol):
    """One course function set K: ``betK first_actionK continue_actionK showK`` with the C arguments."""

    def reset(self) -> None:
        """Put every static variable back to its initial value (start of a match)."""

    def bet(self, N: int) -> int:
        """``int betK(int N)``."""

    def first_action(self, tmpcards: str, length: int) -> str:
        """``char first_actionK(char* tmpcards, int len)``."""

    def continue_action(self, players: list[Player]) -> str:
        """``char continue_actionK(Player(*players)[])``: players[0] is the caller."""

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        """``void showK(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)``."""

    def close(self) -> None:
        """Release what the set holds."""


class FunctionSetStrategy(Strategy):
    """Seat a course function set K at any seat, with the table re-indexed for K."""

    def __init__(self, functions: FunctionSet, k: int, name: str = "") -> None:
        if not 1 <= k <= 5:
            raise ValueError(f"function set out of range: {k!r} (1 .. 5)")
        self.functions = functions
        self.k = k
        self.name = name or f"set{k}"

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        self.functions.reset()

    def bet(self, view: SeatView) -> int:
        return self.functions.bet(view.decks)

    def first_action(self, view: SeatView) -> str:
        k = self.k
        width = max(view.seats, k)
        return self.functions.first_action(view.tmpcards(k), 2 + 2 * width)

    def continue_action(self, view: SeatView) -> str:
        return self.functions.continue_action(view.players(self.k, self_first=True))

    def show(self, view: SeatView) -> None:
        k = self.k
        width = max(view.seats, k)
        self.functions.show(view.banker(), view.players(k), width + 1, view.decks, view.pos)

    def show_before_bet(self, view: SeatView) -> None:
        ahead = getattr(self.functions, "show_then_bet", None)
        if ahead is None or type(self).show is not FunctionSetStrategy.show:
            self.show(view)
            return
        k = self.k
        width = max(view.seats, k)
        ahead(view.banker(), view.players(k), width + 1, view.decks, view.pos, view.decks)

    def close(self) -> None:
        self.functions.close()


class _CourseView:
    """A SeatView look-alike rebuilt from the course's arguments, for ``as_function_set``."""

    def __init__(self, seat: int, decks: int, seats: int, up: str, mine: str, account: int, bet: int,
                 state: str, dealer: str = "", pos: int = 0, others: str = "") -> None:
        self.seat, self.decks, self.seats, self.up_card = seat, decks, seats, up
        self.my_cards, self.account, self.bet, self.pos = mine, account, bet, pos
        self.dealer_cards = dealer
        self._state = state
        self._others = others
        hard = sum(VALUE[c] for c in mine if c in VALUE)
        self.soft = "A" in mine and hard <= 11
        self.total = hard + 10 if self.soft else hard
        self.can_double = len(mine) == 2 and state in ("", "i") and account >= bet
        self.can_surrender = len(mine) == 2 and state in ("", "i")
        self.can_insure = up == "A" and state == "" and account >= bet // 2

    def round_cards(self) -> str:
        return self.dealer_cards + self._others


class CourseFunctions:
    """A ``Strategy`` seen as course function set ``k``: callables with the C arguments."""

    def __init__(self, strategy: Strategy, k: int, decks_hint: int = 6) -> None:
        self.strategy = strategy
        self.k = k
        self._up = ""
        self._decks = decks_hint

    def reset(self) -> None:
        self.strategy.new_match(self._decks, 5, self.k)

    def bet(self, N: int) -> int:
        self._decks = N
        return self.strategy.bet(_CourseView(self.k, N, 5, "", "", 0, 0, ""))  # type: ignore[arg-type]

    def first_action(self, tmpcards: str, length: int) -> str:
        k = self.k
        self._up = tmpcards[0]
        mine = tmpcards[2 * k : 2 * k + 2]
        view = _CourseView(k, self._decks, (length - 2) // 2, tmpcards[0], mine, 10**9, 10, "")
        return self.strategy.first_action(view)  # type: ignore[arg-type]

    def continue_action(self, players: list[Player]) -> str:
        me = players[0]
        view = _CourseView(self.k, self._decks, len(players), self._up, me.mycards[: me.count],
                           me.account, me.mybets, me.state)
        return self.strategy.continue_action(view)  # type: ignore[arg-type]

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        me = players[self.k - 1]
        others = "".join(p.mycards[: p.count] for p in players)
        view = _CourseView(self.k, N, pNum - 1, banker.mycards[:1], me.mycards[: me.count], me.account,
                           me.mybets, me.state, banker.mycards[: banker.count], pos, others)
        self.strategy.show(view)  # type: ignore[arg-type]

    def close(self) -> None:
        self.strategy.close()


def as_function_set(strategy: Strategy, k: int) -> CourseFunctions:
    """Return ``strategy`` as course function set ``k`` (bet/first_action/continue_action/show)."""
    return CourseFunctions(strategy, k)


def is_ten(card: str) -> bool:
    """True for a ten-value card code."""
    return card in TENS
