"""The 1972 Unix game bj(6) (seed 002), as its program (``bj.s``) behaved: ``twentyone bj``.

One 52-card deck; every card is drawn at random from those left, and before a hand with fewer than 15
cards left the dealer says ``Shuffle``, prints the action (money bet) and the standing (money won or
lost) and puts all 52 back.  Every hand starts with ``new game``, shows the dealer's up card
(``KD up``) and the player's two cards (``TH+4S``: rank ``A23456789TJQK``, suit ``HSDC``), then asks,
in this order and each only where it applies: ``Insurance?`` (an ace up), ``Split pair?``, ``Double
down?`` (a hard 10 or 11) and ``Hit?``; ``y`` and a newline is yes, a newline alone no.  The bet is
always $2; a natural pays $3 (a push against a dealer natural); the dealer stands on soft 17.

``BjGame`` plays hands for one ``Answerer``: a person (``PersonAnswers``: the questions on the
terminal) or any ``Strategy`` (``StrategyAnswers``: its decisions read as answers and echoed, so the
transcript is the one a person typing the same answers would see).  RULES.md, "bj(6)", has every
ruling (``bj_*``).  The player's money as a strategy sees it is the preset's start money plus the
standing; the game itself keeps only the action and the standing.
"""

from __future__ import annotations

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
           "UNIX_BJ", "SUITS", "BET", "SHUFFLE_BELOW", "money_text"]

UNIX_BJ: Final = PRESETS["unix-bj"]
SUITS: Final = "HSDC"
#: The bet of every hand, in dollars.
BET: Final = 2
#: Before a hand with fewer cards than this left, the deck is shuffled.
SHUFFLE_BELOW: Final = 15
#: The most a hand can cost: a split, both hands doubled, and insurance.
_MOST_A_HAND_COSTS: Final = 4 * BET + BET // 2


