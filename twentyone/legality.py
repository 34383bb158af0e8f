"""When an action is legal: the one place that decides insurance, double, surrender, split and Changer.

``Foul`` names every cause a hand can be fouled for, as the round log writes it.  The ``*_problem``
functions say why an action is not allowed now (a ``Foul``), or None when it is; they take plain values
so that the table (``Table.verify_x`` / ``can_x`` / ``x``), the view a strategy is given
(``SeatView.can_x``) and the course adapter (``strategy.CourseSeatView``) all ask the same question the
same way.

A hand's ``state`` is its latest action character: '' before any, 'i' after insurance (both still
a first decision), 'p' for a split hand that has its two cards and no decision yet, 'a' for a split
ace that took its one card and may only be split again or stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from twentyone.cards import VALUE
from twentyone.rules import Rules

__all__ = ["Foul", "FAULTS", "BET_VALUES", "is_bet", "is_action", "not_a_bet", "not_an_action", "raised",
           "insurance_problem", "double_problem",
           "double_amount", "surrender_problem", "split_problem", "change_problem", "is_pair", "dealer_may_choose"]


class Foul(StrEnum):
    """The causes a hand can be fouled for, as written in the round log (``foul``)."""

    ILLEGAL_ACTION = "illegal_action"
    ILLEGAL_INSURANCE = "illegal_insurance"
    UNAFFORDABLE_INSURANCE = "unaffordable_insurance"
    #: No longer given: a double the account cannot pay in full is a double for less (RULES.md,
    #: **double_for_less**).  Kept so that runs stored by earlier versions still read.
    UNAFFORDABLE_DOUBLE = "unaffordable_double"
    #: A split the account cannot pay a whole bet for.
    UNAFFORDABLE_SPLIT = "unaffordable_split"
    #: Strategy faults: the player is out of the match afterwards.
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"


#: The fouls that are strategy faults (the player leaves the match).
FAULTS = frozenset({Foul.ERROR, Foul.CRASH, Foul.TIMEOUT})

#: The values ``bet`` may return: a C ``int``, as ``betK`` returns (RULES.md, **bet_garbage**); the table then
#: clamps it to the rules' bets.
BET_VALUES = range(-2**31, 2**31)


def is_bet(value: object) -> bool:
    """True when a strategy's ``bet`` returned a bet: an ``int`` (not a bool, not a subclass) in ``BET_VALUES``."""
    return type(value) is int and value in BET_VALUES


def is_action(value: object) -> bool:
    """True when a strategy's decision is one character (a ``str``, not a subclass); which characters are legal
    where is the table's question, and any other character is an illegal action (a foul)."""
    return type(value) is str and len(value) == 1


def not_a_bet(value: object) -> str:
    """The fault's words for a ``bet`` that returned ``value``, not a bet (``is_bet`` is false): the same in
    process and in the sandbox's Python box, so a round log is the same either way."""
    from twentyone.safetext import returned_text

    return f"bet returned {returned_text(value)}, not an int" + (
        f" in {BET_VALUES.start} .. {BET_VALUES.stop - 1}" if type(value) is int else "")


def not_an_action(where: str, value: object) -> str:
    """The fault's words for a decision (``where``: first_action, continue_action) that returned ``value``, not
    one character."""
    from twentyone.safetext import returned_text

    return f"{where} returned {returned_text(value)}, not one character"


def raised(where: str, e: BaseException) -> str:
    """The fault's words for an exception a strategy raised in ``where``: its type, its message (one that cannot
    be made into text is said to be so) and where in the strategy's own file (``errors.own_lines``)."""
    from twentyone.errors import own_lines

    try:
        message = str(e)
    except Exception:  # noqa: BLE001 - the student's own __str__ may raise too
        message = "(a message that could not be read)"
    return f"{where} raised {type(e).__name__}: {message}{own_lines(e)}"


