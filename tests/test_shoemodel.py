"""The hand analysis behind ``champion``: compositions for a count, exact values and the charts they give.

Expected values are checked against the exact analyser in the limit of an infinite shoe (the analyser itself is
checked against REFERENCE.md, an outside exact analyser) and the count-indexed charts against the published
Hi-Lo indices.
"""

from __future__ import annotations

import math

from twentyone.analysis.shoemodel import ShoeModel, count_composition, shoe_model

#: Rank indices of ``ShoeModel`` tables: A, 2..9, T.
A, TWO, FOUR, SIX, TEN = 0, 1, 3, 5, 9


def test_count_composition_has_the_true_count_it_stands_for() -> None:
    """Per deck left, high cards less low cards equal the true count, and the probabilities sum to 1."""
    for t in (-4.0, 0.0, 2.5):
        q = count_composition(t)
        assert math.isclose(sum(q), 1.0)
        assert math.isclose(52 * (q[A] + q[TEN] - sum(q[1:6])), t)


def test_neutral_chart_is_the_reference_hard_chart() -> None:
    """At true count 0 the derived two-card hard rows are REFERENCE.md's 6-deck rows."""
    reference = {
        9: "HDDDDHHHHH", 10: "DDDDDDDDHH", 11: "DDDDDDDDDH", 12: "HHSSSHHHHH", 13: "SSSSSHHHHH",
        14: "SSSSSHHHHH", 15: "SSSSSHHHUH", 16: "SSSSSHHUUU", 17: "SSSSSSSSSS",
    }
    m = shoe_model(0)
    for total, row in reference.items():
        derived = "".join(m.act2[(total, False)][u] for u in (1, 2, 3, 4, 5, 6, 7, 8, 9, A))
        assert derived == row, total


def test_always_stand_ev_is_the_exact_infinite_shoe_value() -> None:
    """Always standing at true count 0: the model draws from an infinite shoe of the neutral composition, so its
    value is the exact analyser's (itself checked against REFERENCE.md at 1 to 8 decks) in the limit of many
    decks, extrapolated from 2048 and 4096 decks in 1/decks, to 1e-6 (the old check allowed 0.2 points)."""
    from twentyone.analysis import Shoe
    from twentyone.analysis.exact import house_edge
    from twentyone.rules import COURSE

    ev = shoe_model(0).ev("stand", lambda st, two, u: "S")
    a, b = (house_edge(COURSE, shoe=Shoe.decks(n), strategy="stand").ev for n in (2048, 4096))
    infinite = 2 * b - a  # Richardson: the value is linear in 1/decks this far out
    assert abs(ev - infinite) < 1e-6, (ev, infinite)


def test_count_indexed_deviations_come_out_of_the_exact_values() -> None:
    """The derived charts move with the count as the published Hi-Lo indices do."""
    low, zero, high = shoe_model(-2), shoe_model(0), shoe_model(4)
    assert (zero.act2[(10, False)][TEN], high.act2[(10, False)][TEN]) == ("H", "D")  # 10 v T doubles at +4
    assert (low.act2[(12, False)][FOUR], zero.act2[(12, False)][FOUR]) == ("H", "S")  # 12 v 4 stands from 0
    assert (zero.act2[(12, False)][TWO], high.act2[(12, False)][TWO]) == ("H", "S")  # 12 v 2 stands high
    assert not shoe_model(2).insure and high.insure  # insurance once tens are over a third


def test_dealer_distribution_is_a_distribution() -> None:
    """Each up card's final-total distribution sums to 1, and a 6 busts more often than a T."""
    m = ShoeModel(count_composition(0))
    for u in range(10):
        assert math.isclose(sum(m.dealer[u]), 1.0)
    assert m.dealer[SIX][5] > m.dealer[TEN][5]
