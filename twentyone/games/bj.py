"""The 1972 Unix game bj(6) (seed 002), as its program (``bj.s``, with ``etc.s`` and ``us.s``) behaved:
``twentyone bj``.

The session opens with ``Black Jack``; every hand with ``new game``.  One 52-card deck; every card is
drawn at random from those left.  Before the first hand, before a hand with fewer than 15 cards left,
and in the middle of a hand about to draw the last card, the dealer says ``Shuffle``, prints the
action (every dollar staked: ``Action $40``) and the standing as a hand's result is printed (``You
lose $6``), and all 52 go back.  The dealer's up card and hole card are dealt first (``KD up``), then
the player's two (``TH+4S``: rank ``A23456789TJQK``, suit ``HSDC``); every later card is printed alone.
The questions, in this order and each only where it applies: ``Insurance?`` (an ace up), ``Split
pair?``, ``Double down?`` (a hard 10 or 11) and ``Hit?`` (asked until the hand stands or busts, at 21
too).  An answer whose first character is ``y`` is yes, anything else no.  The bet is always $2; a
natural pays $3 (a push against a dealer natural); the dealer stands on soft 17.  Money is settled when
bj.s settled it: insurance at its answer, a natural at once, a bust when it happens, a standing hand
against the dealer at the end, so that an interrupt keeps what was settled.

``BjGame`` plays hands for one ``Answerer``: a person (``PersonAnswers``: the questions on the
terminal) or any ``Strategy`` (``StrategyAnswers``: its decisions read as answers and echoed, so the
transcript is the one a person typing the same answers would see).  RULES.md, "bj(6)", has every
ruling (``bj_*``); GAMES.md lists where this program still differs from bj.s, each a decision.  The
player's money as a strategy sees it is the preset's start money plus the standing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from twentyone.cards import RANKS, TENS, VALUE, hand_total
from twentyone.core import Generator
from twentyone.errors import strategy_text
from twentyone.legality import Foul, double_problem, insurance_problem, split_problem
from twentyone.roundlog import RoundLog
from twentyone.rules import PRESETS, Rules
from twentyone.seat import Hand, Seat
from twentyone.strategy import Strategy
from twentyone.view import TableSeatView

__all__ = ["BjGame", "BjResult", "Answerer", "PersonAnswers", "StrategyAnswers", "RandomDeck", "StackedDeck",
           "UNIX_BJ", "SUITS", "BET", "SHUFFLE_BELOW", "MOST_A_HAND_COSTS", "money_text", "result_text",
           "read_answer"]

UNIX_BJ: Final = PRESETS["unix-bj"]
SUITS: Final = "HSDC"
#: The bet of every hand, in dollars.
BET: Final = 2
#: Before a hand with fewer cards than this left, the deck is shuffled.
SHUFFLE_BELOW: Final = 15
#: The most a hand can cost: a split, both hands doubled, and insurance (4.5 bets): a player whose money
#: falls below it ends the session (``broke``).
MOST_A_HAND_COSTS: Final = 4 * BET + BET // 2


def money_text(n: int) -> str:
    """``$5``, ``-$3``."""
    return f"-${-n}" if n < 0 else f"${n}"


def result_text(n: int) -> str:
    """Money won or lost as bj prints a hand's result and the standing: ``You win $3``, ``You lose $2``,
    ``You break even``."""
    return f"You win ${n}" if n > 0 else f"You lose ${-n}" if n < 0 else "You break even"


def read_answer(prompt: str) -> str:
    """Ask ``prompt`` on the terminal and read one line as bj did (``etc.s``): the end of input, or a last
    line without its newline, is ``EOFError``."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.buffer.readline()
    if not line.endswith(b"\n"):
        raise EOFError
    return line.decode("utf-8", "replace")


class Deck(Protocol):
    """Where bj's cards come from: ``draw`` one card (``TH``), ``refill`` all 52, ``left`` in the deck."""

    def draw(self) -> str:
        """Take one card out of the deck."""

    def refill(self) -> None:
        """Put all 52 cards back."""

    def left(self) -> int:
        """Cards still in the deck."""


