"""Card codes and hand arithmetic (``twentyone.cards``): the course's ``calculate`` and its neighbours."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twentyone.cards import RANKS, TENS, VALUE, Rank, calculate, check_cards, hand_total, is_black_jack, is_soft
from twentyone.errors import BadCardsError, TwentyOneError


@pytest.mark.parametrize(("cards", "total"), [
    ("A9", 20),      # the course text: A + 9 = 20
    ("A48", 13),     # the course text: A + 4 + 8 = 13
    ("A3A", 15),     # the course text: A + 3 + A = 15
    ("AA", 12),
    ("AK", 21),
    ("AAA", 13),
    ("A5K", 16),
    ("A5K5", 21),
    ("KQJ", 30),
    ("T", 10),
    ("2345", 14),
    ("AAAAAAAAAAA", 21),
])
def test_calculate_examples(cards: str, total: int) -> None:
    """calculate counts T J Q K as 10 and an A as 11 only when that does not bust."""
    assert calculate(cards) == total


def test_values_of_every_code() -> None:
    """Every card code has its value; A counts 1 before the soft 10 is added."""
    assert RANKS == "A23456789TJQK"
    assert VALUE == {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                     "T": 10, "J": 10, "Q": 10, "K": 10}
    assert TENS == frozenset("TJQK")
    assert [r.value for r in Rank] == list(RANKS)
    assert Rank("T") is Rank.TEN and str(Rank.TEN) == "T"


@pytest.mark.parametrize("cards", ["AT", "TA", "AJ", "QA", "AK", "KA"])
def test_is_black_jack_yes(cards: str) -> None:
    """Exactly two cards, an A and a ten-value card, is a Black Jack."""
    assert is_black_jack(cards)


@pytest.mark.parametrize("cards", ["AA", "A9", "TT", "KQ", "A", "T", "A5K5", "AKA", "TAT", "A55", ""])
def test_is_black_jack_no(cards: str) -> None:
    """Any other hand, a multi-card 21 included, is not a Black Jack."""
    assert not is_black_jack(cards)


@pytest.mark.parametrize(("cards", "soft"), [("A6", True), ("AA", True), ("A6T", False), ("A5K", False),
                                             ("T7", False), ("A55", True), ("AAT", False)])
def test_is_soft(cards: str, soft: bool) -> None:
    """A hand is soft when one of its aces counts 11."""
    assert is_soft(cards) is soft


def test_hand_total() -> None:
    """hand_total adds the soft 10 only when the hard sum is 11 or less."""
    assert hand_total(7, True) == 17
    assert hand_total(11, True) == 21
    assert hand_total(12, True) == 12
    assert hand_total(7, False) == 7


@pytest.mark.parametrize("cards", ["", "A", "A23456789TJQK", "KKKK"])
def test_check_cards_accepts_codes(cards: str) -> None:
    """check_cards returns a string of valid codes unchanged."""
    assert check_cards(cards) == cards


@pytest.mark.parametrize(("cards", "bad"), [("A1", "'1'"), ("a", "'a'"), ("10", "'1'"), ("AX", "'X'"),
                                            ("A K", "' '"), ("t", "'t'")])
def test_check_cards_errors(cards: str, bad: str) -> None:
    """check_cards raises BadCardsError (a ValueError) naming the first bad code and the string."""
    with pytest.raises(BadCardsError) as e:
        check_cards(cards)
    assert isinstance(e.value, ValueError) and isinstance(e.value, TwentyOneError)
    assert bad in str(e.value) and repr(cards) in str(e.value)


@given(st.text(alphabet="A23456789TJQK", min_size=1, max_size=19))
def test_c_and_python_calculate_agree(cards: str) -> None:
    """The course helper calculate in c_src/twentyone.c, built into twentyone._core, agrees with Python's."""
    from twentyone.core import c_calculate

    assert c_calculate(cards) == calculate(cards)


def test_init_cards_and_shuffle_cards_are_the_course_functions() -> None:
    """init_cards lays out N decks in order; shuffle_cards returns a permutation of them from the seed."""
    from collections import Counter

    from twentyone.core import Generator, init_cards, shuffle_cards

    shoe = init_cards(2)
    assert shoe == ("A23456789TJQK" * 4) * 2
    mixed = shuffle_cards(Generator(5), 2)
    assert Counter(mixed) == Counter(shoe) and mixed != shoe
    assert mixed == shuffle_cards(Generator(5), 2)
