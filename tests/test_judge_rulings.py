"""The judge problem's rulings (RULES.md, "The judge problem"): one test each, named after it, on stacked shoes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from twentyone.judge import hands
from twentyone.judge.game import START_MONEY, TARGET, Ending, Game, IllegalCall, TestOver

#: Cards that fill a stacked shoe after the cards a test is about: dealt only if something goes wrong.
PAD = [10, 8, 10, 7] * 10


def hand(cards: list[int], bet: int = 100) -> Game:
    """A game whose first hand is dealt from ``cards`` (then PAD), after init_game(bet)."""
    g = Game(cards=cards + PAD)
    g.begin_play()
    g.init_game(bet)
    return g


def illegal(g: Game, call: Callable[[], object]) -> str:
    """The reason ``call`` is illegal (it must be)."""
    with pytest.raises(IllegalCall) as e:
        call()
    assert g.ending is Ending.ILLEGAL
    return e.value.illegal.why


def test_ruling_judge_insurance_pays_2c() -> None:
    """Insurance C against a Black Jack hands back 2C in all (net +C); against none, C is lost."""
    g = hand([10, 7, 1, 13])
    assert g.buy_insurance(50) == 1 and g.money == START_MONEY - 100 - 50 + 100
    g.stand()
    assert g.money == START_MONEY - 50  # the bet lost, the insurance won 50 net
    g = hand([10, 7, 1, 9, 5])
    assert g.buy_insurance(50) == 0 and g.money == START_MONEY - 150
    assert g.stand() == [1, 9] and g.money == START_MONEY - 150  # 17 against 20: everything lost


def test_ruling_judge_no_peek_under_ten() -> None:
    """A Black Jack under a ten is not checked for: the hand plays on, and it takes the double's stake too;
    a split's two stakes as well; a Black Jack of the player's pushes it."""
    g = hand([5, 6, 10, 1, 9])
    assert g.double_down() == 9 and g.stand() == [10, 1]  # 20 is no match for his Black Jack: no draw
    assert g.money == START_MONEY - 200
    g = hand([8, 8, 13, 1, 3, 2])
    g.split()
    g.stand_1()
    g.stand_2()
    assert g.money == START_MONEY - 200
    g = hand([1, 12, 10, 1])
    g.stand()
    assert g.money == START_MONEY


def test_ruling_judge_blackjack_pays_floor() -> None:
    """A winning Black Jack hands back 5B/2 rounded down: 12 on a bet of 5, 250 on 100."""
    for bet, back in ((5, 12), (100, 250), (1, 2)):
        g = hand([1, 13, 10, 7], bet)
        g.stand()
        assert g.money == START_MONEY - bet + back


def test_ruling_judge_cards_run_out() -> None:
    """A card needed after the last one loses the test at once, mid-hand too; a hand finished with the last card
    is settled and can win."""
    g = Game(cards=[10, 5, 10, 6, 9])
    g.begin_play()
    g.init_game(100)
    assert g.hit() == 9
    with pytest.raises(TestOver):
        g.stand()  # the dealer's 16 needs a card: there is none
    assert g.ending is Ending.CARDS and g.result().cards == 5 and g.money == START_MONEY - 100
    g = Game(cards=[10, 9, 10, 7])
    g.begin_play()
    g.init_game(TARGET - START_MONEY + 1)
    g.stand()  # 19 against 17, the dealer draws nothing: the last card was enough
    assert g.ending is Ending.WON and g.money == TARGET + 1
    g = Game(cards=[10, 9, 10])
    g.begin_play()
    with pytest.raises(TestOver):
        g.init_game(1)
    assert g.ending is Ending.CARDS


def test_ruling_judge_insured_blackjack() -> None:
    """An insured Black Jack against a dealer's Black Jack pushes: B back, and 2C for the insurance."""
    g = hand([1, 11, 1, 12])
    assert g.buy_insurance(50) == 1
    assert g.stand() == [1, 12]
    assert g.money == START_MONEY - 100 - 50 + 100 + 100


