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

from twentyone.cards import TENS, VALUE, calculate, hand_total
from twentyone.core import Generator, StackedGenerator
from twentyone.errors import IllegalActionError, strategy_text
from twentyone.legality import FAULTS, Foul, double_amount, double_problem, insurance_problem, surrender_problem
from twentyone.records import HOLE, NO_CARD, Banker, Player
from twentyone.rules import COURSE, Rules
from twentyone.seat import Seat
from twentyone.strategy import Strategy

__all__ = ["Table", "TableSeatView", "Foul", "FAULTS", "StrategyFault", "StackedGenerator"]


class StrategyFault(Exception):
    """Raised by a strategy adapter to report a fault with its cause (one of ``FAULTS``)."""

    def __init__(self, cause: Foul, detail: str = "") -> None:
        super().__init__(detail or cause)
        self.cause = cause
        self.detail = detail


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
            Seat(i + 1, name, spec, strat, rules.start_money) for i, (name, spec, strat) in enumerate(players)
        ]
        for s in self.seats:
            s.view = TableSeatView(self, s)
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
        self._threshold = rules.reshuffle_threshold(decks)
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
        """True when fewer cards remain than the rules' reshuffle point (a quarter of the shoe in the course)."""
        return len(self.shoe) - self.pos < self._threshold

    # -- round steps -------------------------------------------------------------------------
    def round_init(self) -> list[Seat]:
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
            s.added = 0
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

    def place_bet(self, s: Seat) -> None:
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

    def _stake(self, s: Seat, b: int) -> None:
        if b < self.rules.min_bet:
            b = self.rules.min_bet
        if b > s.account:
            b = s.account
        s.bet = b
        s.account -= b

    def first_deal(self, active: list[Seat]) -> None:
        """Two cards face up to each player in seat order, then the dealer's up card and hole card."""
        for s in active:
            s.take(self.getcard())
            s.take(self.getcard())
            s.bj = s.hard == 11 and s.ace and len(s.cards) == 2
        up = self.getcard()
        self.hole = self.getcard()
        self.up_card = up
        self.dealer_shown = [up]

    def foul(self, s: Seat, cause: Foul) -> None:
        """The course's ``foul``: the hand ends and everything staked this round is lost."""
        s.foul = cause
        s.done = True

    def fault(self, s: Seat, cause: Foul, detail: str = "") -> None:
        """A strategy fault: foul the hand and take the player out of the match."""
        self.foul(s, cause)
        detail = strategy_text(detail)
        s.fault_cause = cause
        s.fault_detail = detail
        s.faulted = True
        self.round_faults.append({"seat": s.seat, "cause": cause, "detail": detail})

    def _ask(self, s: Seat, first: bool) -> str | None:
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

    # -- legality: verify_x raises, can_x answers, x acts (twentyone.legality decides) ------------
    def _insurance_problem(self, s: Seat) -> Foul | None:
        return insurance_problem(self.rules, self.up_card, s.state, s.account, s.bet)

    def _double_problem(self, s: Seat) -> Foul | None:
        return double_problem(self.rules, len(s.cards), s.state, s.account, s.bet)

    def _surrender_problem(self, s: Seat) -> Foul | None:
        return surrender_problem(self.rules, len(s.cards), s.state)

    def verify_insurance(self, s: Seat) -> None:
        """Raise IllegalActionError if ``s`` may not buy insurance now."""
        _verify(s, "i", self._insurance_problem(s))

    def can_insure(self, s: Seat) -> bool:
        """True when ``s`` may buy insurance now."""
        return self._insurance_problem(s) is None

    def insurance(self, s: Seat) -> None:
        """The course's ``insurance``: stake I = bet // 2 against a dealer Black Jack (a foul if not allowed)."""
        problem = self._insurance_problem(s)
        if problem is not None:
            self.foul(s, problem)
            return
        i = s.bet // 2
        s.account -= i
        s.insurance = i
        s.state = "i"
        s.actions.append("i")

    def hit(self, s: Seat) -> None:
        """The course's ``hit``: one more card; a bust or a 21 ends the hand."""
        s.state = "h"
        s.actions.append("h")
        s.take(self.getcard())
        t = s.total()
        if t >= 21:
            s.done = True

    def verify_double(self, s: Seat) -> None:
        """Raise IllegalActionError if ``s`` may not double now."""
        _verify(s, "d", self._double_problem(s))

    def can_double(self, s: Seat) -> bool:
        """True when ``s`` may double now."""
        return self._double_problem(s) is None

    def dbl(self, s: Seat) -> None:
        """The course's ``dbl``: double the stake, take exactly one card, end the hand (a foul if not allowed).

        A player who cannot pay the whole double doubles for less: the stake grows by what is left of
        the account, possibly nothing (RULES.md, **double_for_less**).
        """
        problem = self._double_problem(s)
        if problem is not None:
            self.foul(s, problem)
            return
        add = double_amount(s.account, s.bet)
        s.account -= add
        s.added = add
        s.bet += add
        s.doubled = True
        s.state = "d"
        s.actions.append("d")
        s.take(self.getcard())
        s.done = True

    def verify_surrender(self, s: Seat) -> None:
        """Raise IllegalActionError if ``s`` may not surrender now."""
        _verify(s, "u", self._surrender_problem(s))

    def can_surrender(self, s: Seat) -> bool:
        """True when ``s`` may surrender now."""
        return self._surrender_problem(s) is None

    def surrender(self, s: Seat) -> None:
        """The course's ``surrender``: the hand ends; bet // 2 comes back at settlement (a foul if not allowed)."""
        problem = self._surrender_problem(s)
        if problem is not None:
            self.foul(s, problem)
            return
        s.surrendered = True
        s.state = "u"
        s.actions.append("u")
        s.done = True

    def stand(self, s: Seat) -> None:
        """End the hand as it is."""
        s.state = "s"
        s.actions.append("s")
        s.done = True

    def _first_choice(self, s: Seat, a: str) -> bool:
        """Validate a first action; apply insurance now.  Return True if it is still to take effect."""
        if a == "i":
            self.insurance(s)  # fouls it when the dealer does not show an A, or it cannot be paid
            return False
        if a in "hsd" or (a == "u" and self._surrender_problem(s) is None):
            return True
        self.foul(s, Foul.ILLEGAL_ACTION)
        return False

    def _take_effect(self, s: Seat, a: str) -> None:
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

    def _after_insurance(self, s: Seat) -> None:
        """An insured hand with no dealer Black Jack: the next decision may still be h, s, d or u."""
        if s.bj:
            s.done = True
            return
        c = self._ask(s, False)
        if c is None:
            return
        if c in "hsd" or (c == "u" and self._surrender_problem(s) is None):
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
            t = hand_total(hard, ace)
            if t > 17 or (t == 17 and not (t != hard and h17)):
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
        return hand_total(self.dealer_hard, self.dealer_ace)

    def judge(self, active: list[Seat], dealer_bj: bool) -> None:
        """The course's ``judge``: settle every hand of the round and pay the dealer or the player."""
        rules = self.rules
        d = self.dealer_total()
        dealer_bust = d > 21
        for s in active:
            if s.foul is not None:
                continue
            if dealer_bj:
                if s.insurance:
                    s.account += rules.insurance_return(s.insurance)
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
    def play_round(self, active: list[Seat]) -> bool:
        """Play one round for ``active`` (from ``round_init``); return whether the dealer had Black Jack."""
        for s in active:
            self.place_bet(s)
        self.first_deal(active)
        up, hole = self.up_card, self.hole
        dealer_bj = (up == "A" and hole in TENS) or (up in TENS and hole == "A")
        if up in TENS and dealer_bj:
            pass  # revealed at once: nobody is asked for a decision
        elif up == "A":
            chosen: list[tuple[Seat, str]] = []
            for s in active:
                if s.done:
                    continue
                a = self._ask(s, True)
                if a is not None and self._first_choice(s, a):
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
                if a is not None and self._first_choice(s, a):
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

    def void_round(self, active: list[Seat]) -> None:
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

    def _fault_outside_round(self, s: Seat, cause: Foul, detail: str) -> None:
        """A fault in show: the hand is already settled and stays so; the player leaves the match."""
        detail = strategy_text(detail)
        s.faulted = True
        s.fault_cause = cause
        s.fault_detail = detail
        self.round_faults.append({"seat": s.seat, "cause": cause, "detail": detail})

    def round_record(self, active: list[Seat], shoe: int, first_card: int, dealer_bj: bool) -> dict[str, Any]:
        """The round's log record (see RULES.md, "The round log"); ``faults`` only when there were any."""
        record = {
            "type": "round",
            "round": self.round_no,
            "shoe": shoe,
            "first_card": first_card,
            "dealer": "".join(self.dealer_shown),
            "dealer_bj": dealer_bj,
            "players": [_player_record(s) for s in active],
        }
        if self.round_faults:
            record["faults"] = list(self.round_faults)
        return record


def _player_record(s: Seat) -> dict[str, Any]:
    """One seat's part of a round record; ``added`` only after a double for less."""
    bet = s.bet - s.added
    rec: dict[str, Any] = {
        "seat": s.seat, "account_before": s.account_before, "bet": bet, "insurance": s.insurance,
        "actions": "".join(s.actions), "cards": "".join(s.cards), "bj": s.bj, "doubled": s.doubled,
    }
    if s.doubled and s.added < bet:
        rec["added"] = s.added
    rec.update(surrendered=s.surrendered, foul=s.foul, account_after=s.account)
    return rec


def _verify(s: Seat, action: str, problem: Foul | None) -> None:
    if problem is not None:
        raise IllegalActionError(f"illegal action: {action!r} at seat {s.seat} ({problem})")


class TableSeatView:
    """The table's ``SeatView`` of one seat (``twentyone.records.SeatView``): read-only, what the seat may see."""

    __slots__ = ("_t", "_s")

    def __init__(self, table: Table, seat: Seat) -> None:
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
        return hand_total(self._s.hard, self._s.ace)

    @property
    def soft(self) -> bool:
        """True when an ace in this seat's hand counts 11."""
        s = self._s
        return hand_total(s.hard, s.ace) != s.hard

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
