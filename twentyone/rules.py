"""Rule sets: the ``Rules`` dataclass, its named presets, and the one grammar for ``--rule KEY=VALUE``.

``course`` is the 21点 course game as ``RULES.md`` reads it, and the default everywhere.  The other
presets are the games of the project's other source documents (``french``, ``unix-bj``,
``lianzhong``, ``montecarlo``, ``judge``), a common casino game (``s17-3to2-6d``) and three
one-rule variants of the course (``course-h17``, ``course-3to2``, ``course-nosurrender``).
RULES.md ("Rule variants") says where each preset's values come from.

A rule set is named by text: a preset's name, then ``,KEY=VALUE`` overrides, e.g.
``s17-3to2-6d,double_after_split=false``; ``get_rules`` reads that text and ``Rules.name`` writes
it back, so a rule set travels as a string (a grading job, a round log, a stored tournament).
``parse_assignment`` is the grammar of one override, used by ``Rules.with_assignments`` and by the
exact analyser (``twentyone.analysis.options``).  Every ``Rules`` is checked when it is made: a value
out of range or an impossible combination raises ``RulesError`` with one line naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Final

from twentyone.errors import RulesError
from twentyone.i18n import _, ngettext

__all__ = ["Rules", "PRESETS", "COURSE", "get_rules", "describe_game", "parse_assignment", "format_value", "OPTIONS", "MAX_SEED", "INT_MAX",
           "DOUBLE_ON", "RESHUFFLE_AT"]

#: The largest match seed: seeds are 0 .. 2^64-1.
MAX_SEED = 2**64 - 1

#: Which two-card hands may double: any, or a hard total of 9, 10 or 11, or of 10 or 11, or none.
DOUBLE_ON: Final = ("any", "9-11", "10-11", "none")
#: When the shoe is reshuffled after a round: fewer than a quarter or a half of its cards left,
#: fewer than one deck (52 cards) left, or after every round; or a whole number N: fewer than N cards left
#: (``unix-bj``: 15, as bj(6) shuffled before a hand with fewer than 15 cards left).
RESHUFFLE_AT: Final = ("quarter", "half", "deck", "round")
#: Most cards a ``reshuffle_at=N`` may name.
_MAX_RESHUFFLE_CARDS: Final = 10**6
#: The most money an account holds: the course's records keep it in a C ``int`` (RULES.md, **account_limit**); the
#: money options stay within it.
INT_MAX: Final = 2**31 - 1

#: Every option a ``--rule KEY=VALUE`` may set: name -> (kind, detail, what it means).  Kinds: ``bool``;
#: ``int`` with (lo, hi); ``int?`` the same or ``none`` (no limit); ``payout`` a fraction such as 3/2;
#: ``choice`` one of the detail's words.
OPTIONS: Final[dict[str, tuple[str, Any, str]]] = {
    "decks": ("int", (1, 5000), "52-card decks in a fresh shoe (the table's default; --decks overrides)"),
    "min_decks": ("int", (1, 5000), "fewest decks a table may use"),
    "max_decks": ("int", (1, 5000), "most decks a table may use"),
    "max_seats": ("int", (1, 5), "most player seats"),
    "start_money": ("int", (1, INT_MAX), "every player's money at the start"),
    "min_bet": ("int", (1, INT_MAX), "smallest bet (a smaller one is raised to it)"),
    "max_bet": ("int?", (1, INT_MAX), "largest bet (a larger one is lowered to it), none: no limit"),
    "max_shoes": ("int?", (1, 10**6), "the match ends instead of shuffling one shoe more; none: no limit"),
    "rounds_per_seat": ("int?", (1, 10**6), "the match ends after this many rounds per seat; none: no limit"),
    "target_money": ("int?", (1, INT_MAX - 1), "the match ends when a player's money exceeds this; none: never"),
    "reshuffle_at": ("choice", RESHUFFLE_AT, "penetration: reshuffle after a round with fewer than a quarter, "
                     "a half or one deck of the shoe left, or after every round; or N: fewer than N cards left"),
    "dealer_hits_soft_17": ("bool", None, "the dealer hits a soft 17"),
    "hole_card": ("bool", None, "the dealer takes his second card face down at the deal (false: European, "
                  "after the players)"),
    "dealer_peeks": ("bool", None, "the dealer checks his hole card for a Black Jack before the players act"),
    "blackjack_pays": ("payout", None, "a player's Black Jack pays this much per unit bet (2, 3/2, 6/5, 1)"),
    "insurance": ("bool", None, "insurance (bet // 2) is offered against an ace"),
    "insurance_pays": ("payout", None, "insurance pays this much per unit staked"),
    "surrender": ("bool", None, "late surrender of the first two cards (half the bet back)"),
    "double_on": ("choice", DOUBLE_ON, "which two-card hands may double: any, hard 9-11, hard 10-11, none"),
    "split": ("bool", None, "a pair (two cards of one value) may be split"),
    "split_hands": ("int", (2, 8), "most hands a seat may hold after splitting (2: one split)"),
    "split_aces_one_card": ("bool", None, "a split ace takes one card and stands"),
    "resplit_aces": ("bool", None, "an ace dealt to a split ace may be split again"),
    "double_after_split": ("bool", None, "a split hand's first two cards may double"),
    "changer": ("bool", None, "the French 'Changer': with a pair, replace the second card and double the stake"),
}

_TRUE: Final = frozenset({"1", "true", "yes", "on", "y"})
_FALSE: Final = frozenset({"0", "false", "no", "off", "n"})


@dataclass(frozen=True)
class Rules:
    """Every number and switch the engine plays by (see ``OPTIONS`` and RULES.md, "Rule variants")."""

    name: str = "course"
    decks: int = 6
    min_decks: int = 1
    max_decks: int = 8
    max_seats: int = 5
    start_money: int = 1000
    min_bet: int = 10
    max_bet: int | None = None
    max_shoes: int | None = 5
    rounds_per_seat: int | None = 50
    target_money: int | None = None
    reshuffle_at: str = "quarter"
    dealer_hits_soft_17: bool = False
    hole_card: bool = True
    dealer_peeks: bool = True
    blackjack_pays: Fraction = Fraction(2)
    insurance: bool = True
    insurance_pays: Fraction = Fraction(2)
    surrender: bool = True
    double_on: str = "any"
    split: bool = False
    split_hands: int = 4
    split_aces_one_card: bool = True
    resplit_aces: bool = False
    double_after_split: bool = True
    changer: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise RulesError(f"bad rules name: {self.name!r}")
        for key in OPTIONS:
            _check_value(key, getattr(self, key))
        conflict = self.conflict()
        if conflict:
            raise RulesError(f"impossible rules {self.name!r}: {conflict}")

    def conflict(self) -> str:
        """The first impossible combination of options, in one line, or ''."""
        if self.dealer_peeks and not self.hole_card:
            return "dealer_peeks=true needs hole_card=true (without a hole card there is nothing to peek at)"
        if self.min_decks > self.max_decks:
            return f"min_decks={self.min_decks} is above max_decks={self.max_decks}"
        if not self.min_decks <= self.decks <= self.max_decks:
            return f"decks={self.decks} is outside min_decks..max_decks ({self.min_decks} .. {self.max_decks})"
        if self.max_bet is not None and self.max_bet < self.min_bet:
            return f"max_bet={self.max_bet} is below min_bet={self.min_bet}"
        if self.start_money < self.min_bet:
            return f"start_money={self.start_money} is below min_bet={self.min_bet}: nobody could bet"
        if self.target_money is not None and self.target_money < self.start_money:
            return f"target_money={self.target_money} is below start_money={self.start_money}"
        if self.reshuffle_at == "round" and self.max_shoes is not None:
            return "reshuffle_at=round needs max_shoes=none (a new shoe every round)"
        if self.split and self.resplit_aces and self.split_hands < 3:
            return "resplit_aces=true needs split_hands=3 or more"
        return ""

    def check_table(self, decks: int, seats: int) -> None:
        """Raise RulesError if ``decks`` or ``seats`` is outside what these rules allow."""
        if not isinstance(decks, int) or not self.min_decks <= decks <= self.max_decks:
            raise RulesError(f"decks out of range: {decks!r} ({self.min_decks} .. {self.max_decks})")
        if not isinstance(seats, int) or not 1 <= seats <= self.max_seats:
            raise RulesError(f"seats out of range: {seats!r} (1 .. {self.max_seats})")
        if self.reshuffle_at == "deck" and decks < 2:
            raise RulesError("reshuffle_at=deck needs 2 decks or more (one deck left would be the whole shoe)")

    def reshuffle_threshold(self, decks: int) -> int:
        """After a round, the shoe is reshuffled when fewer than this many of its cards remain."""
        n = decks * 52
        at = self.reshuffle_at
        if at == "quarter":
            return n // 4
        if at == "half":
            return n // 2
        if at == "deck":
            return 52
        if at.isdigit():
            return int(at)
        return n + 1  # "round": always

    def blackjack_return(self, bet: int) -> int:
        """Money handed back for a winning Black Jack on ``bet``: the stake plus the payout (rounded down)."""
        return bet + int(bet * self.blackjack_pays)

    def insurance_return(self, insurance: int) -> int:
        """Money handed back for insurance ``insurance`` against a dealer Black Jack: stake plus payout."""
        return insurance + int(insurance * self.insurance_pays)

    def with_assignments(self, assignments: Iterable[str]) -> Rules:
        """These rules with ``KEY=VALUE`` overrides applied in order; the name records them.

        The result is checked once, after every override: only the final combination must be possible.
        """
        changes: dict[str, Any] = {}
        texts: list[str] = []
        for text in assignments:
            key, value = parse_assignment(text)
            changes[key] = value
            texts.append(f"{key}={format_value(value)}")
        if not changes:
            return self
        return replace(self, name=",".join([self.name, *texts]), **changes)

    def describe(self) -> str:
        """One line: the game (``describe_game``), then the money, the bets and the seats."""
        top = "" if self.max_bet == self.min_bet else f"..{self.max_bet}" if self.max_bet is not None else " or more"
        seats = "1 seat" if self.max_seats == 1 else f"1 to {self.max_seats} seats"
        return f"{describe_game(self)}, money {self.start_money}, bets {self.min_bet}{top}, {seats}"


def describe_game(rules: object, decks: int = 0) -> str:
    """The rules a player notices first, in one line: the one description of a rule set's game, which
    ``Rules.describe`` (``twentyone rules --presets``) and the exact analyser's headers and chart titles
    share.  ``rules`` is a ``Rules`` or anything with its fields (the analyser's options); a field it lacks
    takes the course's value.  ``decks`` names another full shoe than the rules' own decks; -1 names none
    (a shoe of given cards)."""
    def get(name: str) -> Any:
        return getattr(rules, name, getattr(COURSE, name))

    bj = Fraction(get("blackjack_pays"))
    n = decks or get("decks")
    parts = [ngettext("{n} deck", "{n} decks", n).format(n=n)] if n > 0 else []
    double = {"any": _("double any two"), "none": _("no double")}
    parts += ["H17" if get("dealer_hits_soft_17") else "S17",
              _("peek") if get("dealer_peeks") else _("hole card, no peek") if get("hole_card") else _("no hole card"),
              _("Black Jack {pays}").format(pays=f"{bj.numerator}:{bj.denominator}"),
              _("surrender") if get("surrender") else _("no surrender"),
              double.get(get("double_on"), _("double {cards}").format(cards=get("double_on")))]
    if get("split"):
        parts.append(_("split to {n} hands").format(n=get("split_hands")))
        if get("resplit_aces"):
            parts.append(_("resplit aces"))
        if not get("split_aces_one_card"):
            parts.append(_("split aces may hit"))
        if not get("double_after_split"):
            parts.append(_("no DAS"))
    else:
        parts.append(_("no split"))
    if not get("insurance"):
        parts.append(_("no insurance"))
    if get("changer"):
        parts.append(_("Changer"))
    return _(", ").join(parts)


def parse_assignment(text: str) -> tuple[str, Any]:
    """One ``KEY=VALUE`` override (``-`` may stand for ``_`` in KEY): its option name and typed value.

    The one grammar of rule overrides; RulesError names the key or the value at fault.
    """
    key, sep, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep:
        raise RulesError(f"bad rule override: {text!r} (KEY=VALUE, e.g. split=true)")
    if key not in OPTIONS:
        raise RulesError(f"unknown rule: {key!r} (known: {', '.join(OPTIONS)})")
    return key, _parse_value(key, value.strip())


def format_value(value: Any) -> str:
    """A value as ``parse_assignment`` reads it back."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_value(key: str, text: str) -> Any:
    kind, detail, _text = OPTIONS[key]
    low = text.lower()
    if kind == "bool":
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise RulesError(f"bad value for {key}: {text!r} (true or false)")
    if kind in ("int", "int?"):
        if kind == "int?" and low == "none":
            return None
        lo, hi = detail
        if not low.isdigit() or not lo <= int(low) <= hi:
            extra = " or none" if kind == "int?" else ""
            raise RulesError(f"bad value for {key}: {text!r} (a whole number {lo} .. {hi}{extra})")
        return int(low)
    if kind == "choice":
        if key == "reshuffle_at" and low.isdigit() and low.isascii():
            if not 1 <= int(low) <= _MAX_RESHUFFLE_CARDS:
                raise RulesError(f"bad value for {key}: {text!r} (a number of cards 1 .. {_MAX_RESHUFFLE_CARDS})")
            return str(int(low))
        if low not in detail:
            extra = ", or a number of cards" if key == "reshuffle_at" else ""
            raise RulesError(f"bad value for {key}: {text!r} ({', '.join(detail)}{extra})")
        return low
    try:
        value = Fraction(low.replace(":", "/"))
    except (ValueError, ZeroDivisionError):
        raise RulesError(f"bad value for {key}: {text!r} (a payout such as 2, 3/2, 6/5 or 1)") from None
    _check_value(key, value)
    return value


def _check_value(key: str, value: Any) -> None:
    """Raise RulesError if ``value`` is not a valid value of option ``key``."""
    kind, detail, _text = OPTIONS[key]
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind in ("int", "int?"):
        ok = (value is None and kind == "int?") or (
            isinstance(value, int) and not isinstance(value, bool) and detail[0] <= value <= detail[1])
    elif kind == "choice":
        ok = value in detail or (key == "reshuffle_at" and isinstance(value, str) and value.isascii()
                                 and value.isdigit() and 1 <= int(value) <= _MAX_RESHUFFLE_CARDS)
    else:
        ok = isinstance(value, Fraction) and 0 < value <= 100
    if not ok:
        raise RulesError(f"bad value for {key}: {value!r}")


COURSE = Rules()

#: The named rule sets (RULES.md, "Rule variants", says where each value comes from).
PRESETS: dict[str, Rules] = {
    "course": COURSE,
    "course-h17": replace(COURSE, name="course-h17", dealer_hits_soft_17=True),
    "course-3to2": replace(COURSE, name="course-3to2", blackjack_pays=Fraction(3, 2)),
    "course-nosurrender": replace(COURSE, name="course-nosurrender", surrender=False),
    "french": replace(COURSE, name="french", max_seats=4, min_bet=1, dealer_peeks=False,
                      blackjack_pays=Fraction(3, 2), insurance=False, surrender=False, split=True, split_hands=2,
                      double_after_split=False, changer=True),
    "unix-bj": replace(COURSE, name="unix-bj", decks=1, max_seats=1, min_bet=2, max_bet=2, max_shoes=None,
                       reshuffle_at="15", blackjack_pays=Fraction(3, 2), surrender=False, double_on="10-11",
                       split=True, split_hands=2, double_after_split=True),
    "lianzhong": replace(COURSE, name="lianzhong", decks=1, max_seats=4, max_shoes=None, reshuffle_at="round",
                         dealer_peeks=False, blackjack_pays=Fraction(1), insurance=False, surrender=False,
                         split=True, split_hands=2, split_aces_one_card=False, double_after_split=False),
    "montecarlo": replace(COURSE, name="montecarlo", decks=2, max_seats=1, start_money=100, min_bet=2, max_bet=2,
                          max_shoes=None, rounds_per_seat=12, reshuffle_at="round", dealer_peeks=False,
                          blackjack_pays=Fraction(3, 2), insurance=False, surrender=False, double_on="none"),
    "judge": replace(COURSE, name="judge", decks=5000, max_decks=5000, max_seats=1, start_money=1_000_000,
                     min_bet=1, max_shoes=1, rounds_per_seat=None, target_money=1_300_000, reshuffle_at="deck",
                     blackjack_pays=Fraction(3, 2), insurance_pays=Fraction(1), surrender=False, split=True,
                     split_hands=2, split_aces_one_card=False, double_after_split=False),
    "s17-3to2-6d": replace(COURSE, name="s17-3to2-6d", blackjack_pays=Fraction(3, 2), surrender=False, split=True,
                           split_hands=4, split_aces_one_card=True, resplit_aces=False, double_after_split=True),
}


def get_rules(text: str) -> Rules:
    """The rule set named by ``text``: a preset's name, then any ``,KEY=VALUE`` overrides.

    RulesError lists the presets for an unknown name and names a bad override.
    """
    name, *assignments = [part.strip() for part in text.split(",")]
    try:
        base = PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown rules: {name!r} (known: {', '.join(PRESETS)})") from None
    return base.with_assignments(a for a in assignments if a)