def test_ruling_judge_split_blackjack() -> None:
    """A split hand of an A and a ten is a Black Jack: it pays 5B/2 (and the other hand is played on its own)."""
    g = hand([1, 1, 9, 7, 13, 5])
    assert g.split() == [13, 5]
    g.stand_1()
    g.stand_2()  # A K against 16 drawing: the dealer's 16 takes a card from PAD and busts
    assert g.money == START_MONEY - 200 + 250 + 200  # A 5 (16) wins too against his bust
    assert hands.is_blackjack([1, 13]) and hands.win([1, 13], [10, 7]) == 1


def test_ruling_judge_stakes_paid() -> None:
    """Doubling, splitting and insuring are paid from the money left after the bet; what it cannot pay is illegal;
    insurance is at most B/2 rounded down."""
    g = hand([5, 6, 10, 7], START_MONEY)
    assert "money left is 0" in illegal(g, g.double_down)
    g = hand([8, 8, 10, 7], START_MONEY - 1)
    assert "money left is 1" in illegal(g, g.split)
    g = hand([8, 8, 1, 7], 5)
    assert "at most 2" in illegal(g, lambda: g.buy_insurance(3))
    g = hand([8, 8, 1, 7], START_MONEY - 10)
    assert "more than the money left, 10" in illegal(g, lambda: g.buy_insurance(11))
    g = hand([8, 8, 1, 7], START_MONEY - 10)
    assert g.buy_insurance(10) == 0 and g.money == 0
    for bet, why in ((START_MONEY + 1, "the bet is more than the money"), (0, "positive"), (-5, "positive")):
        g = Game(cards=PAD)
        g.begin_play()
        assert why in illegal(g, lambda: g.init_game(bet))


def test_ruling_judge_one_hand_a_play() -> None:
    """A play() plays exactly one hand: returning without init_game, a second init_game, or returning before the
    hand's stand() are illegal."""
    g = Game(cards=PAD)
    g.begin_play()
    assert "without playing a hand" in illegal(g, g.end_play)
    g = hand(list(PAD))
    g.stand()
    assert "a second hand in one call of play()" in illegal(g, lambda: g.init_game(1))
    g = hand(list(PAD))
    assert "unfinished (it still needed stand())" in illegal(g, g.end_play)
    g = hand([8, 8, 10, 7])
    g.split()
    assert "stand_1() and stand_2()" in illegal(g, g.end_play)


@pytest.mark.parametrize(("cards", "calls", "why"), [
    ([10, 7, 1, 9], ["hit"], "buy_insurance() must be called first"),
    ([10, 7, 9, 9], ["buy_insurance"], "the dealer does not show an A"),
    ([10, 7, 1, 9], ["buy_insurance", "buy_insurance"], "insurance was already bought"),
    ([1, 13, 1, 12], ["buy_insurance", "hit"], "stand() must end the hand"),
    ([9, 10, 8, 7], ["split"], "is not a pair"),
    ([8, 8, 10, 7], ["split", "split"], "a second split"),
    ([2, 3, 10, 7, 2], ["hit", "double_down"], "after a hit"),
    ([2, 3, 10, 7, 2], ["hit", "split"], "after a hit"),
    ([2, 3, 10, 7, 2], ["double_down", "hit"], "stand() must come next"),
    ([10, 7, 10, 8], ["stand", "hit"], "after the hand ended with stand()"),
    ([8, 8, 10, 7], ["split", "hit_2"], "before stand_1()"),
    ([8, 8, 10, 7], ["split", "stand_2"], "before stand_1()"),
    ([8, 8, 10, 7], ["split", "hit"], "hit_1() and stand_1()"),
    ([8, 8, 10, 7], ["split", "stand_1", "hit_1"], "hit_2() and stand_2()"),
    ([10, 7, 10, 8], ["hit_1"], "without split()"),
    ([10, 6, 10, 8, 9], ["hit", "hit"], "is bust"),
])
def test_ruling_judge_call_order(cards: list[int], calls: list[str], why: str) -> None:
    """Each call out of the statement's order is illegal, the last of ``calls`` here, saying what was needed."""
    g = hand(cards)
    *before, last = calls
    for name in before:
        getattr(g, name)(0) if name == "buy_insurance" else getattr(g, name)()
    assert why in illegal(g, lambda: getattr(g, last)(0) if last == "buy_insurance" else getattr(g, last)())


