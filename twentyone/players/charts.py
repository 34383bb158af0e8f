"""The basic-strategy chart for the course rules: a total-dependent strategy, documented row by row.

Course rules: no split, double on any two cards, late surrender, dealer stands on soft 17, dealer
peeks, Black Jack pays 2:1.  The two-card rows are the 6-deck best first decisions of
RULES.md's "Reference values" (an outside exact analyser); the deck-count exceptions below come from the same
source.  Columns are the dealer's up card ``2 3 4 5 6 7 8 9 T A``.  H hit, S stand, D double
(hit if doubling is not allowed), E double (stand if not allowed), U surrender (hit if not allowed).

Total-dependent means the decision depends on the total, its softness and whether the hand has two
cards or more, never on which cards make it; pairs play as their total (there is no split).
"""

from __future__ import annotations

from typing import Final

UP: Final = "23456789TA"

#: Two-card hands, 6 decks (also 2 and 4 decks).
HARD_2: Final[dict[int, str]] = {
    **{t: "HHHHHHHHHH" for t in range(4, 9)},
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDDH",
    12: "HHSSSHHHHH",
    13: "SSSSSHHHHH",
    14: "SSSSSHHHHH",
    15: "SSSSSHHHUH",
    16: "SSSSSHHUUU",
    **{t: "SSSSSSSSSS" for t in range(17, 22)},
}
SOFT_2: Final[dict[int, str]] = {
    12: "HHHHDHHHHH",  # AA
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SEEEESSHHH",
    19: "SSSSSSSSSS",
    20: "SSSSSSSSSS",
    21: "SSSSSSSSSS",
}
#: Hands of three cards or more (after hitting).
HARD_3: Final[dict[int, str]] = {
    **{t: "HHHHHHHHHH" for t in range(4, 12)},
    12: "HHSSSHHHHH",
    13: "SSSSSHHHHH",
    14: "SSSSSHHHHH",
    15: "SSSSSHHHHH",
    16: "SSSSSHHHSH",
    **{t: "SSSSSSSSSS" for t in range(17, 22)},
}
SOFT_3: Final[dict[int, str]] = {
    **{t: "HHHHHHHHHH" for t in range(12, 18)},
    18: "SSSSSSSHHH",
    19: "SSSSSSSSSS",
    20: "SSSSSSSSSS",
    21: "SSSSSSSSSS",
}


def _patch(row: str, up: str, action: str) -> str:
    i = UP.index(up)
    return row[:i] + action + row[i + 1:]


def chart(decks: int) -> tuple[dict[int, str], dict[int, str], dict[int, str], dict[int, str]]:
    """The (hard two-card, soft two-card, hard 3+, soft 3+) rows for ``decks`` decks."""
    h2, s2, h3, s3 = dict(HARD_2), dict(SOFT_2), dict(HARD_3), dict(SOFT_3)
    if decks >= 8:
        h3[16] = _patch(h3[16], "T", "H")
    if decks == 1:
        h2[9] = _patch(h2[9], "2", "D")
        h2[11] = _patch(h2[11], "A", "D")
        h2[16] = "SSSSSHHHUH"
        s2[13] = _patch(s2[13], "4", "D")
        s2[14] = _patch(s2[14], "4", "D")
        s2[17] = _patch(s2[17], "2", "D")
        s2[18] = _patch(s2[18], "A", "S")
        s2[19] = _patch(s2[19], "6", "E")
        s2[12] = "HHHDDHHHHH"
        h3[12] = _patch(h3[12], "3", "S")
        h3[13] = _patch(h3[13], "2", "H")
    return h2, s2, h3, s3
