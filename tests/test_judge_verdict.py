"""A judge run's verdict over its tests, and the strong solution's kept bet table at the target's edge."""

from __future__ import annotations

import pytest

from twentyone.judge.bets import STEPS, UNIT, load, table_bet
from twentyone.judge.game import TARGET, Ending, TestResult
from twentyone.judge.verdict import Judgement, Verdict


def _result(seed: int, won: bool) -> TestResult:
    return TestResult(seed, Ending.WON if won else Ending.BROKE, TARGET + 1 if won else 0, 100, 1000)


def test_an_unfinished_run_with_every_test_won_so_far_is_not_accepted() -> None:
    """Accepted needs every test won: a run that stopped after 2 of 3 tests, both won, is Not_judged and says how
    far it went; one that lost a test is Wrong_answer whether or not it finished; all 3 won is Accepted."""
    seeds = [11, 12, 13]
    part = Judgement("li", "li.cpp", "cpp", seeds, [_result(11, True), _result(12, True)])
    assert part.verdict is Verdict.NOT_JUDGED and part.reason() == (
        "the run stopped after 2 of 3 tests, all won so far: --resume plays the rest")
    assert part.lines(each=False)[0] == f"Not_judged: {part.reason()}"
    lost = Judgement("li", "li.cpp", "cpp", seeds, [_result(11, True), _result(12, False)])
    assert lost.verdict is Verdict.WRONG_ANSWER and lost.reason().startswith("test 2 (seed 12): lost")
    done = Judgement("li", "li.cpp", "cpp", seeds, [_result(s, True) for s in seeds])
    assert done.verdict is Verdict.ACCEPTED and done.reason() == "" and done.lines(each=False)[0] == "Accepted"


@pytest.mark.parametrize("money", [1_299_000, 1_299_001, 1_299_500, 1_299_999, TARGET])
def test_at_the_targets_step_the_bet_is_exactly_what_a_win_needs(money: int) -> None:
    """From the step where the table's bet would pass the target (1,299,000: the table bets 2 steps), the bet is
    what a win needs to end the test, TARGET + 1 - money, never more; a step below, the table's own bet."""
    assert load()["bets"][money // UNIT] * UNIT > TARGET - money  # the table bets past the target here
    assert table_bet(money) == TARGET + 1 - money
    below = 1_298_999  # the step below: the table's bet (1 step) stops short of the target's step
    assert below // UNIT + load()["bets"][below // UNIT] == STEPS - 1 and table_bet(below) == 1000