def money_text(n: int) -> str:
    """``$5``, ``-$3``."""
    return f"-${-n}" if n < 0 else f"${n}"


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
    """A person at the terminal: ``y`` and a newline is yes, a newline alone no (``yes``/``n``/``no`` too);
    anything else asks again."""

    def __init__(self, ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> None:
        self.ask = ask
        self.say = say

    def decision(self, game: BjGame, allowed: str) -> None:
        return None

    def answer(self, game: BjGame, question: str, letter: str) -> bool:
        while True:
            text = self.ask(question).strip().lower()
            if text in ("y", "yes"):
                return True
            if text in ("", "n", "no"):
                return False
            self.say("answer y for yes, or just press return for no")


class StrategyAnswers:
    """Any ``Strategy`` answering bj's questions (RULES.md, **bj_strategy_answers**): ``first_action`` for
    the dealt hand (its ``i`` is yes to ``Insurance?``), ``continue_action`` after that; ``p``, ``d`` and
    ``h`` are yes to ``Split pair?``, ``Double down?`` and ``Hit?``, ``s`` no to each.  Each answer is
    printed after its question, as a person's typing would show."""

    def __init__(self, strategy: Strategy, say: Callable[[str], None] = print) -> None:
        self.strategy = strategy
        self.say = say
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
        self.say(question + ("y" if yes else ""))
        return yes


@dataclass
class BjResult:
    """A finished (or interrupted) bj session."""

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
        #: Cards dealt since the last shuffle.
        self.pos = 52 - deck.left()
        self.action = 0
        self.shoe_no = 1
        self.drawn: list[str] = []
        #: Each hand's cards as bj shows them (``TH``), by the hand's id.
        self.faces: dict[int, list[str]] = {}
        self.dealer_faces: list[str] = []

    # -- TableState ---------------------------------------------------------------------------------------
    @property
    def standing(self) -> int:
        """Money won (+) or lost (-) so far (between hands; during one, its stakes are out)."""
        return self.seat.account - self.rules.start_money

    def settled(self) -> int:
        """The standing after the last whole hand (during a hand: before it)."""
        s = self.seat
        return (s.account_before if s.in_round else s.account) - self.rules.start_money

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
    def shuffle(self, mid_round: bool) -> None:
        """``Shuffle``: the action and the standing are printed and all 52 cards go back."""
        self.say("Shuffle")
        self.say(f"Action {money_text(self.action)}")
        self.say(f"Standing {money_text(self.settled())}")
        if self.log is not None:
            self.log.write({"type": "shuffle", "shoe": self.shoe_no + 1, "left": self.deck.left(),
                            "mid_round": mid_round, "action": self.action, "standing": self.settled()})
        self.deck.refill()
        self.pos = 52 - self.deck.left()
        self.shoe_no += 1

    def card(self, to: Hand | None) -> str:
        """Draw a card for hand ``to`` (None: the dealer); an empty deck is refilled at once."""
        if not self.deck.left():
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
        return face[0]

    def shows(self, h: Hand) -> str:
        """A hand as bj shows it: ``TH+4S``."""
        return "+".join(self.faces[id(h)])

    # -- one hand -----------------------------------------------------------------------------------------
    def _yes(self, question: str, letter: str) -> bool:
        return self.answers.answer(self, question, letter)

    def play_hand(self) -> None:
        """Play one hand from ``new game`` to its result line (a shuffle first when fewer than 15 cards
        are left), and log it."""
        if self.deck.left() < SHUFFLE_BELOW:
            self.shuffle(mid_round=False)
        s = self.seat
        self._new_round()
        shoe = self.shoe_no
        first_card = self.pos
        self.say("new game")
        s.in_round = True
        s.rounds += 1
        self._call("bet", lambda: s.strategy.bet(s.view))  # always $2: the strategy is asked, as the engine asks
        s.bet = BET
        s.account -= BET
        self.action += BET
        self.card(s)
        self.card(s)
        self.card(None)
        self.up_card = self.dealer_shown[0]
        hole = self.card(None)
        self.dealer_shown.pop()  # the hole card stays face down
        self.say(f"{self.dealer_faces[0]} up")
        self.say(self.shows(s))
        s.bj = len(s.cards) == 2 and s.hard == 11 and s.ace
        dealer_bj = (self.up_card == "A" and hole in TENS) or (self.up_card in TENS and hole == "A")
        try:
            if s.foul is None:
                self._questions(s, dealer_bj)
        except BjFoul as e:
            self._foul(e)
        self._settle(dealer_bj)
        if not s.faulted:
            self._call("show", lambda: s.strategy.show(s.view))
        s.in_round = False
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
        self.say(f"{s.name} {what}: {strategy_text(e.detail)}")

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
        s.doubled = s.surrendered = s.done = s.bj = False
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
        """Insurance, the naturals, then the dealt hand's questions (RULES.md, **bj_questions**)."""
        if self.up_card == "A":
            if self._yes("Insurance? ", "i"):
                s.insurance = BET // 2
                s.account -= s.insurance
                self.action += s.insurance
                s.state = "i"
                s.actions.append("i")
        elif s.bj and not dealer_bj and isinstance(self.answers, StrategyAnswers):
            self.answers.first(self)  # a natural is asked nothing; the strategy still sees the deal
        if s.bj:
            self.say("You have black jack!")
        if dealer_bj or s.bj:
            return
        self._play(s, dealt=True)
        if s.hands:
            for h in s.hands:
                s.cur = h
                self.say(self.shows(h))
                if h.state == "a":
                    h.done = True  # a split ace takes one card
                    self._ends(h)
                else:
                    self._play(h, dealt=False)
            s.cur = s

    def _play(self, h: Hand, dealt: bool) -> None:
        """The questions of one hand: split (the dealt hand only), double, then hit until it stands."""
        s = self.seat
        if h.total() == 21:  # a split hand's 21 stands at once
            h.done = True
            self._ends(h)
            return
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
            s.account -= BET
            self.action += BET
            self.card(h)
            self.say(self.shows(h))
            h.done = True
            self._ends(h)
            return
        while True:
            if self._yes("Hit? ", "h"):
                h.state = "h"
                h.actions.append("h")
                self.card(h)
                self.say(self.shows(h))
                if h.total() >= 21:
                    h.done = True
                    self._ends(h)
                    return
                self.answers.decision(self, "sh")
            else:
                h.state = "s"
                h.actions.append("s")
                h.done = True
                self._ends(h)
                return

    def _ends(self, h: Hand) -> None:
        t = h.total()
        self.say("You bust" if t > 21 else f"You have {t}")

    def _split(self, s: Seat) -> None:
        """``Split pair?`` yes: two hands of $2 each; each takes its second card, left then right."""
        s.state = "p"
        s.actions.append("p")
        s.done = True
        s.account -= BET
        self.action += BET
        aces = s.cards[0] == "A"
        for face in self.faces[id(s)]:
            h = Hand()
            h.bet = BET
            h.take(face[0])
            self.faces[id(h)] = [face]
            s.hands.append(h)
        for h in s.hands:
            self.card(h)
            h.state = "a" if aces and self.rules.split_aces_one_card else "p"

    def _dealer_plays(self) -> None:
        """The dealer turns his hole card over and, if a hand of the player stands, draws below 17."""
        self.dealer_shown = [f[0] for f in self.dealer_faces]
        self.hole_shown = True
        s = self.seat
        hands = s.hands or [s]
        if s.foul is None and any(h.total() <= 21 for h in hands):
            while True:
                t = _total(self.dealer_shown)
                if t >= 17:
                    break
                self.card(None)

    def _settle(self, dealer_bj: bool) -> None:
        s = self.seat
        hands = s.hands or [s]
        if s.foul is not None:
            self.dealer_shown = [f[0] for f in self.dealer_faces]
            self.hole_shown = True
        elif dealer_bj:
            self.dealer_shown = [f[0] for f in self.dealer_faces]
            self.hole_shown = True
            self.say(f"Dealer has {'+'.join(self.dealer_faces)} = blackjack")
            if s.insurance:
                s.account += s.insurance + 2 * s.insurance
            if s.bj:
                s.account += s.bet
        elif s.bj:
            self.dealer_shown = [f[0] for f in self.dealer_faces]
            self.hole_shown = True
            s.account += s.bet + 3 * s.bet // 2
        else:
            self._dealer_plays()
            d = _total(self.dealer_shown)
            self.say(f"Dealer has {'+'.join(self.dealer_faces)} = {'bust' if d > 21 else d}")
            for h in hands:
                t = h.total()
                back = 0 if t > 21 else 2 * h.bet if d > 21 or t > d else h.bet if t == d else 0
                if s.hands:
                    h.returned = back
                s.account += back
        net = s.account - s.account_before
        self.say(f"You win ${net}" if net > 0 else f"You lose ${-net}" if net < 0 else "You break even")

    def _record(self, shoe: int, first_card: int, dealer_bj: bool) -> dict[str, Any]:
        return {"type": "round", "round": self.round_no, "shoe": shoe, "first_card": first_card,
                "dealer": "".join(self.dealer_shown), "dealer_bj": dealer_bj, "drawn": "".join(self.drawn),
                "players": [self.seat.log_record()], "action": self.action, "standing": self.standing}

    # -- a session ----------------------------------------------------------------------------------------
    def play(self, hands: int | None, seed: int | None = None) -> BjResult:
        """Play ``hands`` hands (None: until interrupted); Ctrl-C or the end of input (``EOFError``) ends the
        session after the last whole hand: the action and the standing are printed."""
        s = self.seat
        s.strategy.start_match(object(), 1, 1, 1)
        if self.log is not None:
            self.log.write({"type": "match", "game": "bj", "seed": seed, "rules": self.rules.name, "decks": 1,
                            "seats": [{"seat": 1, "name": s.name, "player": s.spec}]})
        reason = "rounds"
        try:
            while hands is None or self.round_no < hands:
                if self.seat.account < _MOST_A_HAND_COSTS:
                    reason = "broke"
                    break
                saved = (self.seat.account, self.action, self.round_no, self.seat.rounds)
                try:
                    self.play_hand()
                except (KeyboardInterrupt, EOFError):  # a hand cut short never happened
                    self.seat.account, self.action, self.round_no, self.seat.rounds = saved
                    self.seat.in_round = False
                    raise
                if self.seat.faulted:
                    reason = "fault"
                    break
        except (KeyboardInterrupt, EOFError):
            reason = "interrupted"
            self.say("")
            self.say(f"Action {money_text(self.action)}")
            self.say(f"Standing {money_text(self.standing)}")
        if self.log is not None:
            self.log.write({"type": "end", "reason": reason, "rounds": self.round_no, "action": self.action,
                            "standing": self.standing})
        return BjResult(seed, self.round_no, self.action, self.standing, reason, self.seat.fault_detail)


def _total(cards: Sequence[str]) -> int:
    hard = sum(VALUE[c] for c in cards)
    return hand_total(hard, "A" in cards)
