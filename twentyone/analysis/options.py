"""The rule options the exact analyser reads, taken from any ``twentyone.rules.Rules`` by name.

``Rules`` grows fields over time; each option here is read with ``getattr(rules, name, default)``, so
a field the rule set does not have yet takes the course's value (the course has no split).  The
options, with their defaults:

========================  =======  ==========================================================
``decks``                 6        52-card decks in a fresh shoe
``dealer_hits_soft_17``   False    the dealer hits soft 17
``dealer_peeks``          True     the dealer checks for Black Jack; False: no hole card (the
                                   player loses double and split stakes to a dealer Black Jack)
``blackjack_pays``        2        Black Jack pays 2:1 (3/2, 6/5 and 1 are usual elsewhere)
``surrender``             True     late surrender of the first two cards
``double_on``             "any"    "any" two cards, "9-11" or "10-11" (hard totals), or "none"
``split``                 False    pairs may be split
``split_hands``           4        most hands after splitting (2 = one split, no resplit)
``split_aces_one_card``   True     a split ace takes one card and stands
``resplit_aces``          False    an ace drawn to a split ace may be split again
``double_after_split``    True     the two-card hands of a split may double
``insurance``             True     insurance is offered against an ace
========================  =======  ==========================================================

A surrender under a dealer who does not peek keeps half the bet only when he has no Black Jack.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any, Final

from twentyone.errors import RulesError
from twentyone.rules import DOUBLE_ON, describe_game, parse_assignment

__all__ = ["AnalysisRules", "OPTION_NAMES", "DOUBLE_ON", "MAX_OPTION_DECKS"]


@dataclass(frozen=True)
class AnalysisRules:
    """Every option the analyser plays by; ``name`` is the rule set's name, for reports only."""

    name: str = "course"
    decks: int = 6
    dealer_hits_soft_17: bool = False
    dealer_peeks: bool = True
    blackjack_pays: Fraction = Fraction(2)
    surrender: bool = True
    double_on: str = "any"
    split: bool = False
    split_hands: int = 4
    split_aces_one_card: bool = True
    resplit_aces: bool = False
    double_after_split: bool = True
    insurance: bool = True
    insurance_pays: Fraction = Fraction(2)
    #: Not options of the analysis (a hole card without a peek is played as none; the Changer is not
    #: analysed): kept so that the rule set is described as the engine describes it (``describe``).
    hole_card: bool = True
    changer: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(f.name, getattr(self, f.name))

    @classmethod
    def of(cls, rules: object, **overrides: Any) -> AnalysisRules:
        """The options of ``rules`` (a ``Rules``, or an ``AnalysisRules``), then ``overrides``."""
        if isinstance(rules, AnalysisRules):
            return replace(rules, **overrides) if overrides else rules
        values: dict[str, Any] = {}
        for f in fields(cls):
            v: Any = getattr(rules, f.name, f.default)
            if f.name in ("blackjack_pays", "insurance_pays"):
                v = Fraction(v)
            values[f.name] = v
        return cls(**{**values, **overrides})  # an override (decks=8) may replace a value out of range

    def with_assignments(self, assignments: Iterable[str]) -> AnalysisRules:
        """These options with ``key=value`` overrides applied in order (``--rule`` on the command line).

        The grammar is the engine's (``twentyone.rules.parse_assignment``); a rule option that does not
        change the analysis (money, bets, match length) is refused by name.
        """
        changes: dict[str, Any] = {}
        for text in assignments:
            key, value = parse_assignment(text)
            if key not in OPTION_NAMES:
                raise RulesError(f"rule {key!r} does not change the exact analysis (its options: "
                                 f"{', '.join(OPTION_NAMES)})")
            changes[key] = value
        return replace(self, **changes)

    def describe(self, decks: int = 0) -> str:
        """One line, the engine's own description of the game (``twentyone.rules.describe_game``), e.g.
        ``6 decks, S17, peek, Black Jack 2:1, surrender, double any two, no split``; ``decks`` names another
        full shoe (one of more decks than the options take), -1 none (a shoe of given cards)."""
        return describe_game(self, decks)


#: Option names a ``--rule KEY=VALUE`` may set.
OPTION_NAMES: Final = tuple(f.name for f in fields(AnalysisRules) if f.name not in ("name", "hole_card", "changer"))

_BOOLS: Final = frozenset({"dealer_hits_soft_17", "dealer_peeks", "surrender", "split", "split_aces_one_card",
                           "resplit_aces", "double_after_split", "insurance", "hole_card", "changer"})
#: Most decks the options take (a full shoe of more is analysed as a composition: ``exact._prepared``).
MAX_OPTION_DECKS: Final = 8
_RANGES: Final = {"decks": (1, MAX_OPTION_DECKS), "split_hands": (2, 8)}


def _check(key: str, value: Any) -> None:
    """Raise RulesError if ``value`` is not valid for option ``key``."""
    if key == "name":
        if not isinstance(value, str):
            raise RulesError(f"bad rules name: {value!r}")
    elif key in _BOOLS:
        if not isinstance(value, bool):
            raise RulesError(f"bad value for {key}: {value!r} (true or false)")
    elif key in _RANGES:
        lo, hi = _RANGES[key]
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise RulesError(f"bad value for {key}: {value!r} (a whole number {lo} .. {hi})")
    elif key == "double_on":
        if value not in DOUBLE_ON:
            raise RulesError(f"bad value for double_on: {value!r} ({', '.join(DOUBLE_ON)})")
    elif not isinstance(value, Fraction) or not 0 <= value <= 100:
        raise RulesError(f"bad value for {key}: {value!r} (a payout from 0 to 100)")
