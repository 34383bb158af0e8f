"""What a strategy may see: the course's Player and Banker records and the read-only SeatView.

``Player`` and ``Banker`` have the fields of the course's C structs, in the same order.  Every
record handed to a strategy is a fresh copy; changing it changes nothing in the game.
``SeatView`` is the contract of what one seat may see (a ``typing.Protocol``): the up card, the
seat's own cards, the other seats' visible cards, and at the end of the round the dealer's whole
hand.  The table implements it (``twentyone.view.TableSeatView``); so does the course adapter.

``PLAYER`` and ``BANKER`` are the same records as the C structs' bytes (``c_src/twentyone.h``): the table packs
its seats this way once (``Seat.packed``) for a C strategy, in process or in a sandbox's box, with no
``Player`` object in between.  Every number in them is a C ``int``: the table keeps every account at most
``INT_MAX`` (RULES.md, **account_limit**), so they always fit.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from twentyone.rules import INT_MAX

if TYPE_CHECKING:
    from twentyone.rules import Rules

__all__ = ["Player", "Banker", "SeatView", "NO_CARD", "INT_MAX", "PLAYER", "BANKER", "NO_PLAYER", "STATE_BYTE", "ShowArgs",
           "pack_player", "pack_banker"]

#: What ``tmpcards`` shows for a seat that is empty or out of the game, and for the hole card.
NO_CARD = "-"
HOLE = "X"

#: The course's ``Player`` struct, 64 bytes: name[20], account, mycards[20], count, state, mybets, points, rounds.
PLAYER = struct.Struct("=20si20sic3xiii")
#: The course's ``Banker`` struct, 32 bytes: mycards[20], count, state, points.
BANKER = struct.Struct("=20sic3xi")
#: A seat nobody sits at, as a function set with a larger K than the table's seats sees it: all zero.
NO_PLAYER = bytes(PLAYER.size)
#: The arguments of the course's ``showK`` with the records packed: (Banker, Player array, pNum, N, pos).
ShowArgs = tuple[bytes, bytes, int, int, int]
#: A record's one-character state as its byte ('' is NUL).
STATE_BYTE = {c: c.encode("latin-1")[:1] or b"\0" for c in ("", "i", "h", "s", "d", "u", "p", "a", "c", "l")}


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


@runtime_checkable
class SeatView(Protocol):
    """What one seat may see of the table, as the rules let it: the contract between engine and strategy.

    The table gives each seat an implementation (``twentyone.view.TableSeatView``); the course adapter
    builds one from the C arguments (``twentyone.strategy.CourseSeatView``).  A view never holds the
    shoe, or the hole card before it is shown.  ``can_double``, ``can_surrender``, ``can_insure``,
    ``can_split`` and ``can_change`` are decided by ``twentyone.legality``, as the table decides them.
    After a split, ``my_cards``, ``total``, ``soft`` and ``bet`` are those of the hand being played.
    """

    @property
    def seat(self) -> int:
        """This seat's number, 1-based."""

    @property
    def name(self) -> str:
        """This seat's name."""

    @property
    def account(self) -> int:
        """Money not on the table."""

    @property
    def bet(self) -> int:
        """The stake of the hand being played (doubled after a double)."""

    @property
    def my_cards(self) -> str:
        """The cards of the hand being played, in the order dealt."""

    @property
    def total(self) -> int:
        """The best total of the hand being played."""

    @property
    def soft(self) -> bool:
        """True when an ace in the hand being played counts 11."""

    @property
    def hands(self) -> tuple[str, ...]:
        """The cards of each of this seat's hands, left to right (one hand unless it split)."""

    @property
    def hand(self) -> int:
        """The index in ``hands`` of the hand being played (0 unless it split)."""

    @property
    def can_double(self) -> bool:
        """True when ``d`` is allowed now (for less than the bet if the account cannot pay it all)."""

    @property
    def can_surrender(self) -> bool:
        """True when ``u`` is allowed now."""

    @property
    def can_insure(self) -> bool:
        """True when ``i`` is allowed now and affordable."""

    @property
    def can_split(self) -> bool:
        """True when ``p`` is allowed now (a pair, the rules split, a whole bet affordable)."""

    @property
    def can_change(self) -> bool:
        """True when ``c`` (the French game's Changer) is allowed now."""

    @property
    def rounds(self) -> int:
        """Rounds this seat has played so far."""

    @property
    def decks(self) -> int:
        """Decks in the shoe (the course's N)."""

    @property
    def rules(self) -> Rules:
        """The rules of this table."""

    @property
    def seats(self) -> int:
        """Player seats at the table."""

    @property
    def up_card(self) -> str:
        """The dealer's up card."""

    @property
    def dealer_cards(self) -> str:
        """The dealer's cards that are face up (the whole hand once it is shown)."""

    @property
    def pos(self) -> int:
        """Cards of the current shoe dealt so far."""

    @property
    def shoe_size(self) -> int:
        """Cards in a full shoe."""

    @property
    def round(self) -> int:
        """The current round number, 1-based."""

    def seat_cards(self, seat: int) -> str:
        """The face-up cards of ``seat`` this round ('' for a seat not in the round)."""

    def round_cards(self) -> str:
        """Every card face up on the table now: the dealer's shown cards, then each seat's."""

    def tmpcards(self, k: int | None = None) -> str:
        """The course's ``tmpcards`` for function set ``k`` (default: this seat's number)."""

    def players(self, k: int | None = None, *, self_first: bool = False) -> list[Player]:
        """Fresh Player copies in function set ``k``'s order; with ``self_first`` this seat is also at [0]."""

    def banker(self) -> Banker:
        """A fresh Banker copy: the shown cards, 'l' once the hole card is shown."""

    def packed_players(self, k: int | None = None, *, self_first: bool = False) -> bytes:
        """``players(k, self_first=...)`` as C ``Player`` structs (``PLAYER``), one after the other."""

    def packed_banker(self) -> bytes:
        """``banker()`` as the C ``Banker`` struct (``BANKER``)."""

    def packed_show(self, k: int | None = None) -> ShowArgs:
        """The arguments of the course's ``showK`` for set ``k``, the records packed: (banker, players, pNum, N,
        pos)."""


def pack_player(p: Player) -> bytes:
    """``p`` as the C struct: the strings cut to 19 bytes (and a NUL), as the C side stores them."""
    return PLAYER.pack(p.name.encode("utf-8")[:19], p.account, p.mycards.encode("latin-1")[:19], p.count,
                       p.state.encode("latin-1")[:1] or b"\0", p.mybets, p.points, p.rounds)


def pack_banker(b: Banker) -> bytes:
    """``b`` as the C struct."""
    return BANKER.pack(b.mycards.encode("latin-1")[:19], b.count, b.state.encode("latin-1")[:1] or b"\0", b.points)
