"""The table's ``SeatView`` of one seat: what a strategy may see, read-only, as the rules let it.

``TableSeatView`` implements the ``twentyone.records.SeatView`` Protocol over a table's state: the
dealer's up card, the seat's own hand (the split hand being played, when it split), the other seats'
face-up cards, and at the end of the round the dealer's whole hand.  ``can_x`` asks the table, which
asks ``twentyone.legality``, so a view answers exactly as the table decides.  ``twentyone.table``
builds one view per seat; the view sees the table only through ``TableState``.
"""

from __future__ import annotations

from typing import Protocol

from twentyone.cards import calculate, hand_total
from twentyone.records import BANKER, HOLE, NO_CARD, NO_PLAYER, Banker, Player, ShowArgs
from twentyone.rules import Rules
from twentyone.seat import Seat

__all__ = ["TableSeatView", "TableState"]


class TableState(Protocol):
    """What a view reads of its table (``twentyone.table.Table`` has it all)."""

    rules: Rules
    decks: int
    seats: list[Seat]
    up_card: str
    dealer_shown: list[str]
    hole_shown: bool
    pos: int
    round_no: int

    def can_double(self, s: Seat) -> bool:
        """True when ``s`` may double now."""

    def can_surrender(self, s: Seat) -> bool:
        """True when ``s`` may surrender now."""

    def can_insure(self, s: Seat) -> bool:
        """True when ``s`` may buy insurance now."""

    def can_split(self, s: Seat) -> bool:
        """True when ``s`` may split now."""

    def can_change(self, s: Seat) -> bool:
        """True when ``s`` may use the Changer now."""


class TableSeatView:
    """The table's ``SeatView`` of one seat (``twentyone.records.SeatView``): read-only, what the seat may see."""

    __slots__ = ("_t", "_s")

    def __init__(self, table: TableState, seat: Seat) -> None:
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
        """The stake of the hand being played (doubled after a double)."""
        return self._s.cur.bet

    @property
    def my_cards(self) -> str:
        """The cards of the hand being played, in the order dealt (after a split: that split hand's)."""
        return "".join(self._s.cur.cards)

    @property
    def total(self) -> int:
        """The best total of the hand being played."""
        h = self._s.cur
        return hand_total(h.hard, h.ace)

    @property
    def soft(self) -> bool:
        """True when an ace in the hand being played counts 11."""
        h = self._s.cur
        return hand_total(h.hard, h.ace) != h.hard

    @property
    def hands(self) -> tuple[str, ...]:
        """The cards of each of this seat's hands, left to right (one hand unless it split)."""
        s = self._s
        return tuple("".join(h.cards) for h in s.hands) if s.hands else ("".join(s.cards),)

    @property
    def hand(self) -> int:
        """The index in ``hands`` of the hand being played (0 unless it split)."""
        s = self._s
        return s.hands.index(s.cur) if s.hands and s.cur is not s else 0

    @property
    def can_double(self) -> bool:
        """True when ``d`` is allowed now (for less than the bet if the account cannot pay it all)."""
        return self._t.can_double(self._s)

    @property
    def can_surrender(self) -> bool:
        """True when ``u`` is allowed now."""
        return self._t.can_surrender(self._s)

    @property
    def can_insure(self) -> bool:
        """True when ``i`` is allowed now and affordable."""
        return self._t.can_insure(self._s)

    @property
    def can_split(self) -> bool:
        """True when ``p`` is allowed now (a pair, the rules split, a whole bet affordable)."""
        return self._t.can_split(self._s)

    @property
    def can_change(self) -> bool:
        """True when ``c`` (the French game's Changer) is allowed now."""
        return self._t.can_change(self._s)

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
    def rules(self) -> Rules:
        """The rules of this table."""
        return self._t.rules

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
        """The face-up cards of ``seat`` this round ('' for a seat not in the round): every hand's after a
        split, and a card a Changer took away last."""
        return self._t.seats[seat - 1].all_cards()

    def round_cards(self) -> str:
        """Every card face up on the table now: the dealer's shown cards, then each seat's (``seat_cards``)."""
        return "".join(self._t.dealer_shown) + "".join(
            s.all_cards() if s.hands or s.changed else "".join(s.cards) for s in self._t.seats)

    # -- the course's views --------------------------------------------------------------------
    def _order(self, k: int) -> list[Seat | None]:
        """Seats in the order function set ``k`` expects: this seat moved to index k-1."""
        order: list[Seat | None] = list(self._t.seats)
        while len(order) < k:
            order.append(None)
        i = self._s.seat - 1
        order[i], order[k - 1] = order[k - 1], order[i]
        return order

    def tmpcards(self, k: int | None = None) -> str:
        """The course's ``tmpcards`` for function set ``k`` (default: this seat's number)."""
        t = self._t
        parts = [t.up_card, HOLE]
        for s in t.seats if k is None or k == self._s.seat else self._order(k):  # set K in its own place: as seated
            if s is None or not s.in_round:
                parts.append(_NO_CARDS)
            else:
                cards = s.cards
                parts.append(cards[0] + cards[1])
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

    def packed_players(self, k: int | None = None, *, self_first: bool = False) -> bytes:
        """``players(k, self_first=...)`` as an array of C ``Player`` structs (``records.PLAYER``), made without a
        ``Player``."""
        me = self._s
        records = [s.packed() for s in self._t.seats]
        if (k is None or k == me.seat) and not self_first:
            return b"".join(records)
        k = k or me.seat
        i = me.seat - 1
        order = records + [NO_PLAYER] * (k - len(records))
        order[i], order[k - 1] = order[k - 1], order[i]
        if self_first:
            order[0] = records[i]
        return b"".join(order)

    def packed_banker(self) -> bytes:
        """``banker()`` as the C ``Banker`` struct (``records.BANKER``)."""
        t = self._t
        cards = "".join(t.dealer_shown)
        return _pack_banker(cards.encode("latin-1")[:19], len(cards), b"l" if t.hole_shown else b"d",
                            calculate(cards) if cards else 0)

    def packed_show(self, k: int | None = None) -> ShowArgs:
        """The arguments of the course's ``showK`` for set ``k``, the records packed: (banker, players, pNum, N,
        pos).  While a ``Table`` shows the settled round (``show_all``: its ``shown``) they are the same for every
        seat shown in its own place, and made once for all of them."""
        t = self._t
        seat = self._s.seat
        if k is not None and k != seat:
            return self.packed_banker(), self.packed_players(k), max(len(t.seats), k) + 1, t.decks, t.pos
        shown: dict[str, ShowArgs] | None = getattr(t, "shown", None)  # a Table's, while it shows the round
        if shown is not None:
            args = shown.get("own")
            if args is None:
                args = shown["own"] = (self.packed_banker(), self.packed_players(), len(t.seats) + 1, t.decks, t.pos)
            return args
        return self.packed_banker(), self.packed_players(), len(t.seats) + 1, t.decks, t.pos

_pack_banker = BANKER.pack
_NO_CARDS = NO_CARD + NO_CARD
