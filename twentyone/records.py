"""What a strategy may see: the course's Player and Banker records and the read-only SeatView.

``Player`` and ``Banker`` have the fields of the course's C structs, in the same order.  Every
record handed to a strategy is a fresh copy; changing it changes nothing in the game.
``SeatView`` is the Pythonic view of one seat: the up card, the seat's own cards, the other
seats' visible cards, and at the end of the round the dealer's whole hand.  It never holds the
shoe or the hole card before it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from twentyone.cards import calculate

if TYPE_CHECKING:
    from twentyone.table import Table, _Seat

__all__ = ["Player", "Banker", "SeatView", "NO_CARD"]

#: What ``tmpcards`` shows for a seat that is empty or out of the game, and for the hole card.
NO_CARD = "-"
HOLE = "X"


@dataclass(slots=True)
class Player:
    """The course's ``Player`` struct: ``name account mycards count state mybets points rounds``."""

    name: str = ""
    account: int = 0
    mycards: str = ""
    count: int = 0
    state: str = ""
    mybets: int = 0
    points: int = 0
    rounds: int = 0


@dataclass(slots=True)
class Banker:
    """The course's ``Banker`` struct: ``mycards count state points``; state 'd' hole down, 'l' shown."""

    mycards: str = ""
    count: int = 0
    state: str = "d"
    points: int = 0


class SeatView:
    """A read-only view of the table from one seat, as the rules let that seat see it."""

    __slots__ = ("_t", "_s")

    def __init__(self, table: Table, seat: _Seat) -> None:
        self._t = table
        self._s = seat

    # -- the seat itself -------------------------------------------------------------------
    @property
    def seat(self) -> int:
        """This seat's number, 1-based."""
        return self._s.seat

    @property
    def name(self) -> str:
        """This seat's name."""
        return self._s.name

    @property
    def account(self) -> int:
        """Money not on the table."""
        return self._s.account

    @property
    def bet(self) -> int:
        """The main stake this round (doubled after a double)."""
        return self._s.bet

    @property
    def my_cards(self) -> str:
        """This seat's cards this round, in the order dealt."""
        return "".join(self._s.cards)

    @property
    def total(self) -> int:
        """The best total of this seat's cards."""
        s = self._s
        return s.hard + 10 if s.ace and s.hard <= 11 else s.hard

    @property
    def soft(self) -> bool:
        """True when an ace in this seat's hand counts 11."""
        s = self._s
        return s.ace and s.hard <= 11

    @property
    def can_double(self) -> bool:
        """True when ``d`` is allowed now and affordable."""
        s = self._s
        return len(s.cards) == 2 and s.state in ("", "i") and s.account >= s.bet

    @property
    def can_surrender(self) -> bool:
        """True when ``u`` is allowed now."""
        s = self._s
        return self._t.rules.surrender and len(s.cards) == 2 and s.state in ("", "i")

    @property
    def can_insure(self) -> bool:
        """True when ``i`` is allowed now and affordable."""
        s = self._s
        return self._t.up_card == "A" and s.state == "" and s.account >= s.bet // 2

    @property
    def rounds(self) -> int:
        """Rounds this seat has played so far."""
        return self._s.rounds

    # -- the table ---------------------------------------------------------------------------
    @property
    def decks(self) -> int:
        """Decks in the shoe (the course's N)."""
        return self._t.decks

    @property
    def seats(self) -> int:
        """Player seats at the table."""
        return len(self._t.seats)

    @property
    def up_card(self) -> str:
        """The dealer's up card."""
        return self._t.up_card

    @property
    def dealer_cards(self) -> str:
        """The dealer's cards that are face up (the whole hand once it is shown)."""
        return "".join(self._t.dealer_shown)

    @property
    def pos(self) -> int:
        """Cards of the current shoe dealt so far."""
        return self._t.pos

    @property
    def shoe_size(self) -> int:
        """Cards in a full shoe."""
        return self._t.decks * 52

    @property
    def round(self) -> int:
        """The current round number, 1-based."""
        return self._t.round_no

    def seat_cards(self, seat: int) -> str:
        """The face-up cards of ``seat`` this round ('' for a seat not in the round)."""
        return "".join(self._t.seats[seat - 1].cards)

    def round_cards(self) -> str:
        """Every card face up on the table now: the dealer's shown cards, then each seat's."""
        return "".join(self._t.dealer_shown) + "".join("".join(s.cards) for s in self._t.seats)

    # -- the course's views --------------------------------------------------------------------
    def _order(self, k: int) -> list[_Seat | None]:
        """Seats in the order function set ``k`` expects: this seat moved to index k-1."""
        order: list[_Seat | None] = list(self._t.seats)
        while len(order) < k:
            order.append(None)
        i = self._s.seat - 1
        order[i], order[k - 1] = order[k - 1], order[i]
        return order

    def tmpcards(self, k: int | None = None) -> str:
        """The course's ``tmpcards`` for function set ``k`` (default: this seat's number)."""
        k = k or self._s.seat
        parts = [self._t.up_card, HOLE]
        for s in self._order(k):
            if s is None or not s.in_round:
                parts.append(NO_CARD + NO_CARD)
            else:
                parts.append(s.cards[0] + s.cards[1])
        return "".join(parts)

    def players(self, k: int | None = None, *, self_first: bool = False) -> list[Player]:
        """Fresh Player copies in function set ``k``'s order; with ``self_first`` this seat is also at [0]."""
        k = k or self._s.seat
        out = [Player() if s is None else s.record() for s in self._order(k)]
        if self_first:
            out[0] = self._s.record()
        return out

    def banker(self) -> Banker:
        """A fresh Banker copy: the shown cards, 'l' once the hole card is shown."""
        cards = "".join(self._t.dealer_shown)
        shown = self._t.hole_shown
        return Banker(cards, len(cards), "l" if shown else "d", calculate(cards) if cards else 0)
