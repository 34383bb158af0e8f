"""One seat at the table: the engine's own state of a player and the hand it holds this round.

Strategies never get a ``Seat``; they get its read-only view (``twentyone.table.TableSeatView``).
``record`` makes the course's ``Player`` copy of it.
"""

from __future__ import annotations

from twentyone.cards import VALUE, hand_total
from twentyone.legality import Foul
from twentyone.records import Player, SeatView
from twentyone.strategy import Strategy

__all__ = ["Seat"]


class Seat:
    """The engine's own state for one seat.  Strategies never get this object."""

    __slots__ = (
        "seat", "name", "spec", "strategy", "view", "account", "in_game", "faulted", "rounds",
        "in_round", "bet", "insurance", "cards", "hard", "ace", "state", "actions", "doubled", "added",
        "surrendered", "foul", "fault_cause", "fault_detail", "done", "bj", "account_before",
    )

    def __init__(self, seat: int, name: str, spec: str, strategy: Strategy, money: int) -> None:
        self.seat = seat
        self.name = name
        self.spec = spec
        self.strategy = strategy
        self.account = money
        self.in_game = True
        self.faulted = False
        self.rounds = 0
        self.in_round = False
        self.bet = 0
        self.insurance = 0
        self.cards: list[str] = []
        self.hard = 0
        self.ace = False
        self.state = ""
        self.actions: list[str] = []
        self.doubled = False
        #: What a double added to the stake: the bet, or less when the account could not pay it all.
        self.added = 0
        self.surrendered = False
        self.foul: Foul | None = None
        self.fault_cause = ""
        self.fault_detail = ""
        self.done = False
        self.bj = False
        self.account_before = money
        #: The seat's SeatView, given to its strategy (set by the table).
        self.view: SeatView

    def total(self) -> int:
        """Best total of the hand."""
        return hand_total(self.hard, self.ace)

    def take(self, card: str) -> None:
        """Add ``card`` to the hand."""
        self.cards.append(card)
        self.hard += VALUE[card]
        if card == "A":
            self.ace = True

    def record(self) -> Player:
        """A fresh course ``Player`` copy of this seat."""
        cards = "".join(self.cards)
        return Player(self.name, self.account, cards, len(cards), self.state, self.bet,
                      hand_total(self.hard, self.ace), self.rounds)
