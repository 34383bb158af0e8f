"""The statement's ``Blackjack.h`` in Python: a solution file defines ``play()`` and imports these.

    from twentyone.judge.blackjack import *

    def play():
        money = bet_you_have()
        v = init_game(money // 10)          # [your card, your card, the dealer's up card]
        if v[2] == 1:
            if buy_insurance(0) == 1:       # the dealer has a Black Jack
                stand()
                return
        if cal_max_point(v[:2]) <= 11:
            double_down()
        stand()                             # the dealer's whole hand

Every name and card code is the C++ header's (cards 1 .. 13 = A, 2 .. 10, J, Q, K); ``vector<int>`` is a
list.  ``twentyone judge solution.py --trusted`` runs the file in the judge's own process (there is no
sandbox for the Python form: use it only for code you have read); each test loads it afresh, as each C++
test starts a fresh program.  An illegal call ends the test at once: the call raises ``JudgeStop``, which
derives from ``BaseException`` so that ``except Exception`` does not stop it.
"""

from __future__ import annotations

from collections.abc import Sequence

from twentyone.judge import hands
from twentyone.judge.game import Game, JudgeStop

__all__ = ["init_game", "buy_insurance", "double_down", "split", "hit_1", "stand_1", "hit_2", "stand_2", "hit",
           "stand", "is_blackjack", "cal_point", "cal_max_point", "win", "bet_you_have", "JudgeStop"]

_game: Game | None = None


def bind(game: Game | None) -> None:
    """Make ``game`` the test these functions play (None: no test)."""
    global _game
    _game = game


def _current() -> Game:
    if _game is None:
        raise RuntimeError("no test is being played: run the solution with 'twentyone judge FILE.py --trusted'")
    return _game


def init_game(bet: int) -> list[int]:
    """Bet ``bet`` (1 .. your money): [your first card, your second card, the dealer's up card]."""
    return _current().init_game(bet)


def buy_insurance(insurance_bet: int) -> int:
    """Required when the dealer shows an A: insure 0 .. bet // 2; 1 if he has a Black Jack (call stand())."""
    return _current().buy_insurance(insurance_bet)


def double_down() -> int:
    """Stake the bet again and take one card (returned); stand() must follow."""
    return _current().double_down()


def split() -> list[int]:
    """Split a pair: [the first hand's new card, the second hand's]; stakes the bet again."""
    return _current().split()


def hit_1() -> int:
    """After split(): one more card to the first hand."""
    return _current().hit_1()


def stand_1() -> None:
    """After split(): the first hand is done."""
    _current().stand_1()


def hit_2() -> int:
    """After stand_1(): one more card to the second hand."""
    return _current().hit_2()


def stand_2() -> list[int]:
    """After stand_1(): the second hand is done; the dealer's whole hand."""
    return _current().stand_2()


def hit() -> int:
    """One more card."""
    return _current().hit()


def stand() -> list[int]:
    """The hand is done: the dealer's whole hand (up card, hole card, his draws)."""
    return _current().stand()


def bet_you_have() -> int:
    """Your money (not counting what is on the table)."""
    return _current().bet_you_have()


def is_blackjack(v: Sequence[int]) -> bool:
    """True when ``v`` is an A and a ten-valued card."""
    return hands.is_blackjack(v)


def cal_point(v: Sequence[int]) -> list[int]:
    """Every total of ``v`` not over 21, smallest first; [-1] when bust."""
    return hands.cal_point(v)


def cal_max_point(v: Sequence[int]) -> int:
    """The largest total of ``v`` not over 21, or -1 when bust."""
    return hands.cal_max_point(v)


def win(a: Sequence[int], b: Sequence[int]) -> int:
    """1 if your hand ``a`` beats the dealer's ``b``, 0 for a push, -1 if it loses."""
    return hands.win(a, b)
