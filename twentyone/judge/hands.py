"""The judge problem's card arithmetic: the statement's helpers ``is_blackjack``, ``cal_point``,
``cal_max_point`` and ``win``, on its card codes.

Cards are the statement's codes: A, 2 .. 10, J, Q, K are 1 .. 13.  J, Q and K count 10; an A counts
1 or 11.  A hand is a list of codes; the helpers take any numbers (RULES.md judge_helpers_any_numbers: 1 is an
A, 10 and over count 10, others their value).  ``c_src/judge/tw_judge_client.cpp`` implements the same four
helpers for C++ solutions (they run in the solution's own process, as the statement's header did);
``tests/test_judge_game.py`` checks both give the same answers.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["hard_total", "best_total", "is_blackjack", "cal_point", "cal_max_point", "win", "hand_text"]


def hard_total(cards: Sequence[int]) -> int:
    """The total with every A counted 1."""
    return sum(c if c < 10 else 10 for c in cards)


def best_total(cards: Sequence[int]) -> int:
    """The largest total not over 21 (an A counted 11 when that does not bust), or the hard total when even
    that is over 21 (a bust)."""
    hard = 0
    ace = False
    for c in cards:
        if c == 1:
            ace = True
            hard += 1
        else:
            hard += c if c < 10 else 10
    return hard + 10 if ace and hard <= 11 else hard


def is_blackjack(v: Sequence[int]) -> bool:
    """True when ``v`` is two cards, an A and a ten-valued card (10, J, Q or K)."""
    return len(v) == 2 and ((v[0] == 1 and v[1] >= 10) or (v[1] == 1 and v[0] >= 10))


def cal_point(v: Sequence[int]) -> list[int]:
    """Every possible total of ``v`` not over 21, smallest first; ``[-1]`` when every total is over 21."""
    hard = hard_total(v)
    aces = sum(1 for c in v if c == 1)
    totals = sorted({hard + 10 * k for k in range(aces + 1) if hard + 10 * k <= 21})
    return totals or [-1]


def cal_max_point(v: Sequence[int]) -> int:
    """The largest total of ``v`` not over 21, or -1 when it is bust."""
    total = best_total(v)
    return total if total <= 21 else -1


def win(a: Sequence[int], b: Sequence[int]) -> int:
    """The statement's comparison of the player's hand ``a`` with the dealer's ``b``: 1 the player wins,
    0 a push, -1 the dealer wins.  Black Jacks first, then a busted player loses (whatever the dealer
    has), then a busted dealer loses, then the larger total wins."""
    abj, bbj = is_blackjack(a), is_blackjack(b)
    if abj or bbj:
        return 0 if abj and bbj else 1 if abj else -1
    x, y = best_total(a), best_total(b)
    if x > 21:
        return -1
    if y > 21:
        return 1
    return (x > y) - (x < y)


def hand_text(cards: Sequence[int]) -> str:
    """A hand as the statement writes it: ``{1, 9, 5}``."""
    return "{" + ", ".join(str(c) for c in cards) + "}"
