"""The judge problem's game (seed 004), exactly as its statement plays it, in the engine's process.

One ``Game`` is one test: a shoe of 5000 decks (260,000 cards) shuffled from the test's seed, the
player's money (10^6 at the start), and the hand being played.  Its methods are the statement's
``Blackjack.h`` calls (``init_game``, ``buy_insurance``, ``double_down``, ``split``, ``hit_1``,
``stand_1``, ``hit_2``, ``stand_2``, ``hit``, ``stand``, ``bet_you_have``), with the statement's card
codes (1 .. 13) and lists for its ``vector<int>``; ``begin_play`` and ``end_play`` bracket one call of
the solution's ``play()``.  A solution reaches them in process (``judge.blackjack``, the Python form) or
from its sandboxed box (``judge.boxed``); the shoe and the money never leave this process.

The test ends (``ending``) the moment it is decided: the money is above 1.3x10^6 after a hand (won),
the money is gone after a hand, a card is needed when all 260,000 are dealt, or a call breaks the
statement's rules (the first illegal call, named with its place).  A call made after the end raises
``TestOver``, so a solution's ``play()`` unwinds at once.  RULES.md ("The judge problem") lists every
ruling this module plays by; each has a test in ``tests/test_judge_game.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any, Final, NoReturn

from twentyone.judge.hands import best_total, hand_text, is_blackjack, win

__all__ = ["TARGET", "START_MONEY", "DECKS", "SHOE_CARDS", "Ending", "Phase", "JudgeStop", "TestOver",
           "IllegalCall", "Illegal", "Game", "TestResult", "shuffled_shoe"]

#: The test is won when the money is above this.
TARGET: Final = 1_300_000
START_MONEY: Final = 1_000_000
DECKS: Final = 5000
SHOE_CARDS: Final = 52 * DECKS
#: The engine's card letters (``twentyone.core``'s shoe) as the statement's codes.
_CODES: Final = bytes.maketrans(b"A23456789TJQK", bytes(range(1, 14)))


def shuffled_shoe(seed: int) -> bytes:
    """The test's shoe: 5000 decks in a uniform Fisher-Yates shuffle from ``seed`` (the project's generator,
    ``twentyone.core``), as card codes 1..13 in dealing order."""
    from twentyone.core import Generator

    return Generator(seed).shoe(DECKS).translate(_CODES)


class Ending(StrEnum):
    """How a test ended."""

    WON = "won"          # the money went above 1.3x10^6
    BROKE = "broke"      # the money is gone
    CARDS = "cards"      # a card was needed after all 5000 decks were dealt
    ILLEGAL = "illegal"  # a call against the statement's rules
    FAULT = "fault"      # the solution crashed, ran out of time, or stopped answering (set by a runner)


class Phase(IntEnum):
    """Where the hand is: which calls may come next."""

    IDLE = 0       # between two calls of play()
    START = 1      # play() runs, no bet yet: init_game
    INSURANCE = 2  # the dealer shows an A: buy_insurance
    INSURED = 3    # buy_insurance returned 1: stand
    FIRST = 4      # two cards, nothing done yet: hit, stand, double_down, split
    HIT = 5        # after a hit: hit, stand
    DOUBLED = 6    # after double_down: stand
    SPLIT1 = 7     # the first hand of a split: hit_1, stand_1
    SPLIT2 = 8     # the second hand: hit_2, stand_2
    DONE = 9       # the hand is settled: play() returns


class JudgeStop(BaseException):
    """The test is over: raised through a solution's ``play()`` (a BaseException, so that a solution's
    ``except Exception`` cannot swallow it and play on)."""


class TestOver(JudgeStop):
    """A call after the test was decided (won, lost, or the cards ran out in this call)."""

    __test__ = False  # not a pytest test class


@dataclass(frozen=True)
class Illegal:
    """The first illegal call of a test: the call, why it is illegal and its place in the game."""

    call: str
    why: str
    hand: int
    call_no: int
    cards: int
    money: int
    #: The hand's calls before it, as ``init_game(100) -> {1, 9, 5}``.
    before: tuple[str, ...] = ()

    @property
    def place(self) -> str:
        """``hand 12, call 3 of the hand, after 57 cards``."""
        if self.hand == 0:
            return "before the first play()"
        return f"hand {self.hand}, call {self.call_no} of the hand, after {self.cards} cards"

    def text(self) -> str:
        """One line: the call, why, and where."""
        head = f"{self.call}: {self.why}" if self.call else self.why
        tail = f"; the hand so far: {', '.join(self.before)}" if self.before else ""
        return f"illegal call: {head} ({self.place}, money {self.money}){tail}"

    def to_dict(self) -> dict[str, Any]:
        return {"call": self.call, "why": self.why, "hand": self.hand, "call_no": self.call_no,
                "cards": self.cards, "money": self.money, "before": list(self.before)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Illegal:
        return cls(str(d["call"]), str(d["why"]), int(d["hand"]), int(d["call_no"]), int(d["cards"]),
                   int(d["money"]), tuple(str(x) for x in d.get("before") or ()))


class IllegalCall(JudgeStop):
    """The solution made an illegal call; ``illegal`` says which and where."""

    def __init__(self, illegal: Illegal) -> None:
        super().__init__(illegal.text())
        self.illegal = illegal


@dataclass
class TestResult:
    """One test's outcome: how it ended, the money and cards at the end, and the money after each hand."""

    __test__ = False  # not a pytest test class

    seed: int
    ending: Ending
    money: int
    hands: int
    cards: int
    curve: list[int] = field(default_factory=list)
    illegal: Illegal | None = None
    #: What a fault was (a crash, a time-out), with its place.
    fault: str = ""
    seconds: float = 0.0
    #: The curve holds the money after every ``curve_stride``-th hand (a stored result is thinned).
    curve_stride: int = 1

    @property
    def won(self) -> bool:
        return self.ending is Ending.WON

    def reason(self) -> str:
        """Why the test ended, in one line."""
        where = f"after {self.hands} hand{'s' if self.hands != 1 else ''}, {self.cards} of {SHOE_CARDS} cards used"
        if self.ending is Ending.WON:
            return f"won: money {self.money} > {TARGET} {where}"
        if self.ending is Ending.BROKE:
            return f"lost: the money is gone {where}"
        if self.ending is Ending.CARDS:
            return (f"lost: a card was needed after all {DECKS} decks were dealt (hand {self.hands}), "
                    f"money {self.money}")
        if self.ending is Ending.ILLEGAL and self.illegal is not None:
            return self.illegal.text()
        return self.fault or str(self.ending)

    def to_dict(self, curve_points: int | None = None) -> dict[str, Any]:
        """The stored form; ``curve_points`` thins the money curve to about that many points (the last kept)."""
        curve, stride = self.curve, self.curve_stride
        if curve_points is not None and len(curve) > curve_points and stride == 1:
            stride = -(-len(curve) // curve_points)
            curve = curve[stride - 1::stride]
            if len(self.curve) % stride:
                curve = curve + [self.curve[-1]]
        return {"seed": self.seed, "ending": str(self.ending), "money": self.money, "hands": self.hands,
                "cards": self.cards, "curve": curve, "curve_stride": stride,
                "illegal": self.illegal.to_dict() if self.illegal else None, "fault": self.fault,
                "seconds": round(self.seconds, 4), "reason": self.reason()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TestResult:
        """Read a stored result back (KeyError, ValueError or TypeError if it is not one)."""
        return cls(int(d["seed"]), Ending(d["ending"]), int(d["money"]), int(d["hands"]), int(d["cards"]),
                   [int(x) for x in d.get("curve") or []],
                   Illegal.from_dict(d["illegal"]) if d.get("illegal") else None, str(d.get("fault", "")),
                   float(d.get("seconds", 0.0)), int(d.get("curve_stride", 1)))


def _is_whole(x: object) -> bool:
    return type(x) is int


def _call_text(name: str, arg: object, result: object) -> str:
    """``init_game(100) -> {1, 9, 5}`` for the hand's log in a message."""
    call = f"{name}({arg})" if arg is not None else f"{name}()"
    if result is None:
        return call
    return f"{call} -> {hand_text(result) if isinstance(result, (list, tuple)) else result}"


class Game:
    """One test of the judge problem: the shoe, the money, and the statement's calls.

    ``cards`` (for tests of the rules) stacks the shoe: exactly these codes in this order, and no more.
    """

    __slots__ = ("seed", "shoe", "size", "pos", "money", "phase", "bet", "insurance", "cards", "dealer", "split_hands",
                 "doubled", "hands", "log", "ending", "illegal", "curve", "how_done")

    def __init__(self, seed: int = 0, cards: Sequence[int] | None = None) -> None:
        self.seed = seed
        if cards is None:
            self.shoe: bytes | Sequence[int] = shuffled_shoe(seed)
        else:
            bad = [c for c in cards if not (_is_whole(c) and 1 <= c <= 13)]
            if bad:
                raise ValueError(f"stacked shoe: not a card code 1..13: {bad[0]!r}")
            self.shoe = bytes(cards)
        self.size = len(self.shoe)
        self.pos = 0
        self.money = START_MONEY
        self.phase = Phase.IDLE
        self.bet = 0
        self.insurance = 0
        self.cards: list[int] = []
        self.dealer: list[int] = []
        self.split_hands: tuple[list[int], list[int]] | None = None
        self.doubled = False
        #: Calls of play() so far (the hand being played is number ``hands``).
        self.hands = 0
        #: The calls of the hand being played: (call, result) texts made only when a message needs them.
        self.log: list[tuple[str, Any, Any]] = []
        self.ending: Ending | None = None
        self.illegal: Illegal | None = None
        #: The money after each hand.
        self.curve: list[int] = []
        self.how_done = ""

    # -- the test's frame --------------------------------------------------------------------------------------
    def begin_play(self) -> None:
        """A call of the solution's ``play()`` begins: a new hand."""
        if self.ending is not None:
            raise TestOver(str(self.ending))
        if self.phase is not Phase.IDLE:
            self._refuse("play")
        self.hands += 1
        self.phase = Phase.START
        self.log = []
        self.split_hands = None
        self.doubled = False
        self.insurance = 0

    def end_play(self) -> None:
        """The solution's ``play()`` returned: the hand must be over."""
        if self.ending is not None:
            return
        phase = self.phase
        if phase is not Phase.DONE:
            if phase is Phase.START:
                self._illegal("", "play() returned without playing a hand (init_game() was not called)")
            need = {Phase.INSURANCE: "buy_insurance()", Phase.INSURED: "stand()", Phase.FIRST: "stand()",
                    Phase.HIT: "stand()", Phase.DOUBLED: "stand()", Phase.SPLIT1: "stand_1() and stand_2()",
                    Phase.SPLIT2: "stand_2()"}.get(phase, "the hand's end")
            self._illegal("", f"play() returned with the hand unfinished (it still needed {need})")
        self.phase = Phase.IDLE

    def result(self, seconds: float = 0.0) -> TestResult:
        """The test's result (the game must have ended)."""
        ending = self.ending if self.ending is not None else Ending.FAULT
        return TestResult(self.seed, ending, self.money, self.hands, self.pos, self.curve, self.illegal,
                          seconds=seconds)

    def stop(self, fault: str) -> TestResult:
        """End the test with a fault (a crash, a time-out) found by a runner, and return its result."""
        if self.ending is None:
            self.ending = Ending.FAULT
        r = self.result()
        r.fault = fault
        return r

    def place(self) -> str:
        """Where the game is, for a runner's fault message: ``in hand 12 after hit()``."""
        if self.hands == 0:
            return "before the first play()"
        if self.phase is Phase.IDLE:
            return f"after hand {self.hands} (between two calls of play())"
        last = f" after {self.log[-1][0]}()" if self.log else " before its first call"
        return f"in hand {self.hands}{last}, {self.pos} cards dealt"

    def refuse_io(self, what: str) -> NoReturn:
        """The solution read standard input or wrote standard output (``what`` says which): illegal."""
        if self.ending is not None:
            raise TestOver(str(self.ending))
        self._illegal("", what)

    # -- errors ------------------------------------------------------------------------------------------------
    def _illegal(self, call: str, why: str) -> NoReturn:
        before = tuple(_call_text(name, arg, result) for name, arg, result in self.log)
        self.illegal = Illegal(call, why, self.hands, len(self.log) + 1, self.pos, self.money, before)
        self.ending = Ending.ILLEGAL
        raise IllegalCall(self.illegal)

    def _refuse(self, name: str) -> NoReturn:
        """A call out of order: say what the hand needed instead."""
        call = f"{name}()"
        if self.ending is not None:
            raise TestOver(str(self.ending))
        phase = self.phase
        if phase is Phase.IDLE:
            why = "called outside play()" if self.hands == 0 else "called after play() returned"
            if name == "play":
                why = "play() is already running"
        elif phase is Phase.START:
            why = "before init_game()"
        elif phase is Phase.INSURANCE:
            why = "the dealer shows an A: buy_insurance() must be called first"
        elif phase is Phase.INSURED:
            why = "after buy_insurance() returned 1 (the dealer has a Black Jack): stand() must end the hand"
        elif phase is Phase.DOUBLED:
            why = "after double_down(): stand() must come next"
        elif phase is Phase.SPLIT1:
            why = "before stand_1(): the first hand of the split is played with hit_1() and stand_1()"
        elif phase is Phase.SPLIT2:
            after = "stand_1()" if name in ("hit_1", "stand_1") else "split()"
            why = f"after {after}: the second hand is played with hit_2() and stand_2()"
        elif phase is Phase.DONE:
            why = f"after the hand ended with {self.how_done}: play() must return"
        elif name in ("hit_1", "stand_1", "hit_2", "stand_2"):
            why = "without split()"
        else:
            why = "not allowed here"
        self._illegal(call, why)

    def _deal(self) -> int:
        pos = self.pos
        if pos >= self.size:
            self.ending = Ending.CARDS
            raise TestOver("cards")
        self.pos = pos + 1
        return self.shoe[pos]

    def _settled(self, how: str) -> None:
        """The hand is over: record the money and decide the test."""
        self.phase = Phase.DONE
        self.how_done = how
        money = self.money
        self.curve.append(money)
        if money > TARGET:
            self.ending = Ending.WON
        elif money <= 0:
            self.ending = Ending.BROKE

    # -- the statement's calls ---------------------------------------------------------------------------------
    def bet_you_have(self) -> int:
        """The money not on the table."""
        if self.ending is not None:
            raise TestOver(str(self.ending))
        return self.money

    def init_game(self, bet: int) -> list[int]:
        """Bet ``bet`` and deal: the player's two cards, then the dealer's up card (the hole card is dealt too)."""
        if self.phase is not Phase.START:
            if self.phase is Phase.DONE:
                self._illegal(f"init_game({bet!r})", "a second hand in one call of play(): play() must return "
                              f"after {self.how_done}")
            self._refuse("init_game")
        if not _is_whole(bet):
            self._illegal(f"init_game({bet!r})", "the bet is not a whole number")
        if bet <= 0:
            self._illegal(f"init_game({bet})", "a bet must be a positive whole number")
        if bet > self.money:
            self._illegal(f"init_game({bet})", f"the bet is more than the money, {self.money}")
        self.money -= bet
        self.bet = bet
        deal = self._deal
        a, b, up, hole = deal(), deal(), deal(), deal()
        self.cards = [a, b]
        self.dealer = [up, hole]
        self.phase = Phase.INSURANCE if up == 1 else Phase.FIRST
        v = [a, b, up]
        self.log.append(("init_game", bet, (a, b, up)))
        return v

    def buy_insurance(self, insurance_bet: int) -> int:
        """Insure ``insurance_bet`` (0 .. B/2) against the dealer's A: 1 (and 2C paid) if he has a Black Jack."""
        if self.phase is not Phase.INSURANCE:
            if self.phase in (Phase.FIRST, Phase.HIT, Phase.DOUBLED, Phase.SPLIT1, Phase.SPLIT2) and self.dealer:
                why = "the dealer does not show an A" if self.dealer[0] != 1 else "insurance was already bought"
                self._illegal(f"buy_insurance({insurance_bet!r})", why)
            self._refuse("buy_insurance")
        c = insurance_bet
        call = f"buy_insurance({c!r})"
        if not _is_whole(c):
            self._illegal(call, "the insurance is not a whole number")
        if c < 0:
            self._illegal(call, "the insurance is negative")
        if 2 * c > self.bet:
            self._illegal(call, f"the insurance is more than half the bet {self.bet} (at most {self.bet // 2})")
        if c > self.money:
            self._illegal(call, f"the insurance is more than the money left, {self.money}")
        self.money -= c
        self.insurance = c
        if self.dealer[1] >= 10:
            self.money += 2 * c
            self.phase = Phase.INSURED
            self.log.append(("buy_insurance", c, 1))
            return 1
        self.phase = Phase.FIRST
        self.log.append(("buy_insurance", c, 0))
        return 0

    def double_down(self) -> int:
        """Stake B more and take exactly one card; stand() must follow."""
        if self.phase is not Phase.FIRST:
            if self.phase is Phase.HIT:
                self._illegal("double_down()", "after a hit: a double is made on the first two cards")
            if self.phase in (Phase.SPLIT1, Phase.SPLIT2):
                self._illegal("double_down()", "after split()")
            self._refuse("double_down")
        if self.money < self.bet:
            self._illegal("double_down()", f"it stakes the bet {self.bet} again but the money left is {self.money}")
        self.money -= self.bet
        self.doubled = True
        c = self._deal()
        self.cards.append(c)
        self.phase = Phase.DOUBLED
        self.log.append(("double_down", None, c))
        return c

    def split(self) -> list[int]:
        """Split a pair (two cards of the same points) into two hands, each dealt one card; stakes B more."""
        if self.phase is not Phase.FIRST:
            if self.phase in (Phase.SPLIT1, Phase.SPLIT2):
                self._illegal("split()", "a second split (one split a hand)")
            if self.phase is Phase.HIT:
                self._illegal("split()", "after a hit: a split is made on the first two cards")
            self._refuse("split")
        a, b = self.cards
        if min(a, 10) != min(b, 10):
            self._illegal("split()", f"{hand_text(self.cards)} is not a pair (two cards of the same points)")
        if self.money < self.bet:
            self._illegal("split()", f"it stakes the bet {self.bet} again but the money left is {self.money}")
        self.money -= self.bet
        c1 = self._deal()
        c2 = self._deal()
        self.split_hands = ([a, c1], [b, c2])
        self.phase = Phase.SPLIT1
        v = [c1, c2]
        self.log.append(("split", None, (c1, c2)))
        return v

    def hit(self) -> int:
        """One more card to the hand (not after split(), double_down() or a bust)."""
        if self.phase is not Phase.FIRST and self.phase is not Phase.HIT:
            self._refuse("hit")
        cards = self.cards
        if best_total(cards) > 21:
            self._illegal("hit()", f"the hand {hand_text(cards)} is bust: stand() must come next")
        c = self._deal()
        cards.append(c)
        self.phase = Phase.HIT
        self.log.append(("hit", None, c))
        return c

    def stand(self) -> list[int]:
        """End the hand: the dealer plays; returns his whole hand (up card, hole card, his draws)."""
        phase = self.phase
        if phase is Phase.INSURED:
            if is_blackjack(self.cards):
                self.money += self.bet  # a Black Jack pushes the dealer's (RULES.md judge_insured_blackjack)
            dealer = list(self.dealer)
            self.log.append(("stand", None, tuple(dealer)))
            self._settled("stand()")
            return dealer
        if phase is not Phase.FIRST and phase is not Phase.HIT and phase is not Phase.DOUBLED:
            self._refuse("stand")
        stake = 2 * self.bet if self.doubled else self.bet
        dealer = self._dealer_plays()
        self._pay(self.cards, stake, dealer)
        self.log.append(("stand", None, tuple(dealer)))
        self._settled("stand()")
        return list(dealer)

    def hit_1(self) -> int:
        """One more card to the first hand of a split."""
        if self.phase is not Phase.SPLIT1:
            self._refuse("hit_1")
        assert self.split_hands is not None
        cards = self.split_hands[0]
        if best_total(cards) > 21:
            self._illegal("hit_1()", f"the first hand {hand_text(cards)} is bust: stand_1() must come next")
        c = self._deal()
        cards.append(c)
        self.log.append(("hit_1", None, c))
        return c

    def stand_1(self) -> None:
        """End the first hand of a split; the second is played next."""
        if self.phase is not Phase.SPLIT1:
            self._refuse("stand_1")
        self.phase = Phase.SPLIT2
        self.log.append(("stand_1", None, None))

    def hit_2(self) -> int:
        """One more card to the second hand of a split."""
        if self.phase is not Phase.SPLIT2:
            if self.phase is Phase.SPLIT1:
                self._illegal("hit_2()", "before stand_1(): the first hand is played first")
            self._refuse("hit_2")
        assert self.split_hands is not None
        cards = self.split_hands[1]
        if best_total(cards) > 21:
            self._illegal("hit_2()", f"the second hand {hand_text(cards)} is bust: stand_2() must come next")
        c = self._deal()
        cards.append(c)
        self.log.append(("hit_2", None, c))
        return c

    def stand_2(self) -> list[int]:
        """End the second hand: the dealer plays; returns his whole hand."""
        if self.phase is not Phase.SPLIT2:
            if self.phase is Phase.SPLIT1:
                self._illegal("stand_2()", "before stand_1(): the first hand is played first")
            self._refuse("stand_2")
        assert self.split_hands is not None
        dealer = self._dealer_plays()
        for cards in self.split_hands:
            self._pay(cards, self.bet, dealer)
        self.log.append(("stand_2", None, tuple(dealer)))
        self._settled("stand_2()")
        return list(dealer)

    # -- the dealer and the payouts ----------------------------------------------------------------------------
    def _dealer_plays(self) -> list[int]:
        """The dealer turns his hole card over and draws until his largest total is 17 or more (he stands on a
        soft 17), whatever the player's hands hold."""
        dealer = self.dealer
        while best_total(dealer) < 17:
            dealer.append(self._deal())
        return dealer

    def _pay(self, cards: list[int], stake: int, dealer: list[int]) -> None:
        """Hand back what a hand staking ``stake`` wins: 5B/2 rounded down for a winning Black Jack (a split hand's
        A and ten included), 2x the stake for another win, the stake for a push, nothing for a loss."""
        r = win(cards, dealer)
        if r > 0:
            self.money += (5 * stake) // 2 if len(cards) == 2 and is_blackjack(cards) else 2 * stake
        elif r == 0:
            self.money += stake
