"""Rules as data: the presets, the one ``KEY=VALUE`` grammar, and the check that refuses impossible rules."""

from __future__ import annotations

from dataclasses import fields, replace
from fractions import Fraction

import pytest

from twentyone.analysis.options import AnalysisRules
from twentyone.errors import RulesError
from twentyone.rules import COURSE, OPTIONS, PRESETS, Rules, format_value, get_rules, parse_assignment

#: The names the exact analyser reads from a ``Rules`` with getattr (twentyone/analysis/options.py).
ANALYSER_NAMES = ("decks", "dealer_hits_soft_17", "dealer_peeks", "blackjack_pays", "surrender", "double_on", "split",
                  "split_hands", "split_aces_one_card", "resplit_aces", "double_after_split", "insurance",
                  "insurance_pays")


def test_every_preset_the_issue_names_exists() -> None:
    """course, french, unix-bj, lianzhong, montecarlo, judge and s17-3to2-6d are presets; course is the default."""
    for name in ("course", "french", "unix-bj", "lianzhong", "montecarlo", "judge", "s17-3to2-6d"):
        assert PRESETS[name].name == name
    assert Rules() == COURSE == PRESETS["course"]


def test_course_preset_keeps_its_values() -> None:
    """The course preset is the course game: 1000, 10, quarter reshuffle, 5 shoes, 50 rounds a seat, 2:1, no split."""
    c = COURSE
    assert (c.decks, c.start_money, c.min_bet, c.max_bet, c.max_shoes, c.rounds_per_seat) == (6, 1000, 10, None, 5, 50)
    assert (c.reshuffle_threshold(6), c.blackjack_pays, c.insurance_pays) == (78, Fraction(2), Fraction(2))
    assert (c.dealer_hits_soft_17, c.hole_card, c.dealer_peeks, c.surrender, c.double_on, c.split, c.changer) == (
        False, True, True, True, "any", False, False)


def test_analyser_reads_every_name_it_relies_on() -> None:
    """Each option the analyser reads by name is a Rules field, and AnalysisRules.of takes the preset's values."""
    names = {f.name for f in fields(Rules)}
    assert set(ANALYSER_NAMES) <= names
    a = AnalysisRules.of(PRESETS["s17-3to2-6d"])
    assert (a.split, a.split_hands, a.blackjack_pays, a.surrender) == (True, 4, Fraction(3, 2), False)


@pytest.mark.parametrize("text, key, value", [
    ("split=true", "split", True), ("split-hands = 3", "split_hands", 3), ("blackjack_pays=3:2", "blackjack_pays",
    Fraction(3, 2)), ("blackjack_pays=6/5", "blackjack_pays", Fraction(6, 5)), ("max_bet=none", "max_bet", None),
    ("double_on=10-11", "double_on", "10-11"), ("reshuffle_at=half", "reshuffle_at", "half"),
    ("dealer_peeks=no", "dealer_peeks", False),
])
def test_parse_assignment_reads_each_kind(text: str, key: str, value: object) -> None:
    """Booleans, whole numbers, none, payouts and choices are read by one grammar, and written back the same."""
    assert parse_assignment(text) == (key, value)
    assert parse_assignment(f"{key}={format_value(value)}") == (key, value)


@pytest.mark.parametrize("text, message", [
    ("split", "KEY=VALUE"), ("colour=red", "unknown rule: 'colour'"), ("split=maybe", "bad value for split"),
    ("decks=0", "bad value for decks"), ("blackjack_pays=x", "bad value for blackjack_pays"),
    ("double_on=12", "bad value for double_on"),
])
def test_parse_assignment_names_what_is_wrong(text: str, message: str) -> None:
    """A bad override is one RulesError naming the key or value."""
    with pytest.raises(RulesError, match=message):
        parse_assignment(text)


@pytest.mark.parametrize("overrides, conflict", [
    (["hole_card=false"], "dealer_peeks=true needs hole_card=true"),
    (["max_bet=5"], "max_bet=5 is below min_bet=10"),
    (["min_bet=2000"], "start_money=1000 is below min_bet=2000"),
    (["split=true", "split_hands=2", "resplit_aces=true"], "resplit_aces=true needs split_hands=3"),
    (["reshuffle_at=round"], "reshuffle_at=round needs max_shoes=none"),
    (["decks=9"], "decks=9 is outside"),
])
def test_impossible_combination_is_refused_in_one_line(overrides: list[str], conflict: str) -> None:
    """An impossible combination raises one RulesError line naming the conflict."""
    with pytest.raises(RulesError, match=conflict) as e:
        COURSE.with_assignments(overrides)
    assert "\n" not in str(e.value)


def test_overrides_are_checked_together() -> None:
    """Only the final combination must be possible: hole_card=false then dealer_peeks=false is fine."""
    r = COURSE.with_assignments(["hole_card=false", "dealer_peeks=false"])
    assert (r.hole_card, r.dealer_peeks) == (False, False)


def test_rules_name_round_trips_through_get_rules() -> None:
    """A rule set's name is its preset plus overrides, and get_rules reads it back to equal rules."""
    r = get_rules("s17-3to2-6d").with_assignments(["double_after_split=false", "split-hands=2"])
    assert r.name == "s17-3to2-6d,double_after_split=false,split_hands=2"
    assert get_rules(r.name) == r
    assert get_rules("course") is COURSE


def test_unknown_preset_lists_the_known_ones() -> None:
    """get_rules of an unknown name lists every preset."""
    with pytest.raises(RulesError, match="known: course, course-h17"):
        get_rules("casino")


def test_analyser_uses_the_same_grammar() -> None:
    """AnalysisRules.with_assignments reads the engine's grammar and refuses options that do not change it."""
    a = AnalysisRules.of(COURSE).with_assignments(["blackjack_pays=3:2", "double-on=none"])
    assert (a.blackjack_pays, a.double_on) == (Fraction(3, 2), "none")
    with pytest.raises(RulesError, match="unknown rule"):
        AnalysisRules.of(COURSE).with_assignments(["colour=red"])
    with pytest.raises(RulesError, match="does not change the exact analysis"):
        AnalysisRules.of(COURSE).with_assignments(["min_bet=5"])


def test_every_option_has_a_description() -> None:
    """Every Rules field but the name is an option with a kind and a description."""
    assert [f.name for f in fields(Rules) if f.name != "name"] == list(OPTIONS)
    assert all(text for _, _, text in OPTIONS.values())
    assert replace(COURSE, split=True).split