class RandomDeck:
    """bj's deck: each card is drawn at random from those left (a seeded ``Generator``)."""

    def __init__(self, generator: Generator) -> None:
        self.generator = generator
        self.cards: list[str] = []
        self.refill()

    def refill(self) -> None:
        self.cards = [r + s for s in SUITS for r in RANKS]

    def left(self) -> int:
        return len(self.cards)

    def draw(self) -> str:
        return self.cards.pop(self.generator.below(len(self.cards)))


class StackedDeck:
    """Chosen cards in order (``TH4SKD...``, for tests); a refill starts the next string of ``decks``."""

    def __init__(self, decks: Sequence[str]) -> None:
        self.decks = [[d[i:i + 2] for i in range(0, len(d), 2)] for d in decks]
        self.i = 0
        self.cards = list(self.decks[0])

    def refill(self) -> None:
        self.i = min(self.i + 1, len(self.decks) - 1)
        self.cards = list(self.decks[self.i])

    def left(self) -> int:
        return len(self.cards)

    def draw(self) -> str:
        return self.cards.pop(0)


class Answerer(Protocol):
    """Who answers bj's questions."""

    def decision(self, game: BjGame, allowed: str) -> None:
        """A decision point of the hand being played: ``allowed`` holds the answers that may follow
        (``p`` split, ``d`` double, ``h`` hit, ``s`` none of them).  A strategy decides here, and raises
        ``BjFoul`` for an answer outside ``allowed``."""

    def answer(self, game: BjGame, question: str, letter: str) -> bool:
        """The answer to ``question`` (printed by the answerer), which means ``letter`` when yes."""


class BjFoul(Exception):
    """A strategy's answer bj cannot take (RULES.md, **bj_strategy_answers**)."""

    def __init__(self, cause: Foul, detail: str) -> None:
        super().__init__(detail)
        self.cause = cause
        self.detail = detail


class PersonAnswers:
    """A person at the terminal: an answer whose first character is ``y`` is yes, anything else (a newline
    alone, ``n``, ``Y``) no, as bj's ``quest`` read it.  ``ask`` prints the question and returns the line."""

    def __init__(self, ask: Callable[[str], str] = read_answer) -> None:
        self.ask = ask

    def decision(self, game: BjGame, allowed: str) -> None:
        return None

    def answer(self, game: BjGame, question: str, letter: str) -> bool:
        game.flush()
        return self.ask(question)[:1] == "y"


class StrategyAnswers:
    """Any ``Strategy`` answering bj's questions (RULES.md, **bj_strategy_answers**): ``first_action`` for
    the dealt hand (its ``i`` is yes to ``Insurance?``), ``continue_action`` after that; ``p``, ``d`` and
    ``h`` are yes to ``Split pair?``, ``Double down?`` and ``Hit?``, ``s`` no to each.  Each answer is
    printed after its question, as a person's typing would show."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self.pending = ""
        self.first_asked = False

    def new_hand(self) -> None:
        """Forget the last hand's answers."""
        self.pending = ""
        self.first_asked = False

    def _ask(self, game: BjGame, first: bool) -> str:
        view = game.seat.view
        where = "first_action" if first else "continue_action"
        try:
            a = self.strategy.first_action(view) if first else self.strategy.continue_action(view)
        except Exception as e:  # noqa: BLE001 - a strategy's exception is its fault
            raise BjFoul(Foul.ERROR, f"{where} raised {type(e).__name__}: {e}") from None
        if a.__class__ is not str or len(a) != 1:
            raise BjFoul(Foul.ERROR, f"{where} returned {a!r}, not one character")
        return a

    def first(self, game: BjGame) -> str:
        """Ask ``first_action`` (once a hand): the insurance question, or a natural's deal."""
        self.first_asked = True
        return self._ask(game, True)

    def decision(self, game: BjGame, allowed: str) -> None:
        if not self.pending:
            self.pending = self._ask(game, not self.first_asked)
            self.first_asked = True
        if self.pending not in allowed:
            a, self.pending = self.pending, ""
            raise BjFoul(Foul.ILLEGAL_ACTION, f"{a!r} is not an answer here (allowed: {' '.join(allowed)})")

    def answer(self, game: BjGame, question: str, letter: str) -> bool:
        if question == "Insurance? ":
            a = self.first(game)
            yes = a == "i"
            if not yes:
                self.pending = a
        else:
            yes = self.pending == letter
            if yes or letter == "h":
                self.pending = ""
        game.put(question + ("y" if yes else "") + "\n")
        return yes


