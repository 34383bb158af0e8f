"""Strategies: the Strategy defaults, the built-in Basic (the derived chart of its rules) against RULES.md's
reference chart, and the adapters between a ``Strategy`` and a course function set (``FunctionSetStrategy``,
``as_function_set``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from twentyone.players.builtin.course import BUILTINS, Basic, HiLo, Stand
from tests.scripted import one_round
from twentyone.match import Seating, play_match
from twentyone.records import Banker, Player, SeatView
from twentyone.roundlog import RoundLog
from twentyone.rules import PRESETS
from twentyone.strategy import CourseFunctions, FunctionSetStrategy, Strategy, as_function_set

# (decks, cards, dealer up card, expected first decision) from RULES.md's "Reference values" chart.
CHART = [
    (6, "T6", "T", "u"),   # hard 16 surrenders against T
    (6, "T6", "9", "u"),
    (6, "T6", "A", "u"),
    (6, "T6", "7", "h"),
    (6, "T6", "6", "s"),
    (6, "T5", "T", "u"),   # hard 15 surrenders against T only
    (6, "T5", "A", "h"),
    (6, "88", "K", "u"),   # pair 88 plays as hard 16
    (6, "65", "A", "h"),   # hard 11 hits against A with 6 decks
    (6, "65", "6", "d"),
    (6, "64", "9", "d"),   # hard 10 doubles through 9
    (6, "64", "T", "h"),
    (6, "54", "2", "h"),   # hard 9 hits against 2 with 6 decks
    (6, "54", "3", "d"),
    (6, "T2", "3", "h"),   # hard 12 stands on 4 to 6 only
    (6, "T2", "4", "s"),
    (6, "T7", "A", "s"),
    (6, "A7", "2", "s"),   # A7: stand on 2, double 3-6, stand 7-8, hit 9-A
    (6, "A7", "3", "d"),
    (6, "A7", "8", "s"),
    (6, "A7", "9", "h"),
    (6, "A6", "2", "h"),
    (6, "A6", "3", "d"),
    (6, "A2", "5", "d"),
    (6, "AA", "6", "d"),
    (6, "55", "9", "d"),
    (6, "A8", "6", "s"),
    (1, "54", "2", "d"),   # 1 deck: hard 9 doubles against 2
    (1, "65", "A", "d"),   # 1 deck: hard 11 doubles against A
    (1, "T6", "9", "h"),   # 1 deck: hard 16 surrenders only against T
    (1, "T6", "T", "u"),
    (1, "A8", "6", "d"),   # 1 deck: A8 doubles against 6
    (1, "A7", "A", "s"),   # 1 deck: A7 stands against A
    (8, "T6", "T", "u"),
]


@pytest.mark.parametrize(("decks", "cards", "up", "want"), CHART, ids=[f"{d}d-{c}-vs-{u}" for d, c, u, _ in CHART])
def test_basic_first_decision_matches_reference(decks: int, cards: str, up: str, want: str) -> None:
    """Basic's two-card decision is RULES.md's reference best first decision for that cell."""
    b = Basic()
    b.new_match(decks, 1, 1)
    assert b.decide(cards, up, True, True) == want


# (decks, cards, up, expected) for hands of three cards or more (RULES.md's reference "after hitting" rows).
AFTER_HIT = [
    (6, "T42", "T", "s"),  # a three-card 16 stands against T with 6 decks (8 decks: see DIFFERENCES)
    (6, "T42", "7", "h"),
    (6, "T2A", "4", "s"),  # three-card hard 13 vs 4: S
    (6, "T2A", "2", "s"),  # (1 deck: see DIFFERENCES)
    (6, "822", "3", "h"),  # three-card 12 vs 3: H
    (1, "822", "3", "s"),  # 1 deck: a three-card 12 stands against 3
    (6, "T8A", "A", "s"),
]


@pytest.mark.parametrize(("decks", "cards", "up", "want"), AFTER_HIT,
                         ids=[f"{d}d-{c}-vs-{u}" for d, c, u, _ in AFTER_HIT])
def test_basic_after_hitting_matches_reference(decks: int, cards: str, up: str, want: str) -> None:
    """Basic's decision for a hand of three cards or more follows RULES.md's reference after-hitting rows."""
    b = Basic()
    b.new_match(decks, 1, 1)
    assert b.decide(cards, up, False, False) == want


# Where basic differs from RULES.md's reference chart, at 1 and 8 decks.  The reference gives the best first
# decision of one representative hand a row (REFERENCE's hand; twentyone.analysis.exact.REPRESENTATIVE); basic
# is total-dependent: one decision for every hand of the row, the best on average over the hands that reach
# it.  Here the row's hands disagree and the average goes the other way: (decks, the reference's hand, up
# card, its best decision, basic's decision, a hand of the same row whose best decision is basic's).
DIFFERENCES = [
    (1, "62", "5", "h", "d", "53"),    # hard 8: 6-2 hits, 5-3 doubles (4-4 is the pair row: doubles too)
    (1, "62", "6", "h", "d", "53"),
    (1, "96", "T", "u", "h", "87"),    # hard 15: 9-6 (and T-5) surrender, 8-7 hits
    (1, "97", "A", "h", "u", "T6"),    # hard 16: 9-7 hits, T-6 surrenders (README, "Exact analysis")
    (1, "2TA", "2", "h", "s", "346"),  # three-card 13: 2-T-A hits by 0.00006, every other one stands
    (8, "24T", "T", "h", "s", "358"),  # three-card 16: 2-4-T hits by 0.00005, most others stand
]
_NAMES = {"h": "hit", "s": "stand", "d": "double", "u": "surrender"}


@pytest.mark.parametrize(("decks", "ref_hand", "up", "ref", "basic", "other"), DIFFERENCES,
                         ids=[f"{d}d-{h}-vs-{u}" for d, h, u, *_ in DIFFERENCES])
def test_basic_differs_from_reference_where_the_rows_hands_disagree(decks: int, ref_hand: str, up: str, ref: str,
                                                                     basic: str, other: str) -> None:
    """Basic plays its row's average decision; the reference's hand is best played otherwise, another hand of the
    same row is best played as basic plays it (exact decision EVs)."""
    from twentyone.analysis import AnalysisRules, decision_evs
    from twentyone.rules import COURSE

    b = Basic()
    b.new_match(decks, 1, 1)
    two = len(ref_hand) == 2
    assert b.decide(ref_hand, up, two, two) == b.decide(other, up, two, two) == basic
    rules = AnalysisRules.of(COURSE, decks=decks)
    assert decision_evs(ref_hand, up, rules).best == _NAMES[ref]
    assert decision_evs(other, up, rules).best == _NAMES[basic]


#: Every preset at its own decks (the judge's 5000 included), and the course at the other deck counts.
DERIVED = [(name, PRESETS[name].decks) for name in sorted(PRESETS)] + [("course", d) for d in (1, 2, 4, 8)]


@pytest.mark.parametrize(("rules", "decks"), DERIVED, ids=[f"{r}-{d}" for r, d in DERIVED])
def test_basic_plays_the_derived_chart(rules: str, decks: int) -> None:
    """Basic's quick lookup plays every hand of two to four cards as its derived chart's ``Chart.decide`` does,
    for every combination of double, surrender and split allowed; more than 8 decks play the 8-deck chart."""
    from dataclasses import replace

    from twentyone.analysis import derived_basic_chart

    b = Basic()
    b._use(PRESETS[rules], decks)
    chart = derived_basic_chart(replace(PRESETS[rules], decks=min(decks, 8)), min(decks, 8))
    assert b.chart is chart
    allowed = list(itertools.product((True, False), repeat=3))
    for n in (2, 3, 4):
        for cards in itertools.combinations_with_replacement("A23456789TK", n):
            hand = "".join(cards)
            for up in "A23456789TQ":
                for cd, cs, sp in allowed if n == 2 else [(False, False, False)]:
                    assert b.decide(hand, up, cd, cs, sp) == chart.decide(
                        hand, up, can_double=cd, can_surrender=cs, can_split=sp), (hand, up, cd, cs, sp)


def test_basic_follows_the_rules_it_is_seated_under() -> None:
    """Hard 11 against an A: the 6-deck course chart hits, the chart of a dealer hitting soft 17 doubles; basic
    learns the rules from its view, at the table, and goes back when seated under other rules."""
    b = Basic()
    course = one_round("65" + "A9" + "5" * 20, [b])
    h17 = one_round("65" + "A9" + "5" * 20, [b], rules=PRESETS["course-h17"])
    again = one_round("65" + "A9" + "5" * 20, [b])
    assert course.seat(1)["actions"][0] == "h" and again.seat(1)["actions"][0] == "h"
    assert h17.seat(1)["doubled"]


def test_basic_falls_back_when_it_cannot_double_or_surrender() -> None:
    """D becomes h (or s for soft 18) and U becomes h when the move is not allowed."""
    b = Basic()
    assert b.decide("65", "6", False, True) == "h"
    assert b.decide("A7", "3", False, True) == "s"
    assert b.decide("T6", "T", True, False) == "h"
    assert b.decide("TK", "5", True, True) == "s"


def test_basic_plays_through_the_table() -> None:
    """Seated at a table, Basic surrenders hard 16 against a T and gets back half its bet."""
    sc = one_round("T6" + "T7" + "9" * 20, [Basic()])
    assert sc.seat(1)["actions"] == "u"
    assert sc.delta(1) == -5


def test_strategy_defaults_and_stand() -> None:
    """The base Strategy and Stand bet 10 and always stand."""
    for s in (Strategy(), Stand()):
        sc = one_round("T7T8" + "9" * 20, [s])
        assert sc.seat(1)["bet"] == 10
        assert sc.seat(1)["actions"] == "s"
        assert sc.delta(1) == -10
    assert set(BUILTINS) == {"stand", "basic", "hilo", "champion"}
    assert BUILTINS["hilo"] is HiLo


class Probe(Strategy):
    """Answers from a script and records what each call saw through its view."""

    def __init__(self, actions: str) -> None:
        self.actions = list(actions)
        self.seen: list[tuple[Any, ...]] = []

    def bet(self, view: SeatView) -> int:
        self.seen.append(("bet", view.decks))
        return 15

    def first_action(self, view: SeatView) -> str:
        self.seen.append(("first", view.my_cards, view.up_card, view.total, view.soft, view.can_surrender))
        return self.actions.pop(0)

    def continue_action(self, view: SeatView) -> str:
        self.seen.append(("continue", view.my_cards, view.up_card, view.total, view.account, view.bet))
        return self.actions.pop(0)

    def show(self, view: SeatView) -> None:
        self.seen.append(("show", view.dealer_cards, view.round_cards(), view.pos))


@pytest.mark.parametrize("k", [1, 2, 4])
def test_as_function_set_round_trip(k: int) -> None:
    """A Strategy turned into function set K and seated back through FunctionSetStrategy plays and sees the same."""
    cards = "A5T8" + "T7" + "5" + "9" * 20  # seat 1 A5 hits 5 (21); seat 2 stands; dealer 17
    direct = Probe("hs")
    a = one_round(cards, [direct, Stand()])
    wrapped = Probe("hs")
    fs = as_function_set(wrapped, k)
    assert isinstance(fs, CourseFunctions)
    b = one_round(cards, [FunctionSetStrategy(fs, k), Stand()])
    assert a.record == b.record
    # The course's show hands the players over in set K's order, so compare the round's cards as a multiset.
    def canon(seen: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        return [(s[0], s[1], sorted(s[2]), s[3]) if s[0] == "show" else s for s in seen]
    assert canon(wrapped.seen) == canon(direct.seen)
    assert direct.seen[1] == ("first", "A5", "T", 16, True, True)


@pytest.mark.parametrize("k", [1, 3])
def test_basic_round_trip_whole_match(k: int) -> None:
    """A whole match of Basic through as_function_set(K) gives the same log as Basic itself."""
    logs = []
    for wrap in (False, True):
        log = RoundLog(keep=True)
        first: Strategy = FunctionSetStrategy(as_function_set(Basic(), k), k) if wrap else Basic()
        play_match([Seating("a", "basic", first), Seating("b", "basic", Basic())], 2, 5, log=log)
        logs.append(log.lines())
    assert logs[0] == logs[1]


def test_as_function_set_takes_course_arguments() -> None:
    """The course callables take C-style arguments: bet(N), first_action(tmpcards, len), continue_action, show."""
    fs = as_function_set(Basic(), 2)
    fs.reset(object())
    assert fs.bet(6) == 10
    assert fs.first_action("9X--T6", 6) == "u"      # set 2's cards are tmpcards[4], [5]
    assert fs.first_action("5XA7T2", 6) == "s"       # hard 12 stands against 5
    me = Player("p", 990, "T24", 3, "h", 10, 16, 1)
    assert fs.continue_action([me, me]) == "s"      # three-card 16 against 5 stands
    fs.show(Banker("5T7", 3, "l", 22), [Player(), me], 3, 6, 12)
    fs.close()


@pytest.mark.parametrize("k", [0, 6, -1])
def test_function_set_out_of_range(k: int) -> None:
    """FunctionSetStrategy refuses a function set outside 1 .. 5."""
    with pytest.raises(ValueError):
        FunctionSetStrategy(as_function_set(Stand(), 1), k)
