"""One table and its rounds: the course's ``twentyone.c`` (round_init, first_deal, getcard,
insurance, hit, dbl, surrender, foul, banker_continue, judge), played as ``RULES.md`` says, and the
actions other rule sets add: ``split`` and the French game's ``change`` (Changer).

A ``Table`` holds the shoe, the dealer and the seats.  ``play_round`` runs one round in the
course's order and returns its record; ``twentyone.match`` runs rounds until the match ends.
Strategies are called through ``twentyone.strategy.Strategy`` with a ``SeatView``
(``twentyone.view.TableSeatView``) that shows only what the seat may see.  Every option of the
``Rules`` is read here: the course's values take the same path as before they were options.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from twentyone.cards import BEST_TOTAL, TENS, VALUE, hand_total
from twentyone.core import Generator, StackedGenerator
from twentyone.errors import IllegalActionError, strategy_text
from twentyone.legality import (BET_VALUES, FAULTS, Foul, change_problem, double_amount, double_problem,
                                insurance_problem, not_a_bet, not_an_action, raised, split_problem,
                                surrender_problem)
from twentyone.records import ShowArgs
from twentyone.rules import COURSE, INT_MAX, Rules
from twentyone.seat import Hand, Seat
from twentyone.strategy import Strategy
from twentyone.view import TableSeatView

__all__ = ["Table", "TableSeatView", "Foul", "FAULTS", "StrategyFault", "StackedGenerator"]


_BET_LOW, _BET_HIGH = BET_VALUES.start, BET_VALUES.stop
_INT_MAX = INT_MAX


class StrategyFault(Exception):
    """Raised by a strategy adapter to report a fault with its cause (one of ``FAULTS``).  ``wall``: a time-out
    decided by a wall-clock backstop (not by the box's own CPU clock, nor by its blocking), the only kind the
    machine's load may cause (RULES.md, **grade_timeouts**)."""

    def __init__(self, cause: Foul, detail: str = "", wall: bool = False) -> None:
        super().__init__(detail or cause)
        self.cause = cause
        self.detail = detail
        self.wall = wall


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
        self._double_any = rules.double_on == "any"
        self._max_bet = rules.max_bet or 0
        self._two_card_checks: dict[str, Callable[[Seat], Foul | None]] = {
            "d": self._double_problem, "u": self._surrender_problem, "p": self._split_problem, "c": self._change_problem}
        #: Strategy faults of the current round: seat, cause, detail (for the round log).
        self.round_faults: list[dict[str, Any]] = []
        #: While ``show_all`` shows the settled round: what every view shows of it, made once by the first view that
        #: needs it (``TableSeatView.packed_show``: "own", ``showK``'s packed arguments); None otherwise.
        self.shown: dict[str, ShowArgs] | None = None

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
            s.insured = False
            s.doubled = s.surrendered = s.done = s.bj = False
            s.foul = None
            if s.hands:
                s.hands = []
                s.cur = s
            if s.changed:
                s.changed = ""
            s.in_round = False
            s.account_before = s.account
            if s.in_game and s.account < min_bet:
                s.in_game = False
            if s.in_game and not s.faulted:
                active.append(s)
        return active

    def place_bet(self, s: Seat) -> None:
        """Ask ``s`` for its bet and clamp it to [min_bet, max_bet], then to all its money."""
        s.in_round = True
        s.rounds += 1
        try:
            b = s.strategy.bet(s.view)
            if type(b) is not int or not _BET_LOW <= b < _BET_HIGH:  # legality.is_bet, inline: the hot path
                raise StrategyFault(Foul.ERROR, not_a_bet(b))
        except StrategyFault as e:
            b = self.rules.min_bet
            self._stake(s, b)
            self.fault(s, e.cause, e.detail)
            return
        except Exception as e:  # noqa: BLE001 - any exception from student code is a fault
            b = self.rules.min_bet
            self._stake(s, b)
            self.fault(s, Foul.ERROR, raised("bet", e))
            return
        self._stake(s, b)

    def _stake(self, s: Seat, b: int) -> None:
        if b < self.rules.min_bet:
            b = self.rules.min_bet
        if self._max_bet and b > self._max_bet:
            b = self._max_bet
        if b > s.account:
            b = s.account
        s.bet = b
        s.account -= b

    def first_deal(self, active: list[Seat]) -> None:
        """Two cards face up to each player in seat order, then the dealer's up card and hole card (no hole
        card when the rules have none: the dealer's second card comes after the players)."""
        for s in active:
            s.take(self.getcard())
            s.take(self.getcard())
            s.bj = s.hard == 11 and s.ace and len(s.cards) == 2
        up = self.getcard()
        self.hole = self.getcard() if self.rules.hole_card else ""
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
            self.fault(s, Foul.ERROR, raised("first_action" if first else "continue_action", e))
            return None
        if type(a) is not str or len(a) != 1:  # legality.is_action, inline: the hot path
            where = "first_action" if first else "continue_action"
            self.fault(s, Foul.ERROR, not_an_action(where, a))
            return None
        return a  # one character; any that is not an action allowed here is an illegal action (a foul)

    # -- legality: verify_x raises, can_x answers, x acts (twentyone.legality decides) ------------
    # Each works on the seat's hand being played (``s.cur``: the seat itself unless it split).
    def _insurance_problem(self, s: Seat) -> Foul | None:
        return insurance_problem(self.rules, self.up_card, s.state, s.account, s.bet)

    def _double_problem(self, s: Seat) -> Foul | None:
        h = s.cur
        if self._double_any:
            return double_problem(self.rules, len(h.cards), h.state, s.account, h.bet)
        t = hand_total(h.hard, h.ace)
        return double_problem(self.rules, len(h.cards), h.state, s.account, h.bet, t, t != h.hard)

    def _surrender_problem(self, s: Seat) -> Foul | None:
        h = s.cur
        return surrender_problem(self.rules, len(h.cards), h.state)

    def _split_problem(self, s: Seat) -> Foul | None:
        h = s.cur
        return split_problem(self.rules, h.cards, h.state, len(s.hands) or 1, s.account, h.bet,
                             s.strategy.course_interface)

    def _change_problem(self, s: Seat) -> Foul | None:
        return change_problem(self.rules, s.cur.cards, s.cur.state, s.strategy.course_interface)

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
        s.insured = True  # bought, even when it costs 0 (a bet of 1): a flag, never the amount
        s.state = "i"
        s.actions.append("i")

    def hit(self, h: Hand) -> None:
        """The course's ``hit``: one more card to hand ``h`` (a seat, or a split hand); a bust or a 21 ends it."""
        h.state = "h"
        h.actions.append("h")
        h.take(self.getcard())
        t = h.total()
        if t >= 21:
            h.done = True

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
        h = s.cur
        add = double_amount(s.account, h.bet)
        s.account -= add
        h.added = add
        h.bet += add
        h.doubled = True
        h.state = "d"
        h.actions.append("d")
        h.take(self.getcard())
        h.done = True

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

    def verify_split(self, s: Seat) -> None:
        """Raise IllegalActionError if ``s`` may not split now."""
        _verify(s, "p", self._split_problem(s))

    def can_split(self, s: Seat) -> bool:
        """True when ``s`` may split the hand being played now."""
        return self._split_problem(s) is None

    def split(self, s: Seat) -> None:
        """Split the pair being played into two hands, each with a stake of the bet (a foul if not allowed).

        The dealt hand ends with ``p`` and its two cards become split hands 1 and 2; a split hand that is
        split again keeps its first card and a new hand takes its second, just right of it.  Then the left
        hand takes its second card and the right hand its second (RULES.md, **split_deal_order**).
        """
        problem = self._split_problem(s)
        if problem is not None:
            self.foul(s, problem)
            return
        h = s.cur
        s.account -= h.bet
        right = Hand()
        right.bet = h.bet
        if h is s:
            s.state = "p"
            s.actions.append("p")
            s.done = True
            left = Hand()
            left.bet = s.bet
            left.take(s.cards[0])
            right.take(s.cards[1])
            s.hands = [left, right]
        else:
            left = h
            left.actions.append("p")
            right.take(left.drop_last())
            s.hands.insert(s.hands.index(left) + 1, right)
        one_card = s.cards[0] == "A" and self.rules.split_aces_one_card
        for hand in (left, right):
            hand.take(self.getcard())
            hand.state = "a" if one_card else "p"
            if hand.total() == 21:
                hand.done = True
        s.cur = left

    def verify_change(self, s: Seat) -> None:
        """Raise IllegalActionError if ``s`` may not use the Changer now."""
        _verify(s, "c", self._change_problem(s))

    def can_change(self, s: Seat) -> bool:
        """True when ``s`` may use the French game's Changer now."""
        return self._change_problem(s) is None

    def change(self, s: Seat) -> None:
        """The French game's Changer: with a pair, the second card is replaced by the next one and the stake
        doubles (for less, as a double, when the account cannot pay it all); the hand goes on (h or s).
        RULES.md, **changer**."""
        problem = self._change_problem(s)
        if problem is not None:
            self.foul(s, problem)
            return
        add = double_amount(s.account, s.bet)
        s.account -= add
        s.added = add
        s.bet += add
        s.doubled = True
        s.changed = s.drop_last()
        s.state = "c"
        s.actions.append("c")
        s.take(self.getcard())
        if s.total() == 21:
            s.done = True

    def stand(self, h: Hand) -> None:
        """End hand ``h`` as it is."""
        h.state = "s"
        h.actions.append("s")
        h.done = True

    def _two_card_problem(self, s: Seat, a: str) -> Foul | None:
        """Why ``a`` may not be the first decision of ``s`` now (``i`` aside), or None."""
        if a == "h" or a == "s":
            return None
        check = self._two_card_checks.get(a)
        return check(s) if check is not None else Foul.ILLEGAL_ACTION

    def _first_choice(self, s: Seat, a: str) -> bool:
        """Validate a first action; apply insurance now.  Return True if it is still to take effect."""
        if a == "i":
            self.insurance(s)  # fouls it when the dealer does not show an A, or it cannot be paid
            return False
        if a == "h" or a == "s" or (a == "d" and self._double_any):
            return True
        problem = self._two_card_problem(s, a)
        if problem is None:
            return True
        self.foul(s, problem)
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
        elif a == "u":
            self.surrender(s)
        elif a == "p":
            self.split(s)
            self._play_split(s)
            return
        else:
            self.change(s)
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

    def _play_split(self, s: Seat) -> None:
        """Play a seat's split hands left to right, each through continue_action: ``h s``, and on its first
        two cards ``d`` and ``p`` as the rules allow; a split ace that took its one card may only be split
        again or stand (it stands at once when it cannot be split).  A foul ends the seat's turn."""
        i = 0
        while s.foul is None and i < len(s.hands):
            h = s.hands[i]
            s.cur = h
            while not h.done:
                if h.state == "a" and self._split_problem(s) is not None:
                    h.done = True  # a split ace with its one card that cannot be split again stands
                    break
                c = self._ask(s, False)
                if c is None:
                    break
                if c == "s":
                    self.stand(h)
                elif c == "h" and h.state != "a":
                    self.hit(h)
                elif c in ("d", "p") and h.state in ("p", "a"):
                    problem = self._double_problem(s) if c == "d" else self._split_problem(s)
                    if problem is not None:
                        self.foul(s, problem)
                    elif c == "d":
                        self.dbl(s)
                    else:
                        self.split(s)
                else:
                    self.foul(s, Foul.ILLEGAL_ACTION)
                if s.foul is not None:
                    break
            i += 1
        s.cur = s

    def _after_insurance(self, s: Seat) -> None:
        """An insured hand with no dealer Black Jack: the next decision may still be any first decision."""
        if s.bj:
            s.done = True
            return
        c = self._ask(s, False)
        if c is None:
            return
        problem = self._two_card_problem(s, c)
        if problem is None:
            self._take_effect(s, c)
        else:
            self.foul(s, problem)

    def banker_continue(self) -> None:
        """The course's ``banker_continue``: show the hole card (or, without one, draw the second card) and
        draw to 17 or more; a soft 17 too when the rules say the dealer hits it."""
        if not self.hole:
            self.hole = self.getcard()
        self.hole_shown = True
        self.dealer_shown.append(self.hole)
        hard = VALUE[self.up_card] + VALUE[self.hole]
        ace = self.up_card == "A" or self.hole == "A"
        h17 = self.rules.dealer_hits_soft_17
        while True:
            t = BEST_TOTAL[ace][hard]
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
        return BEST_TOTAL[self.dealer_ace][self.dealer_hard]

    def judge(self, active: list[Seat], dealer_bj: bool) -> None:
        """The course's ``judge``: settle every hand of the round and pay the dealer or the player.

        A dealer Black Jack beats every hand but a Black Jack, taking every stake on the table (with a
        peek only the bet can be there; without one, doubles and split hands too, and a surrender gets
        nothing back).
        """
        rules = self.rules
        d = self.dealer_total()
        dealer_bust = d > 21
        # A payment that would take an account past a C int stops at INT_MAX (account_limit): only a dealer Black
        # Jack's insurance, a Black Jack, split hands and a win pay more than the seat staked.
        for s in active:
            if s.foul is not None:
                continue
            if dealer_bj:
                if s.insured:
                    s.account += rules.insurance_return(s.insurance)
                    if s.account > _INT_MAX:
                        s.account = _INT_MAX
                if s.bj:
                    s.account += s.bet
                continue
            if s.bj:
                s.account += rules.blackjack_return(s.bet)
                if s.account > _INT_MAX:
                    s.account = _INT_MAX
                continue
            if s.surrendered:
                s.account += s.bet // 2
                continue
            if s.hands:
                for h in s.hands:
                    t = h.total()
                    h.returned = 0 if t > 21 else 2 * h.bet if dealer_bust or t > d else h.bet if t == d else 0
                    s.account += h.returned
                if s.account > _INT_MAX:
                    s.account = _INT_MAX
                continue
            t = s.total()
            if t > 21:
                continue
            if dealer_bust or t > d:
                s.account += 2 * s.bet
                if s.account > _INT_MAX:
                    s.account = _INT_MAX
            elif t == d:
                s.account += s.bet

    # -- a whole round -----------------------------------------------------------------------
    def play_round(self, active: list[Seat]) -> bool:
        """Play one round for ``active`` (from ``round_init``); return whether the dealer had Black Jack."""
        for s in active:
            self.place_bet(s)
        self.first_deal(active)
        up, hole = self.up_card, self.hole
        peek = self.rules.dealer_peeks
        dealer_bj = peek and ((up == "A" and hole in TENS) or (up in TENS and hole == "A"))
        if up in TENS and dealer_bj:
            pass  # revealed at once: nobody is asked for a decision
        elif up == "A" and peek:
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
                    elif s.insured:
                        self._after_insurance(s)
        else:
            for s in active:
                if s.done:
                    continue
                a = self._ask(s, True)
                if a is not None and self._first_choice(s, a):
                    self._take_effect(s, a)
                elif s.insured and not s.done:  # no peek: the insured hand plays on at once
                    self._after_insurance(s)
        if dealer_bj:
            self.hole_shown = True
            self.dealer_shown.append(hole)
            self.dealer_hard = VALUE[up] + VALUE[hole]
            self.dealer_ace = True
        else:
            self.banker_continue()
            if not peek:  # the dealer's Black Jack shows only now
                hole = self.hole
                dealer_bj = (up == "A" and hole in TENS) or (up in TENS and hole == "A")
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
        self.shown = {}  # nothing a seat sees changes until the next round
        try:
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
                    self._fault_outside_round(s, Foul.ERROR, raised("show", e))
        finally:
            self.shown = None

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
            "players": [s.log_record() for s in active],
        }
        if self.round_faults:
            record["faults"] = list(self.round_faults)
        return record


def _verify(s: Seat, action: str, problem: Foul | None) -> None:
    if problem is not None:
        raise IllegalActionError(f"illegal action: {action!r} at seat {s.seat} ({problem})")
