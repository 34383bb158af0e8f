"""Legality in one place: the problem functions, the table's verify_x / can_x / x trio, and the views."""

from __future__ import annotations

from dataclasses import replace

import pytest

from twentyone.core import StackedGenerator
from twentyone.errors import IllegalActionError
from twentyone.legality import Foul, double_amount, double_problem, insurance_problem, surrender_problem
from twentyone.records import SeatView
from twentyone.rules import COURSE
from twentyone.strategy import CourseSeatView, Strategy
from twentyone.table import Table, TableSeatView

NO_SURRENDER = replace(COURSE, name="nosurrender", surrender=False)


def test_insurance_only_against_an_ace_first_and_affordable() -> None:
    """Insurance needs an A up, no earlier action, and bet // 2 left in the account."""
    assert insurance_problem(COURSE, "A", "", 5, 10) is None
    assert insurance_problem(COURSE, "T", "", 500, 10) is Foul.ILLEGAL_INSURANCE
    assert insurance_problem(COURSE, "A", "h", 500, 10) is Foul.ILLEGAL_INSURANCE
    assert insurance_problem(COURSE, "A", "", 4, 10) is Foul.UNAFFORDABLE_INSURANCE


def test_double_on_two_cards_before_any_other_action() -> None:
    """A double needs exactly two cards and no action but insurance before it; money never forbids it."""
    assert double_problem(COURSE, 2, "", 10, 10) is None
    assert double_problem(COURSE, 2, "i", 10, 10) is None
    assert double_problem(COURSE, 3, "h", 500, 10) is Foul.ILLEGAL_ACTION
    assert double_problem(COURSE, 2, "", 9, 10) is None
    assert (double_amount(500, 10), double_amount(9, 10), double_amount(0, 10)) == (10, 9, 0)


def test_surrender_on_two_cards_when_the_rules_allow_it() -> None:
    """Surrender needs two cards and no action but insurance, and rules that allow it."""
    assert surrender_problem(COURSE, 2, "") is None and surrender_problem(COURSE, 2, "i") is None
    assert surrender_problem(COURSE, 3, "h") is Foul.ILLEGAL_ACTION
    assert surrender_problem(NO_SURRENDER, 2, "") is Foul.ILLEGAL_ACTION


def _table(rules: object = COURSE) -> Table:
    t = Table([("a", "a", Strategy())], 1, StackedGenerator(["T6" "9A" + "5" * 50]), rules)  # type: ignore[arg-type]
    t.shuffle_cards()
    active = t.round_init()
    for s in active:
        t.place_bet(s)
    t.first_deal(active)
    return t


def test_table_trio_agrees_for_double() -> None:
    """verify_double raises exactly when can_double is False, and dbl then fouls instead of acting."""
    t = _table()
    s = t.seats[0]
    s.account = 5
    assert t.can_double(s)  # for less
    t.verify_double(s)
    s.state = "h"
    assert not t.can_double(s)
    with pytest.raises(IllegalActionError, match="'d'"):
        t.verify_double(s)
    t.dbl(s)
    assert s.foul is Foul.ILLEGAL_ACTION and not s.doubled


def test_table_trio_agrees_for_surrender_and_insurance() -> None:
    """Surrender under rules without it, and insurance against a non-A, raise, answer False and foul."""
    t = _table(NO_SURRENDER)
    s = t.seats[0]
    assert not t.can_surrender(s) and not t.can_insure(s)
    with pytest.raises(IllegalActionError):
        t.verify_surrender(s)
    with pytest.raises(IllegalActionError):
        t.verify_insurance(s)
    t.insurance(s)
    assert s.foul is Foul.ILLEGAL_INSURANCE and s.insurance == 0


def test_views_answer_as_the_table_decides() -> None:
    """The table's view and the course adapter's view are SeatViews that ask the same legality."""
    t = _table()
    s = t.seats[0]
    view = s.view
    assert isinstance(view, TableSeatView) and isinstance(view, SeatView)
    assert (view.can_double, view.can_surrender, view.can_insure) == (t.can_double(s), t.can_surrender(s),
                                                                       t.can_insure(s))
    course = CourseSeatView(1, 1, 1, "A", "T6", 4, 10, "")
    assert isinstance(course, SeatView)
    assert (course.can_double, course.can_surrender, course.can_insure) == (True, True, False)