def test_judge_call_order_allows_what_the_statement_does() -> None:
    """Legal: a hit on a Black Jack or on 21, a double on any two cards (a Black Jack too), a split of a ten and a
    king (the same points)."""
    g = hand([1, 13, 10, 7, 5, 5])
    assert g.hit() == 5 and g.hit() == 5 and g.stand()
    g = hand([1, 13, 10, 7, 5])
    assert g.double_down() == 5
    g = hand([10, 13, 9, 7, 1, 2])
    assert g.split() == [1, 2]


def test_ruling_judge_dealer_draws() -> None:
    """The dealer draws to 17 even when the player is bust, and stands on a soft 17."""
    g = hand([10, 6, 2, 3, 10, 4, 8])
    g.hit()  # 26: bust
    assert g.stand() == [2, 3, 4, 8]
    g = hand([10, 8, 1, 6])
    assert g.buy_insurance(0) == 0 and g.stand() == [1, 6]  # soft 17 stands
    assert g.money == START_MONEY + 100


def test_ruling_judge_deal_order() -> None:
    """init_game deals the player's two cards, then the up card and the hole card; split deals hand 1's card first;
    test k of seed S plays seed S + k - 1."""
    from twentyone.judge.solutions import test_seeds

    g = hand([2, 3, 4, 5, 6, 7, 10, 10])
    assert g.cards == [2, 3] and g.dealer == [4, 5]
    g = hand([8, 8, 4, 5, 6, 7])
    assert g.split() == [6, 7] and g.split_hands == ([8, 6], [8, 7])
    assert test_seeds(40, 5) == [40, 41, 42, 43, 44]


def test_ruling_judge_decided_after_a_hand() -> None:
    """The test is decided when a hand is settled: above 1.3x10^6 won, at 0 lost; bet_you_have() in a hand is the
    money not on the table."""
    g = hand([10, 9, 10, 7], TARGET - START_MONEY)
    assert g.bet_you_have() == 2 * START_MONEY - TARGET
    g.stand()
    assert g.money == TARGET and g.ending is None  # exactly 1.3x10^6 is not above it
    g.end_play()
    g.begin_play()
    g.init_game(1)
    g.stand()
    assert g.ending is Ending.WON and g.money == TARGET + 1
    g = hand([10, 7, 10, 9], START_MONEY)
    g.stand()
    assert g.ending is Ending.BROKE


def test_ruling_judge_helpers_any_numbers() -> None:
    """The helpers take any numbers: 0 counts 0, 14 counts 10; no illegal call."""
    assert hands.cal_point([0, 14]) == [10] and hands.cal_max_point([14, 1]) == 21 and hands.is_blackjack([14, 1])
    assert hands.win([0], [0]) == 0


def test_ruling_judge_standard_streams() -> None:
    """A Python solution's print() or input() is the illegal call it is (a C++ solution's: tests/test_judge_box.py)."""
    import textwrap

    from twentyone.judge.solutions import Solution

    for body, why in (("print('hi')", "wrote to standard output"), ("input()", "read from standard input")):
        source = textwrap.dedent(f"""
            from twentyone.judge.blackjack import *
            def play():
                init_game(1)
                {body}
                stand()
            """).encode()
        sol = Solution("s", "s.py", "py")
        sol._source = source
        r = sol.test(0, Game(cards=PAD))
        assert r.ending is Ending.ILLEGAL and r.illegal is not None and r.illegal.why == why
