"""Win rates, the Wilson interval and the grading decision rule."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from twentyone.grading.stats import decide, wilson, z_for


def test_z_for_95_percent() -> None:
    """The 95% two-sided quantile is 1.95996."""
    assert math.isclose(z_for(0.95), 1.959964, abs_tol=1e-6)


def test_wilson_known_value() -> None:
    """90 wins in 100 give the textbook Wilson interval 82.6%-94.5%."""
    rate, low, high = wilson(90, 100)
    assert rate == 0.9
    assert math.isclose(low, 0.8256, abs_tol=1e-4) and math.isclose(high, 0.9448, abs_tol=1e-4)


def test_wilson_no_matches_is_the_whole_range() -> None:
    """With no matches the interval is 0..1."""
    assert wilson(0, 0) == (0.0, 0.0, 1.0)


@given(st.integers(1, 5000), st.data())
def test_wilson_holds_the_rate_and_stays_in_range(n: int, data: st.DataObject) -> None:
    """The interval lies in [0, 1] and holds the observed rate."""
    wins = data.draw(st.integers(0, 2 * n)) / 2
    rate, low, high = wilson(wins, n)
    assert 0 <= low <= rate <= high <= 1


def test_decide_passes_when_the_interval_is_above() -> None:
    """190 of 200 against a 90% threshold: the interval lies above it, so pass."""
    v = decide(190, 200, 0.9, 200, 1000)
    assert v.status == "pass" and v.low > 0.9


def test_decide_fails_when_the_interval_is_below() -> None:
    """100 of 200 against 60%: fail."""
    assert decide(100, 200, 0.6, 200, 1000).status == "fail"


def test_decide_waits_for_min_matches() -> None:
    """Before min_matches nothing is decided, however clear."""
    assert decide(100, 100, 0.6, 200, 1000).status == "open"


def test_decide_is_borderline_at_the_maximum() -> None:
    """At the maximum an interval that still holds the threshold is borderline."""
    v = decide(894, 1000, 0.9, 200, 1000)
    assert v.status == "borderline" and v.low < 0.9 < v.high
    assert decide(715, 800, 0.9, 200, 1000).status == "open"


@given(st.lists(st.sampled_from(["win", "tie", "loss"]), min_size=1, max_size=400), st.data())
def test_a_memo_judges_growing_results_as_judging_from_match_0(played: list[str], data: st.DataObject) -> None:
    """The grader judges a criterion after every task with a memo (``rubric.SequentialMemo``) that goes on where the
    last look stopped: every judgement is the one made from match 0, as results arrive out of order and in steps of
    any size, with faulted matches, and when a result already used is replaced (a replay's), it starts again."""
    from dataclasses import replace

    from twentyone.grading.config import GradingConfig
    from twentyone.grading.rubric import Result, SequentialMemo, judge_batches

    crit = data.draw(st.sampled_from([GradingConfig().beat_stand, GradingConfig().beat_basic]))
    crit = replace(crit, max_matches=data.draw(st.sampled_from([40, 200, 1000])))
    order = data.draw(st.permutations(range(len(played))))
    faulted = {i for i in range(len(played)) if played[i] == "loss" and data.draw(st.booleans())}
    faulted |= set(range(min(len(played), data.draw(st.integers(0, 12)))))  # a run of faults opening it
    memo = SequentialMemo()
    results: dict[int, Result] = {}
    seen: set[int] = set()
    k = 0
    while k < len(order):
        step = data.draw(st.integers(1, 30))
        for i in order[k:k + step]:
            results[i] = Result("loss") if i in faulted else Result(played[i])
            seen.add(i)
        k += step
        if results and data.draw(st.integers(0, 9)) == 0:  # a replayed match's result replaces the first
            i = data.draw(st.sampled_from(sorted(results)))
            results[i] = data.draw(st.sampled_from(list(Result)))
            faulted.discard(i)  # (a time-out cleared by its replay: a loss may stay a loss, unfaulted)
            if data.draw(st.booleans()):
                faulted.add(i)
        shown = {i for i in faulted if i in results and results[i] == Result.LOSS}
        fresh = judge_batches(results, crit, "half", shown)
        kept = judge_batches(results, crit, "half", shown, memo)
        assert (kept.verdict, kept.running, kept.needed, kept.by_faults, kept.step) == (
            fresh.verdict, fresh.running, fresh.needed, fresh.by_faults, fresh.step)


def test_a_memo_sees_a_loss_become_a_fault() -> None:
    """Match 1 of ``beat_stand`` replayed, a loss both times, but a fault the second time: the first two matches are
    then a run of faults, which fails the criterion (**grade_faults**), with a memo as without one."""
    from twentyone.grading.config import GradingConfig
    from twentyone.grading.rubric import Result, SequentialMemo, judge_batches

    crit = GradingConfig().beat_stand
    memo = SequentialMemo()
    results = dict.fromkeys(range(6), Result.LOSS)
    assert not judge_batches(results, crit, "half", {0}, memo).decided
    again = judge_batches(results, crit, "half", {0, 1}, memo)
    assert again.by_faults == 2 and again.verdict is not None and again.verdict.status == "fail"