#: A hand's ``state`` while it still has its first two cards and no decision has taken effect:
#: '' before any action, 'i' after insurance.
_TWO_CARD_STATES = ("", "i")
#: A split hand before its first decision: 'p', or 'a' for a split ace that took its one card.
_SPLIT_HAND_STATES = ("p", "a")
_SPLIT_STATES = _TWO_CARD_STATES + _SPLIT_HAND_STATES


def insurance_problem(rules: Rules, up_card: str, state: str, account: int, bet: int) -> Foul | None:
    """Why ``i`` is not allowed now, or None: only against an A, as the first action, if the rules offer
    insurance and it is affordable."""
    if up_card != "A" or state != "" or not rules.insurance:
        return Foul.ILLEGAL_INSURANCE
    if account < bet // 2:
        return Foul.UNAFFORDABLE_INSURANCE
    return None


def double_problem(rules: Rules, cards: int, state: str, account: int, bet: int, total: int = 0,
                   soft: bool = False) -> Foul | None:
    """Why ``d`` is not allowed now, or None: on the first two cards (a split hand's too, when the rules
    double after a split), with a total the rules' ``double_on`` allows (``total`` and ``soft`` are the
    hand's).  Money never forbids it: a player who cannot pay the whole double doubles for less
    (``double_amount``)."""
    if cards != 2:
        return Foul.ILLEGAL_ACTION
    if state not in _TWO_CARD_STATES and (state != "p" or not rules.double_after_split):
        return Foul.ILLEGAL_ACTION
    on = rules.double_on
    if on != "any" and (on == "none" or soft or not (9 if on == "9-11" else 10) <= total <= 11):
        return Foul.ILLEGAL_ACTION
    return None


def double_amount(account: int, bet: int) -> int:
    """What a double adds to the stake: the bet again, or all that is left of the account (possibly 0)."""
    return min(bet, max(account, 0))


def surrender_problem(rules: Rules, cards: int, state: str) -> Foul | None:
    """Why ``u`` is not allowed now, or None: on the first two cards, when the rules allow it."""
    if not rules.surrender or cards != 2 or state not in _TWO_CARD_STATES:
        return Foul.ILLEGAL_ACTION
    return None


def is_pair(cards: Sequence[str]) -> bool:
    """Two cards of one value (any two ten-value cards are a pair)."""
    return len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]]


def split_problem(rules: Rules, cards: Sequence[str], state: str, hands: int, account: int, bet: int,
                  course_interface: bool = False) -> Foul | None:
    """Why ``p`` is not allowed now, or None: a pair, as a first decision or a split hand's first, when the
    rules split, the seat holds fewer than ``split_hands`` hands (``hands``: 1 before any split), aces
    only as the rules resplit them, and the account can pay another whole ``bet``.  A course function
    set (``course_interface``) never splits: the course's C interface has no split."""
    if not rules.split or course_interface or not is_pair(cards) or hands >= rules.split_hands:
        return Foul.ILLEGAL_ACTION
    if state not in _SPLIT_STATES:
        return Foul.ILLEGAL_ACTION
    if state in _SPLIT_HAND_STATES and cards[0] == "A" and not rules.resplit_aces:
        return Foul.ILLEGAL_ACTION
    if account < bet:
        return Foul.UNAFFORDABLE_SPLIT
    return None


def change_problem(rules: Rules, cards: Sequence[str], state: str, course_interface: bool = False) -> Foul | None:
    """Why ``c`` (the French game's Changer) is not allowed now, or None: a pair, as the first decision,
    when the rules have it.  Like a double, money never forbids it (the stake grows by ``double_amount``).
    A course function set never changes a card (the course's C interface has no Changer)."""
    if not rules.changer or course_interface or not is_pair(cards) or state not in _TWO_CARD_STATES:
        return Foul.ILLEGAL_ACTION
    return None


def dealer_may_choose(total: int, soft: bool, cards: int) -> bool:
    """True where a dealer who is a player chooses to hit or stand (the Lianzhong table; RULES.md,
    **lianzhong_dealer_choice**): a soft 17, or a soft 18 to 20 of his first two cards; a hit that takes him
    over 17 stands at once."""
    return soft and (total == 17 or (cards == 2 and 17 <= total <= 20))
