"""One table and its rounds: the course's ``twentyone.c`` (round_init, first_deal, getcard,
insurance, hit, dbl, surrender, foul, banker_continue, judge), played as ``RULES.md`` says.

A ``Table`` holds the shoe, the dealer and the seats.  ``play_round`` runs one round in the
course's order and returns its record; ``twentyone.match`` runs rounds until the match ends.
Strategies are called through ``twentyone.strategy.Strategy`` with a ``SeatView`` that shows only
what the seat may see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from twentyone.cards import TENS, VALUE, check_cards
from twentyone.core import Generator
from twentyone.errors import BadCardsError
from twentyone.records import Player, SeatView
from twentyone.rules import COURSE, Rules
from twentyone.strategy import Strategy

__all__ = ["Table", "Foul", "StackedGenerator"]


class Foul:
    """The causes a hand can be fouled for, as written in the round log."""

    ILLEGAL_ACTION = "illegal_action"
    ILLEGAL_INSURANCE = "illegal_insurance"
    UNAFFORDABLE_INSURANCE = "unaffordable_insurance"
    UNAFFORDABLE_DOUBLE = "unaffordable_double"
    #: Strategy faults: the player is out of the match afterwards.
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"
    FAULTS = frozenset({ERROR, CRASH, TIMEOUT})


class StrategyFault(Exception):
    """Raised by a strategy adapter to report a fault with its cause (see ``Foul.FAULTS``)."""

    def __init__(self, cause: str, detail: str = "") -> None:
        super().__init__(detail or cause)
        self.cause = cause
        self.detail = detail


class StackedGenerator:
    """A stand-in for ``Generator`` that deals chosen shoes, for scenario tests and audits.

    Each call to ``shoe`` returns the next stacked string; when they run out it repeats the last.
    """

    def __init__(self, shoes: Sequence[str]) -> None:
        if not shoes:
            raise BadCardsError("a stacked shoe needs at least one card string")
        self._shoes = [check_cards(s) for s in shoes]
        self._i = 0

    def shoe(self, decks: int) -> bytes:
        """Return the next stacked shoe."""
        s = self._shoes[min(self._i, len(self._shoes) - 1)]
        self._i += 1
        return s.encode("ascii")


class _Seat:
    """The engine's own state for one seat.  Strategies never get this object."""

    __slots__ = (
        "seat", "name", "spec", "strategy", "view", "account", "in_game", "faulted", "rounds",
        "in_round", "bet", "insurance", "cards", "hard", "ace", "state", "actions", "doubled",
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
        self.surrendered = False
        self.foul: str | None = None
        self.fault_cause = ""
        self.fault_detail = ""
        self.done = False
        self.bj = False
        self.account_before = money
        self.view: SeatView

    def total(self) -> int:
        """Best total of the hand."""
        return self.hard + 10 if self.ace and self.hard <= 11 else self.hard

    def take(self, card: str) -> None:
        """Add ``card`` to the hand."""
        self.cards.append(card)
        self.hard += VALUE[card]
        if card == "A":
            self.ace = True

    def record(self) -> Player:
        """A fresh course ``Player`` copy of this seat."""
        cards = "".join(self.cards)
        hard, ace = self.hard, self.ace
        return Player(
            self.name, self.account, cards, len(cards), self.state, self.bet,
            hard + 10 if ace and hard <= 11 else hard, self.rounds,
        )


class Table:
    """The dealer, the shoe and up to five seats, playing the course's rounds."""

    def __init__(
        self,
        players: Sequence[tuple[str, str, Strategy]],
        decks: int,
        generator: Generator | StackedGenerator,
        rules: Rules = COURSE,
        on_shuffle: Callable[[int, str, bool], None] | None = None,
    ) -> None:
        rules.check_table(decks, len(players))
        self.rules = rules
        self.decks = decks
        self.generator = generator
        self.on_shuffle = on_shuffle
        self.seats = [
            _Seat(i + 1, name, spec, strat, rules.start_money) for i, (name, spec, strat) in enumerate(players)
        ]
        for s in self.seats:
            s.view = SeatView(self, s)
        self.shoe = ""
        self.pos = 0
        self.shoe_no = 0
        self.shuffles = 0
        self.round_no = 0
        self.up_card = ""
        self.hole = ""
        self.hole_shown = False
        self.dealer_shown: list[str] = []
        self.dealer_hard = 0
        self.dealer_ace = False
        self._threshold = decks * 52 // rules.reshuffle_den
        #: Strategy faults of the current round: seat, cause, detail (for the round log).
        self.round_faults: list[dict[str, Any]] = []

    # -- shoe: init_cards / shuffle_cards / getcard ----------------------------------------------
    def shuffle_cards(self, mid_round: bool = False) -> None:
        """Shuffle a full new shoe (the course's init_cards + shuffle_cards) and count it."""
        self.shoe = self.generator.shoe(self.decks).decode("ascii")
        self.pos = 0
        self.shoe_no += 1
        self.shuffles += 1
        if self.on_shuffle is not None:
            self.on_shuffle(self.shoe_no, self.shoe, mid_round)

    def getcard(self) -> str:
        """Deal the next card, refilling the shoe at once if it ran out mid-round."""
        if self.pos >= len(self.shoe):
            self.shuffle_cards(mid_round=True)
        c = self.shoe[self.pos]
        self.pos += 1
        return c

    def needs_shuffle(self) -> bool:
        """True when fewer than a quarter of the shoe's cards remain."""
        return len(self.shoe) - self.pos < self._threshold

    # -- round steps -------------------------------------------------------------------------
    def round_init(self) -> list[_Seat]:
        """Start a round: drop players below the minimum bet and clear every hand; return who plays."""
        self.round_no += 1
        self.up_card = ""
        self.hole = ""
        self.hole_shown = False
        self.dealer_shown = []
        self.dealer_hard = 0
        self.dealer_ace = False
        self.round_faults = []
        active = []
        min_bet = self.rules.min_bet
        for s in self.seats:
            s.cards = []
            s.hard = 0
            s.ace = False
            s.state = ""
            s.actions = []
            s.bet = 0
            s.insurance = 0
            s.doubled = s.surrendered = s.done = s.bj = False
            s.foul = None
            s.in_round = False
            s.account_before = s.account
            if s.in_game and s.account < min_bet:
                s.in_game = False
            if s.in_game and not s.faulted:
                active.append(s)
        return active

    def place_bet(self, s: _Seat) -> None:
        """Ask ``s`` for its bet and clamp it to [min_bet, all its money]."""
        s.in_round = True
        s.rounds += 1
        try:
            b = s.strategy.bet(s.view)
            if b.__class__ is not int:
                raise StrategyFault(Foul.ERROR, f"bet returned {b!r}, not an int")
        except StrategyFault as e:
            b = self.rules.min_bet
            self._stake(s, b)
            self.fault(s, e.cause, e.detail)
            return
        except Exception as e:  # noqa: BLE001 - any exception from student code is a fault
            b = self.rules.min_bet
            self._stake(s, b)
            self.fault(s, Foul.ERROR, f"bet raised {type(e).__name__}: {e}")
            return
        self._stake(s, b)

    def _stake(self, s: _Seat, b: int) -> None:
        if b < self.rules.min_bet:
            b = self.rules.min_bet
        if b > s.account:
            b = s.account
        s.bet = b
        s.account -= b

    def first_deal(self, active: list[_Seat]) -> None:
        """Two cards face up to each player in seat order, then the dealer's up card and hole card."""
        for s in active:
            s.take(self.getcard())
            s.take(self.getcard())
            s.bj = s.hard == 11 and s.ace and len(s.cards) == 2
        up = self.getcard()
        self.hole = self.getcard()
        self.up_card = up
        self.dealer_shown = [up]

    def foul(self, s: _Seat, cause: str) -> None:
        """The course's ``foul``: the hand ends and everything staked this round is lost."""
        s.foul = cause
        s.done = True

    def fault(self, s: _Seat, cause: str, detail: str = "") -> None:
        """A strategy fault: foul the hand and take the player out of the match."""
        self.foul(s, cause)
        s.fault_cause = cause
        s.fault_detail = detail
        s.faulted = True
        self.round_faults.append({"seat": s.seat, "cause": cause, "detail": detail})

    def _ask(self, s: _Seat, first: bool) -> str | None:
        """Ask ``s`` for a decision; return its character, or None after a fault."""
        try:
            a = s.strategy.first_action(s.view) if first else s.strategy.continue_action(s.view)
        except StrategyFault as e:
            self.fault(s, e.cause, e.detail)
            return None
        except Exception as e:  # noqa: BLE001 - any exception from student code is a fault
            where = "first_action" if first else "continue_action"
            self.fault(s, Foul.ERROR, f"{where} raised {type(e).__name__}: {e}")
            return None
        if a.__class__ is not str or len(a) != 1:
            where = "first_action" if first else "continue_action"
            self.fault(s, Foul.ERROR, f"{where} returned {a!r}, not one character")
            return None
        return a

    def insurance(self, s: _Seat) -> None:
        """The course's ``insurance``: stake I = bet // 2 against a dealer Black Jack."""
        i = s.bet // 2
        if s.account < i:
            self.foul(s, Foul.UNAFFORDABLE_INSURANCE)
            return
        s.account -= i
        s.insurance = i
        s.state = "i"
        s.actions.append("i")

    def hit(self, s: _Seat) -> None:
        """The course's ``hit``: one more card; a bust or a 21 ends the hand."""
        s.state = "h"
        s.actions.append("h")
        s.take(self.getcard())
        t = s.total()
        if t >= 21:
            s.done = True

    def dbl(self, s: _Seat) -> None:
        """The course's ``dbl``: double the stake, take exactly one card, end the hand."""
        if s.account < s.bet:
            self.foul(s, Foul.UNAFFORDABLE_DOUBLE)
            return
        s.account -= s.bet
        s.bet *= 2
        s.doubled = True
        s.state = "d"
        s.actions.append("d")
        s.take(self.getcard())
        s.done = True

    def surrender(self, s: _Seat) -> None:
        """The course's ``surrender``: the hand ends; bet // 2 comes back at settlement."""
        s.surrendered = True
        s.state = "u"
        s.actions.append("u")
        s.done = True

    def stand(self, s: _Seat) -> None:
        """End the hand as it is."""
        s.state = "s"
        s.actions.append("s")
        s.done = True

    def _first_choice(self, s: _Seat, a: str, insurance_open: bool) -> bool:
        """Validate a first action; apply insurance now.  Return True if it is still to take effect."""
        if a == "i":
            if not insurance_open:
                self.foul(s, Foul.ILLEGAL_INSURANCE)
                return False
            self.insurance(s)
            return False
        if a in "hsdu" and (a != "u" or self.rules.surrender):
            return True
        self.foul(s, Foul.ILLEGAL_ACTION)
        return False

    def _take_effect(self, s: _Seat, a: str) -> None:
        """Make a two-card decision take effect, then play the hand out through continue_action."""
        if s.bj:
            s.state = a
            s.actions.append(a)
            s.done = True
            return
        if a == "h":
            self.hit(s)
        elif a == "s":
            self.stand(s)
        elif a == "d":
            self.dbl(s)
        else:
            self.surrender(s)
        while not s.done:
            c = self._ask(s, False)
            if c is None:
                return
            if c == "h":
                self.hit(s)
            elif c == "s":
                self.stand(s)
            else:
                self.foul(s, Foul.ILLEGAL_ACTION)

    def _after_insurance(self, s: _Seat) -> None:
        """An insured hand with no dealer Black Jack: the next decision may still be h, s, d or u."""
        if s.bj:
            s.done = True
            return
        c = self._ask(s, False)
        if c is None:
            return
        if c in "hsdu" and (c != "u" or self.rules.surrender):
            self._take_effect(s, c)
        else:
            self.foul(s, Foul.ILLEGAL_ACTION)

    def banker_continue(self) -> None:
        """The course's ``banker_continue``: show the hole card and draw to 17 or more."""
        self.hole_shown = True
        self.dealer_shown.append(self.hole)
        hard = VALUE[self.up_card] + VALUE[self.hole]
        ace = self.up_card == "A" or self.hole == "A"
        h17 = self.rules.dealer_hits_soft_17
        while True:
            soft = ace and hard <= 11
            t = hard + 10 if soft else hard
            if t > 17 or (t == 17 and not (soft and h17)):
                break
            c = self.getcard()
            self.dealer_shown.append(c)
            hard += VALUE[c]
            if c == "A":
                ace = True
        self.dealer_hard = hard
        self.dealer_ace = ace

    def dealer_total(self) -> int:
        """The dealer's best total (after ``banker_continue``)."""
        h = self.dealer_hard
        return h + 10 if self.dealer_ace and h <= 11 else h

    def judge(self, active: list[_Seat], dealer_bj: bool) -> None:
        """The course's ``judge``: settle every hand of the round and pay the dealer or the player."""
        rules = self.rules
        d = self.dealer_total()
        dealer_bust = d > 21
        for s in active:
            if s.foul is not None:
                continue
            if dealer_bj:
                if s.insurance:
                    s.account += s.insurance * (rules.insurance_pays + 1)
                if s.bj:
                    s.account += s.bet
                continue
            if s.bj:
                s.account += rules.blackjack_return(s.bet)
                continue
            if s.surrendered:
                s.account += s.bet // 2
                continue
            t = s.total()
            if t > 21:
                continue
            if dealer_bust or t > d:
                s.account += 2 * s.bet
            elif t == d:
                s.account += s.bet

    # -- a whole round -----------------------------------------------------------------------
    def play_round(self, active: list[_Seat]) -> bool:
        """Play one round for ``active`` (from ``round_init``); return whether the dealer had Black Jack."""
        for s in active:
            self.place_bet(s)
        self.first_deal(active)
        up, hole = self.up_card, self.hole
        dealer_bj = (up == "A" and hole in TENS) or (up in TENS and hole == "A")
        if up in TENS and dealer_bj:
            pass  # revealed at once: nobody is asked for a decision
        elif up == "A":
            chosen: list[tuple[_Seat, str]] = []
            for s in active:
                if s.done:
                    continue
                a = self._ask(s, True)
                if a is not None and self._first_choice(s, a, True):
                    chosen.append((s, a))
            if dealer_bj:
                for s, a in chosen:
                    s.state = a
                    s.actions.append(a)
            else:
                pending = {id(s): a for s, a in chosen}
                for s in active:
                    if s.done:
                        continue
                    a2 = pending.get(id(s))
                    if a2 is not None:
                        self._take_effect(s, a2)
                    elif s.insurance:
                        self._after_insurance(s)
        else:
            for s in active:
                if s.done:
                    continue
                a = self._ask(s, True)
                if a is not None and self._first_choice(s, a, False):
                    self._take_effect(s, a)
        if dealer_bj:
            self.hole_shown = True
            self.dealer_shown.append(hole)
            self.dealer_hard = VALUE[up] + VALUE[hole]
            self.dealer_ace = True
        else:
            self.banker_continue()
        self.judge(active, dealer_bj)
        return dealer_bj

    def void_round(self, active: list[_Seat]) -> None:
        """Undo a round stopped before settlement (Ctrl-C): every stake goes back, the round is not counted."""
        for s in active:
            if s.in_round:
                s.account = s.account_before
                s.rounds -= 1
                s.in_round = False
        self.round_no -= 1

    def show_all(self, bets_follow: bool = False) -> None:
        """Call every seat's ``show`` at the end of the round (not a faulted seat's).

        ``bets_follow``: another round follows whatever the seats do, so a seat that can still bet
        will be asked for its bet; it is shown the round through ``Strategy.show_before_bet``.
        """
        min_bet = self.rules.min_bet
        for s in self.seats:
            if s.faulted:
                continue
            try:
                if bets_follow and s.in_game and s.account >= min_bet:
                    s.strategy.show_before_bet(s.view)
                else:
                    s.strategy.show(s.view)
            except StrategyFault as e:
                self._fault_outside_round(s, e.cause, e.detail)
            except Exception as e:  # noqa: BLE001 - any exception from student code is a fault
                self._fault_outside_round(s, Foul.ERROR, f"show raised {type(e).__name__}: {e}")

    def _fault_outside_round(self, s: _Seat, cause: str, detail: str) -> None:
        """A fault in show: the hand is already settled and stays so; the player leaves the match."""
        s.faulted = True
        s.fault_cause = cause
        s.fault_detail = detail
        self.round_faults.append({"seat": s.seat, "cause": cause, "detail": detail})

    def round_record(self, active: list[_Seat], shoe: int, first_card: int, dealer_bj: bool) -> dict[str, Any]:
        """The round's log record (see RULES.md, "The round log"); ``faults`` only when there were any."""
        record = {
            "type": "round",
            "round": self.round_no,
            "shoe": shoe,
            "first_card": first_card,
            "dealer": "".join(self.dealer_shown),
            "dealer_bj": dealer_bj,
            "players": [
                {
                    "seat": s.seat,
                    "account_before": s.account_before,
                    "bet": s.bet // 2 if s.doubled else s.bet,
                    "insurance": s.insurance,
                    "actions": "".join(s.actions),
                    "cards": "".join(s.cards),
                    "bj": s.bj,
                    "doubled": s.doubled,
                    "surrendered": s.surrendered,
                    "foul": s.foul,
                    "account_after": s.account,
                }
                for s in active
            ],
        }
        if self.round_faults:
            record["faults"] = list(self.round_faults)
        return record
