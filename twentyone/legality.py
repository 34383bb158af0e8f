"""When an action is legal: the one place that decides insurance, double and surrender.

``Foul`` names every cause a hand can be fouled for, as the round log writes it.  The three
``*_problem`` functions say why an action is not allowed now (a ``Foul``), or None when it is; they
take plain values so that the table (``Table.verify_x`` / ``can_x`` / ``x``), the view a strategy is
given (``SeatView.can_x``) and the course adapter (``strategy.CourseSeatView``) all ask the same
question the same way.
"""

from __future__ import annotations

from enum import StrEnum

from twentyone.rules import Rules

__all__ = ["Foul", "FAULTS", "insurance_problem", "double_problem", "double_amount", "surrender_problem"]


class Foul(StrEnum):
    """The causes a hand can be fouled for, as written in the round log (``foul``)."""

    ILLEGAL_ACTION = "illegal_action"
    ILLEGAL_INSURANCE = "illegal_insurance"
    UNAFFORDABLE_INSURANCE = "unaffordable_insurance"
    #: No longer given: a double the account cannot pay in full is a double for less (RULES.md,
    #: **double_for_less**).  Kept so that runs stored by earlier versions still read.
    UNAFFORDABLE_DOUBLE = "unaffordable_double"
    #: Strategy faults: the player is out of the match afterwards.
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"


#: The fouls that are strategy faults (the player leaves the match).
FAULTS = frozenset({Foul.ERROR, Foul.CRASH, Foul.TIMEOUT})

#: A hand's ``state`` while it still has its first two cards and no decision has taken effect:
#: '' before any action, 'i' after insurance.
_TWO_CARD_STATES = ("", "i")


def insurance_problem(rules: Rules, up_card: str, state: str, account: int, bet: int) -> Foul | None:
    """Why ``i`` is not allowed now, or None: only against an A, as the first action, if affordable."""
    if up_card != "A" or state != "":
        return Foul.ILLEGAL_INSURANCE
    if account < bet // 2:
        return Foul.UNAFFORDABLE_INSURANCE
    return None


def double_problem(rules: Rules, cards: int, state: str, account: int, bet: int) -> Foul | None:
    """Why ``d`` is not allowed now, or None: on the first two cards.  Money never forbids it: a player
    who cannot pay the whole double doubles for less (``double_amount``)."""
    if cards != 2 or state not in _TWO_CARD_STATES:
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
