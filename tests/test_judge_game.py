"""The judge problem's game (twentyone.judge.game) and helpers (twentyone.judge.hands), in process."""

from __future__ import annotations

from collections import Counter

import pytest

from twentyone.judge import hands
from twentyone.judge.game import (SHOE_CARDS, START_MONEY, Ending, Game, IllegalCall, JudgeStop, TestOver, TestResult,
                                  shuffled_shoe)


def test_a_shoe_is_5000_decks_in_a_reproducible_order() -> None:
    """A test's shoe holds 5000 of every card of every suit, and its seed alone fixes the order."""
    shoe = shuffled_shoe(17)
    assert len(shoe) == SHOE_CARDS == 260_000
    assert Counter(shoe) == {c: 20_000 for c in range(1, 14)}
    assert shoe == shuffled_shoe(17) and shoe != shuffled_shoe(18)


@pytest.mark.parametrize(("cards", "total", "points"), [
    ([13, 3, 6], 19, [19]),        # the statement's "K 3 6 is 19"
    ([1, 5], 16, [6, 16]),         # "A 5 can be 16 or 6"
    ([11, 13, 2], -1, [-1]),       # "J K 2 is bust"
    ([1, 10, 8], 19, [19]),        # "A 10 8 is 19"
    ([1, 1], 12, [2, 12]),
    ([1, 1, 9], 21, [11, 21]),
    ([], 0, [0]),
])
def test_the_statements_examples_of_totals(cards: list[int], total: int, points: list[int]) -> None:
    """cal_max_point and cal_point give the statement's totals: every total not over 21, smallest first."""
    assert hands.cal_max_point(cards) == total
    assert hands.cal_point(cards) == points


def test_win_looks_at_black_jacks_first_then_busts_then_totals() -> None:
    """win(): two Black Jacks push, one wins, a bust player loses even to a bust dealer, then totals."""
    bj, twenty_one, bust = [1, 12], [7, 7, 7], [10, 10, 5]
    assert hands.win(bj, [13, 1]) == 0
    assert hands.win(bj, twenty_one) == 1 and hands.win(twenty_one, bj) == -1
    assert hands.win(bust, bust) == -1 and hands.win([10, 6], bust) == 1
    assert hands.win([10, 8], [9, 9]) == 0 and hands.win([10, 9], [9, 9]) == 1 and hands.win([10, 7], [9, 9]) == -1
    assert hands.is_blackjack([10, 1]) and not hands.is_blackjack([1, 9]) and not hands.is_blackjack([1, 10, 10])


def test_the_statements_sample_game_is_replayed_exactly() -> None:
    """The statement's sample table (four hands) on a stacked shoe: the same replies, then the money it means."""
    g = Game(cards=[1, 9, 5, 10, 1, 12,            # hand 1: {1, 9, 5}, hit 1, the dealer draws 12
                    3, 4, 1, 13,                   # hand 2: {3, 4, 1}, the dealer has a Black Jack
                    5, 5, 2, 13, 1, 10, 7, 12,     # hand 3: {5, 5, 2}, split {1, 10}, hit_2 7, the dealer draws 12
                    1, 3, 10, 2, 10, 1, 1, 3])     # hand 4: {1, 3, 10}, double 10, the dealer draws 1 1 3
    g.begin_play()
    assert g.init_game(100) == [1, 9, 5] and g.hit() == 1 and g.stand() == [5, 10, 12]
    g.end_play()
    assert g.money == START_MONEY + 100  # A 9 A is 21 against a bust dealer
    g.begin_play()
    assert g.init_game(100) == [3, 4, 1] and g.buy_insurance(0) == 1 and g.stand() == [1, 13]
    g.end_play()
    assert g.money == START_MONEY
    g.begin_play()
    assert g.init_game(500_000) == [5, 5, 2] and g.split() == [1, 10]
    g.stand_1()
    assert g.hit_2() == 7 and g.stand_2() == [2, 13, 12]
    g.end_play()
    assert g.money == START_MONEY  # 5 A wins 500000 back twice over; 5 10 7 is bust
    g.begin_play()
    assert g.init_game(500_000) == [1, 3, 10] and g.double_down() == 10 and g.stand() == [10, 2, 1, 1, 3]
    assert g.ending is Ending.BROKE and g.money == 0  # 14 against 17, the whole million staked
    g.end_play()
    r = g.result()
    assert (r.hands, r.cards, r.curve) == (4, 26, [START_MONEY + 100, START_MONEY, START_MONEY, 0])


def test_an_illegal_call_is_named_with_its_place_and_the_hand_so_far() -> None:
    """The first illegal call ends the test; its message names the call, why, the hand, the cards and the calls."""
    g = Game(cards=[10, 6, 9, 8] * 5)
    g.begin_play()
    g.init_game(100)
    g.stand()
    with pytest.raises(IllegalCall) as e:
        g.hit()
    ill = e.value.illegal
    assert (ill.call, ill.hand, ill.call_no, ill.cards) == ("hit()", 1, 3, 4)
    assert "after the hand ended with stand()" in ill.why
    assert ill.before == ("init_game(100) -> {10, 6, 9}", "stand() -> {9, 8}")
    assert g.ending is Ending.ILLEGAL
    with pytest.raises(TestOver):
        g.bet_you_have()  # the test is over: every later call unwinds


def test_a_result_survives_storing_and_its_curve_is_thinned() -> None:
    """TestResult.to_dict / from_dict round-trips, and a long money curve is kept as about N points, the last
    one included."""
    r = TestResult(5, Ending.CARDS, 990_000, 1234, SHOE_CARDS, list(range(1234)))
    d = r.to_dict(curve_points=100)
    back = TestResult.from_dict(d)
    assert (back.seed, back.ending, back.money, back.hands, back.cards) == (5, Ending.CARDS, 990_000, 1234, SHOE_CARDS)
    assert len(back.curve) <= 101 and back.curve[-1] == 1233 and back.curve_stride == 13
    assert back.reason() == r.reason()


def test_a_judge_stop_is_not_an_exception_a_solution_can_swallow() -> None:
    """JudgeStop derives from BaseException: ``except Exception`` in a solution does not stop the test ending."""
    assert not issubclass(JudgeStop, Exception)
