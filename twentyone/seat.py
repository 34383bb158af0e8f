"""One seat at the table: the engine's own state of a player and the hands it holds this round.

A ``Seat`` is also its dealt ``Hand``: in the course game (no split) a seat plays exactly one hand, and
keeping that hand's fields on the seat keeps the engine's hot path one attribute deep.  When a seat
splits, its dealt hand ends with ``p`` and its ``hands`` list holds the split hands, played left to
right; ``cur`` is the hand being played (the seat itself otherwise).

Strategies never get a ``Seat``; they get its read-only view (``twentyone.view.TableSeatView``).
``record`` makes the course's ``Player`` copy of it, ``packed`` the same record as the C struct's bytes.
"""

from __future__ import annotations

from typing import Any

from twentyone.cards import BEST_TOTAL, VALUE
from twentyone.legality import Foul
from twentyone.records import PLAYER, STATE_BYTE, Player, SeatView
from twentyone.strategy import Strategy

__all__ = ["Hand", "Seat"]


class Hand:
    """One hand's cards, stake and state.  A split hand is one of these; a seat is its own dealt hand."""

    __slots__ = ("cards", "hard", "ace", "state", "actions", "bet", "added", "doubled", "done", "changed",
                 "returned")

    def __init__(self) -> None:
        self.cards: list[str] = []
        self.hard = 0
        self.ace = False
        #: The hand's latest action character; '' before any, 'p' for a split hand before its first.
        self.state = ""
        self.actions: list[str] = []
        self.bet = 0
        #: What a double added to the stake: the bet, or less when the account could not pay it all.
        self.added = 0
        self.doubled = False
        self.done = False
        #: The card a Changer took away ('' if none).
        self.changed = ""
        #: What settlement handed back for this hand (split hands only; for the round log).
        self.returned = 0

    def total(self) -> int:
        """Best total of the hand (``hand_total``)."""
        return BEST_TOTAL[self.ace][self.hard]

    def take(self, card: str) -> None:
        """Add ``card`` to the hand."""
        self.cards.append(card)
        self.hard += VALUE[card]
        if card == "A":
            self.ace = True

    def log_record(self) -> dict[str, Any]:
        """This split hand's part of its seat's round record: cards, actions, stake, result, what came back."""
        bet = self.bet - self.added
        rec: dict[str, Any] = {"cards": "".join(self.cards), "actions": "".join(self.actions), "bet": bet,
                               "doubled": self.doubled}
        if self.doubled and self.added < bet:
            rec["added"] = self.added
        rec["result"] = "win" if self.returned > self.bet else "push" if self.returned == self.bet else "lose"
        rec["returned"] = self.returned
        return rec

    def drop_last(self) -> str:
        """Take the last card back out of the hand (a split or a Changer) and return it."""
        card = self.cards.pop()
        self.hard -= VALUE[card]
        self.ace = "A" in self.cards
        return card


class Seat(Hand):
    """The engine's own state for one seat, and its dealt hand.  Strategies never get this object."""

    __slots__ = (
        "seat", "name", "spec", "strategy", "view", "account", "in_game", "faulted", "rounds",
        "in_round", "insurance", "insured", "surrendered", "foul", "fault_cause", "fault_detail", "bj", "account_before",
        "hands", "cur", "name_bytes",
    )

    def __init__(self, seat: int, name: str, spec: str, strategy: Strategy, money: int) -> None:
        super().__init__()
        self.seat = seat
        self.name = name
        #: The name as the C struct holds it (UTF-8, at most 19 bytes).
        self.name_bytes = name.encode("utf-8")[:19]
        self.spec = spec
        self.strategy = strategy
        self.account = money
        self.in_game = True
        self.faulted = False
        self.rounds = 0
        self.in_round = False
        #: What insurance cost this round (bet // 2: 0 on a bet of 1); ``insured`` says whether it was bought.
        self.insurance = 0
        self.insured = False
        self.surrendered = False
        self.foul: Foul | None = None
        self.fault_cause = ""
        self.fault_detail = ""
        self.bj = False
        self.account_before = money
        #: The split hands, left to right (empty unless the seat split this round).
        self.hands: list[Hand] = []
        #: The hand being played: the seat itself, or one of ``hands``.
        self.cur: Hand = self
        #: The seat's SeatView, given to its strategy (set by the table).
        self.view: SeatView

    def all_cards(self) -> str:
        """Every card this seat was dealt this round, face up: its hands' cards, then any card a Changer
        took away."""
        cards = "".join("".join(h.cards) for h in self.hands) if self.hands else "".join(self.cards)
        return cards + self.changed

    def stake(self) -> int:
        """Everything on the table for this seat's hands (without insurance)."""
        return sum(h.bet for h in self.hands) if self.hands else self.bet

    def log_record(self) -> dict[str, Any]:
        """The seat's part of a round record (RULES.md, "The round log"): ``added`` only after a double for
        less, ``changed`` only after a Changer, ``hands`` only after a split, so a course log is unchanged."""
        bet = self.bet - self.added
        rec: dict[str, Any] = {
            "seat": self.seat, "account_before": self.account_before, "bet": bet, "insurance": self.insurance,
            "actions": "".join(self.actions), "cards": "".join(self.cards), "bj": self.bj, "doubled": self.doubled,
        }
        if self.doubled and self.added < bet:
            rec["added"] = self.added
        if self.changed:
            rec["changed"] = self.changed
        rec["surrendered"] = self.surrendered
        rec["foul"] = self.foul
        if self.hands:
            rec["hands"] = [h.log_record() for h in self.hands]
        rec["account_after"] = self.account
        return rec

    def record(self) -> Player:
        """A fresh course ``Player`` copy of this seat (a seat that split: its hands' cards one after the
        other, cut to the struct's 19 characters by the C side, and the stakes of all its hands)."""
        if self.hands:
            cards = "".join("".join(h.cards) for h in self.hands)
            return Player(self.name, self.account, cards, len(cards), self.state, self.stake(),
                          BEST_TOTAL[self.cur.ace][self.cur.hard], self.rounds)
        cards = "".join(self.cards)
        return Player(self.name, self.account, cards, len(cards), self.state, self.bet,
                      BEST_TOTAL[self.ace][self.hard], self.rounds)

    def packed(self) -> bytes:
        """``record()`` as the C ``Player`` struct's 64 bytes (``records.PLAYER``), made without a ``Player``."""
        state = STATE_BYTE.get(self.state) or self.state.encode("latin-1")[:1]
        if self.hands:
            cards = "".join("".join(h.cards) for h in self.hands)
            return _pack_player(self.name_bytes, self.account, cards.encode("latin-1")[:19], len(cards), state,
                                self.stake(), BEST_TOTAL[self.cur.ace][self.cur.hard], self.rounds)
        cards = "".join(self.cards)
        return _pack_player(self.name_bytes, self.account, cards.encode("latin-1")[:19], len(cards), state, self.bet,
                            BEST_TOTAL[self.ace][self.hard], self.rounds)


_pack_player = PLAYER.pack
