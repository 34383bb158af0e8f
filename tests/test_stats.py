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