@dataclass
class BjResult:
    """A finished (or interrupted) bj session: ``hands`` played to their end, the ``action`` and the
    ``standing`` (with what a hand cut short had settled), and why it ended: ``rounds``, ``broke``,
    ``fault``, ``interrupted`` (Ctrl-C) or ``end of input``."""

    seed: int | None
    hands: int
    action: int
    standing: int
    reason: str
    fault: str = ""


class BjGame:
    """bj(6) for one player; also the ``TableState`` of the player's ``SeatView`` (``twentyone.view``)."""

    def __init__(self, answers: Answerer, deck: Deck, *, name: str = "player", spec: str = "human",
                 strategy: Strategy | None = None, rules: Rules = UNIX_BJ, say: Callable[[str], None] = print,
                 log: RoundLog | None = None) -> None:
        self.answers = answers
        self.deck = deck
        self.say = say
        self.log = log
        self.rules = rules
        self.decks = 1
        self.seat = Seat(1, name, spec, strategy or Strategy(), rules.start_money)
        self.seat.view = TableSeatView(self, self.seat)
        self.seats = [self.seat]
        self.up_card = ""
        self.dealer_shown: list[str] = []
        self.hole_shown = False
        self.round_no = 0
        #: Hands played to their end.
        self.hands_done = 0
        #: Cards dealt since the last shuffle.
        self.pos = 52 - deck.left()
        #: bj.s's ``action``: every dollar staked on the hands before this one.
        self.action = 0
        #: bj.s's ``taction``: the dollars staked on this hand (a split counts $2 three times, as in bj.s).
        self.taction = 0
        #: bj.s's ``total``: the money won or lost, settled as bj.s settled it (during a hand: its settled part).
        self.total = 0
        self.shoe_no = 1
        self.drawn: list[str] = []
        #: Each hand's cards as bj shows them (``TH``), by the hand's id.
        self.faces: dict[int, list[str]] = {}
        self.dealer_faces: list[str] = []
        self._line = ""

    # -- the transcript -----------------------------------------------------------------------------------
    def put(self, text: str) -> None:
        """Print ``text`` as bj wrote it, a character stream: each whole line goes to ``say``."""
        *lines, self._line = (self._line + text).split("\n")
        for line in lines:
            self.say(line)

    def flush(self) -> None:
        """Print an unfinished line (before a question a person answers)."""
        if self._line:
            self.say(self._line)
            self._line = ""

    def practice(self) -> None:
        """bj.s's ``pract``: the action and the standing, unless nothing was staked yet."""
        if self.action:
            self.put(f"Action {money_text(self.action)}\n{result_text(self.total)}\n")

    # -- TableState ---------------------------------------------------------------------------------------
    @property
    def standing(self) -> int:
        """Money won (+) or lost (-) so far, with what the hand being played has settled."""
        return self.total

    def can_double(self, s: Seat) -> bool:
        h = s.cur
        t = hand_total(h.hard, h.ace)
        return double_problem(self.rules, len(h.cards), h.state, s.account, h.bet, t, t != h.hard) is None

    def can_surrender(self, s: Seat) -> bool:
        return False

    def can_insure(self, s: Seat) -> bool:
        return insurance_problem(self.rules, self.up_card, s.state, s.account, s.bet) is None

    def can_split(self, s: Seat) -> bool:
        h = s.cur
        return split_problem(self.rules, h.cards, h.state, len(s.hands) or 1, s.account, h.bet,
                             s.strategy.course_interface) is None

    def can_change(self, s: Seat) -> bool:
        return False

    # -- the deck -----------------------------------------------------------------------------------------
    def shuffle(self, mid_round: bool, refill: bool = True) -> None:
        """``Shuffle``: the action and the standing are printed and all 52 cards go back (before the first
        hand the deck is full already: nothing to ``refill``)."""
        self.put("Shuffle\n")
        self.practice()
        if refill:
            if self.log is not None:
                self.log.write({"type": "shuffle", "shoe": self.shoe_no + 1, "left": self.deck.left(),
                                "mid_round": mid_round, "action": self.action, "standing": self.total})
            self.deck.refill()
            self.shoe_no += 1
        self.pos = 52 - self.deck.left()

    def card(self, to: Hand | None, show: bool = True) -> str:
        """Draw a card for hand ``to`` (None: the dealer) and print it unless ``show`` is false (the hole
        card); with one card left the deck is shuffled first (bj.s's ``peek``), mid-hand or not."""
        if self.deck.left() <= 1:
            self.shuffle(mid_round=True)
        face = self.deck.draw()
        self.pos += 1
        self.drawn.append(face)
        if to is None:
            self.dealer_faces.append(face)
            self.dealer_shown.append(face[0])
        else:
            to.take(face[0])
            self.faces.setdefault(id(to), []).append(face)
        if show:
            self.put(face)
        return face[0]

    # -- one hand -----------------------------------------------------------------------------------------
    def _yes(self, question: str, letter: str) -> bool:
        return self.answers.answer(self, question, letter)

    def _stake(self, n: int) -> None:
        """``n`` dollars go on the table: off the player's money, into this hand's action."""
        self.seat.account -= n
        self.taction += n

    def play_hand(self) -> None:
        """Play one hand from ``new game`` to its result line, and log it."""
        self.action += self.taction  # bj.s adds a hand's action at the next "new game"
        self.taction = 0
        self.put("new game\n")
        if self.hands_done == 0 and self.round_no == 0:
            self.shuffle(mid_round=False, refill=False)  # bj.s starts with an empty deck: the first hand shuffles
        elif self.deck.left() < SHUFFLE_BELOW:
            self.shuffle(mid_round=False)
        s = self.seat
        self._new_round()
        shoe = self.shoe_no
        first_card = self.pos
        settled_before = self.total
        s.in_round = True
        s.rounds += 1
        self._call("bet", lambda: s.strategy.bet(s.view))  # always $2: the strategy is asked, as the engine asks
        s.bet = BET
        self.card(None)  # the dealer's up card, then his hole card, then the player's two
        self.up_card = self.dealer_shown[0]
        hole = self.card(None, show=False)
        self.dealer_shown.pop()  # the hole card stays face down
        self.put(" up\n")
        self.card(s)
        self.put("+")
        self.card(s)
        self.put("\n\n")
        self._stake(BET)
        s.bj = len(s.cards) == 2 and s.hard == 11 and s.ace
        dealer_bj = (self.up_card == "A" and hole in TENS) or (self.up_card in TENS and hole == "A")
        try:
            if s.foul is None:
                self._questions(s, dealer_bj)
        except BjFoul as e:
            self._foul(e)
        self._settle(dealer_bj)
        self.put("\n" + result_text(self.total - settled_before) + "\n")
        if not s.faulted:
            self._call("show", lambda: s.strategy.show(s.view))
        s.in_round = False
        self.hands_done += 1
        if self.log is not None:
            self.log.write(self._record(shoe, first_card, dealer_bj))

    def _foul(self, e: BjFoul, settled: bool = False) -> None:
        """The hand is lost (every stake), unless it is ``settled`` already; a strategy fault also ends the
        session after it."""
        s = self.seat
        if s.foul is None and not settled:
            s.foul = e.cause
        if e.cause in (Foul.ERROR, Foul.CRASH, Foul.TIMEOUT) and not s.faulted:
            s.faulted = True
            s.fault_cause = e.cause
            s.fault_detail = strategy_text(e.detail)
        what = "failed" if s.faulted else "gave an illegal answer"
        self.put(f"{s.name} {what}: {strategy_text(e.detail)}\n")

    def _call(self, where: str, call: Callable[[], object]) -> None:
        """Call the strategy's ``bet`` or ``show``; an exception is a fault."""
        try:
            call()
        except Exception as e:  # noqa: BLE001 - a strategy's exception is its fault
            self._foul(BjFoul(Foul.ERROR, f"{where} raised {type(e).__name__}: {e}"), settled=where == "show")

    def _new_round(self) -> None:
        self.round_no += 1
        s = self.seat
        s.cards, s.hard, s.ace, s.state, s.actions = [], 0, False, "", []
        s.bet = s.added = s.insurance = 0
        s.doubled = s.surrendered = s.done = s.bj = s.insured = False
        s.foul = None
        s.hands, s.cur = [], s
        s.in_round = False
        s.account_before = s.account
        self.up_card = ""
        self.dealer_shown = []
        self.dealer_faces = []
        self.hole_shown = False
        self.faces = {}
        self.drawn = []
        if isinstance(self.answers, StrategyAnswers):
            self.answers.new_hand()

    def _questions(self, s: Seat, dealer_bj: bool) -> None:
        """Insurance, the naturals, then the dealt hand's questions and each split hand's (RULES.md,
        **bj_questions**)."""
        if self.up_card == "A":
            if self._yes("Insurance? ", "i"):
                s.insurance = BET // 2
                s.insured = True
                self._stake(s.insurance)
                s.state = "i"
                s.actions.append("i")
                if dealer_bj:  # settled at once, as bj.s did: $2 won, or $1 lost
                    s.account += 3 * s.insurance
                    self.total += 2 * s.insurance
                else:
                    self.total -= s.insurance
        elif s.bj and not dealer_bj and isinstance(self.answers, StrategyAnswers):
            self.answers.first(self)  # a natural is asked nothing; the strategy still sees the deal
        if s.bj:
            self.put("You have black jack!\n")
        if dealer_bj or s.bj:
            return
        self._play(s, dealt=True)
        for h in s.hands:
            s.cur = h
            self.card(h)  # each split hand takes its second card when its turn comes
            self.put("\n\n")
            self.taction += BET  # bj.s counts $2 of action for each split hand, besides the dealt hand's $2
            if h.state == "a":
                h.done = True  # a split ace takes one card
                self._stands(h)
            else:
                self._play(h, dealt=False)
        s.cur = s

    def _play(self, h: Hand, dealt: bool) -> None:
        """The questions of one hand: split (the dealt hand only), double, then hit until it stands or
        busts (``Hit?`` is asked at 21 too)."""
        s = self.seat
        allowed = "s" + ("p" if dealt and self.can_split(s) else "") + ("d" if self.can_double(s) else "") + "h"
        self.answers.decision(self, allowed)
        if "p" in allowed and self._yes("Split pair? ", "p"):
            self._split(s)
            return
        if "d" in allowed and self._yes("Double down? ", "d"):
            h.bet += BET
            h.added = BET
            h.doubled = True
            h.state = "d"
            h.actions.append("d")
            self._stake(BET)
            self.card(h)
            self.put("\n")
            h.done = True
            self._stands(h)
            return
        while True:
            if h.total() > 21:
                h.done = True
                self.put("You bust\n")
                self.total -= h.bet  # a bust is settled at once
                return
            if not self._yes("Hit? ", "h"):
                h.state = "s"
                h.actions.append("s")
                h.done = True
                self._stands(h)
                return
            h.state = "h"
            h.actions.append("h")
            self.card(h)
            self.put("\n\n")
            if h.total() <= 21:
                self.answers.decision(self, "sh")

    def _stands(self, h: Hand) -> None:
        self.put(f"You have {h.total()}\n")

    def _split(self, s: Seat) -> None:
        """``Split pair?`` yes: two hands of $2 each, played left then right, each taking its second card
        when its turn comes."""
        s.state = "p"
        s.actions.append("p")
        s.done = True
        s.account -= BET  # the second hand's $2 (bj.s counts action when each split hand is dealt)
        aces = s.cards[0] == "A"
        for face in self.faces[id(s)]:
            h = Hand()
            h.bet = BET
            h.take(face[0])
            h.state = "a" if aces and self.rules.split_aces_one_card else "p"
            self.faces[id(h)] = [face]
            s.hands.append(h)

    def _dealer_plays(self) -> None:
        """The dealer turns his hole card over (``Dealer has`` and the hole card) and draws below 17."""
        self.dealer_shown = [f[0] for f in self.dealer_faces]
        self.hole_shown = True
        self.put(f"Dealer has {self.dealer_faces[1]}")
        while (t := _total(self.dealer_shown)) < 17:
            self.put("+")
            self.card(None)
        self.put(f" = {'bust' if t > 21 else t}\n")

    def _settle(self, dealer_bj: bool) -> None:
        """What is still on the table: a natural, a dealer natural, or the hands that stand against the
        dealer (each hand's bust was settled when it busted, insurance at its answer)."""
        s = self.seat
        hands = s.hands or [s]
        standing = [h for h in hands if h.total() <= 21]
        if s.foul is not None:
            self.total -= sum(h.bet for h in standing)  # a foul loses every stake still on the table
        elif s.bj:
            if not dealer_bj:
                s.account += s.bet + 3 * s.bet // 2
                self.total += 3 * s.bet // 2
            else:
                s.account += s.bet
        elif dealer_bj:
            self.put(f"Dealer has {self.dealer_faces[1]} = blackjack\n")
            self.total -= s.bet
        elif standing:
            self._dealer_plays()
            d = _total(self.dealer_shown)
            for h in hands:
                t = h.total()
                if t > 21:
                    continue
                back = 2 * h.bet if d > 21 or t > d else h.bet if t == d else 0
                if s.hands:
                    h.returned = back
                s.account += back
                self.total += back - h.bet
        self.dealer_shown = [f[0] for f in self.dealer_faces]
        self.hole_shown = True

    def _record(self, shoe: int, first_card: int, dealer_bj: bool) -> dict[str, Any]:
        return {"type": "round", "round": self.round_no, "shoe": shoe, "first_card": first_card,
                "dealer": "".join(self.dealer_shown), "dealer_bj": dealer_bj, "drawn": "".join(self.drawn),
                "players": [self.seat.log_record()], "action": self.action + self.taction,
                "standing": self.total}

    # -- a session ----------------------------------------------------------------------------------------
    def play(self, hands: int | None, seed: int | None = None) -> BjResult:
        """Play ``hands`` hands (None: until interrupted).  Ctrl-C prints, as bj.s's ``prtot`` did, a new
        line, the action and the standing (with what the hand cut short had settled) and another new line;
        the end of input prints a new line."""
        s = self.seat
        s.strategy.start_match(object(), 1, 1, 1)
        if self.log is not None:
            self.log.write({"type": "match", "game": "bj", "seed": seed, "rules": self.rules.name, "decks": 1,
                            "seats": [{"seat": 1, "name": s.name, "player": s.spec}]})
        self.put("Black Jack\n")
        reason = "rounds"
        cut: dict[str, int] | None = None
        try:
            while hands is None or self.hands_done < hands:
                if self.seat.account < MOST_A_HAND_COSTS:
                    reason = "broke"
                    break
                total_before = self.total
                try:
                    self.play_hand()
                except (KeyboardInterrupt, EOFError):
                    if self.seat.in_round:
                        cut = {"round": self.round_no, "settled": self.total - total_before}
                    raise
                if self.seat.faulted:
                    reason = "fault"
                    break
        except KeyboardInterrupt:
            reason = "interrupted"
            self.flush()
            self.put("\n")
            self.practice()
            self.put("\n")
        except EOFError:
            reason = "end of input"
            self.flush()
            self.put("\n")
        else:
            self.action += self.taction  # every hand is over: its action counts
            self.taction = 0
        self.flush()
        if self.log is not None:
            end: dict[str, Any] = {"type": "end", "reason": reason, "rounds": self.hands_done, "action": self.action,
                                   "standing": self.total}
            if cut is not None:
                end["cut"] = cut
            self.log.write(end)
        return BjResult(seed, self.hands_done, self.action, self.total, reason, self.seat.fault_detail)


def _total(cards: Sequence[str]) -> int:
    hard = sum(VALUE[c] for c in cards)
    return hand_total(hard, "A" in cards)
