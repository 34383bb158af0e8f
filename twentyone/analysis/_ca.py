"""Thin typed bindings of the C analyser (``c_src/analysis/tw_ca.c``): checks before, codes after.

Every function here maps one C call.  Values are per initial bet and unconditioned (a dealer Black
Jack is part of the average); ``twentyone.analysis.exact`` builds the Pythonic API on top.
Return codes become exceptions in ``_check`` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from twentyone.analysis.errors import AnalysisError
from twentyone.analysis.options import DOUBLE_ON, AnalysisRules
from twentyone.core import ca_ffi, ca_lib
from twentyone.errors import BadCardsError, RulesError

__all__ = ["OPTIMAL", "TABLE", "ACTIONS", "CLASSES", "SLOTS", "Values", "Session", "dealer"]

OPTIMAL: Final[int] = int(ca_lib.TW_CA_OPTIMAL)
TABLE: Final[int] = int(ca_lib.TW_CA_TABLE)
#: C action codes by letter: S stand, H hit, D double, P split, U surrender.
ACTIONS: Final[dict[str, int]] = {"S": int(ca_lib.TW_CA_STAND), "H": int(ca_lib.TW_CA_HIT),
                                  "D": int(ca_lib.TW_CA_DOUBLE), "P": int(ca_lib.TW_CA_SPLIT),
                                  "U": int(ca_lib.TW_CA_SURRENDER)}
LETTERS: Final[dict[int, str]] = {v: k for k, v in ACTIONS.items()}
CLASSES: Final[int] = int(ca_lib.TW_CA_CLASSES)
SLOTS: Final[int] = int(ca_lib.TW_CA_SLOTS)
HARD2, SOFT2, HARD3, SOFT3, PAIR = (int(ca_lib.TW_CA_HARD2), int(ca_lib.TW_CA_SOFT2), int(ca_lib.TW_CA_HARD3),
                                    int(ca_lib.TW_CA_SOFT3), int(ca_lib.TW_CA_PAIR))
_NONE: Final = -1.0e8


def _check(rc: int, what: str) -> None:
    """Turn a C return code into the package's exception for ``what``."""
    if rc == 0:
        return
    if rc in (ca_lib.TW_CA_EBADSHOE, ca_lib.TW_CA_EBADHAND, ca_lib.TW_CA_EBADUP):
        raise BadCardsError(f"cards not in the shoe: {what}")
    if rc == ca_lib.TW_CA_EBADRULES:
        raise RulesError(f"rules the analyser cannot play: {what}")
    if rc == ca_lib.TW_CA_ENOMEM:
        raise AnalysisError(f"out of memory analysing {what}")
    raise AnalysisError(f"analyser error {rc} for {what}")


def _counts(counts: Sequence[int]) -> Any:
    if len(counts) != 10:
        raise BadCardsError(f"ten counts expected: {list(counts)!r}")
    return ca_ffi.new("int[10]", [int(n) for n in counts])


def c_rules(rules: AnalysisRules) -> Any:
    """The C rule struct for ``rules``."""
    r = ca_ffi.new("tw_ca_rules *")
    r.hit_soft_17 = int(rules.dealer_hits_soft_17)
    r.peek = int(rules.dealer_peeks)
    r.blackjack_pays = float(rules.blackjack_pays)
    r.surrender = int(rules.surrender)
    r.double_on = DOUBLE_ON.index(rules.double_on)
    r.split_hands = rules.split_hands if rules.split else 1
    r.split_aces_one_card = int(rules.split_aces_one_card)
    r.resplit_aces = int(rules.resplit_aces)
    r.double_after_split = int(rules.double_after_split)
    return r


def dealer(counts: Sequence[int], up: int, hits_soft_17: bool) -> tuple[float, ...]:
    """P(17, 18, 19, 20, 21, bust, Black Jack) for up card index ``up``; ``counts`` excludes the up card."""
    out = ca_ffi.new("double[7]")
    _check(ca_lib.tw_ca_dealer(_counts(counts), up, int(hits_soft_17), out), f"dealer odds for up card {up}")
    return tuple(float(x) for x in out)


def _opt(x: float, allowed: int) -> float | None:
    return float(x) if allowed and x > _NONE else None


@dataclass(frozen=True)
class Values:
    """One hand's values against one up card (unconditioned, per initial bet); None = not allowed."""

    stand: float
    hit: float | None
    double: float | None
    split: float | None
    surrender: float | None
    stand2: float
    hit2: float
    double2: float
    surrender2: float
    p_blackjack: float
    natural: bool


class Session:
    """Hands made of ``root`` plus cards drawn from the shoe ``counts`` under ``rules`` (C session)."""

    def __init__(self, counts: Sequence[int], rules: AnalysisRules, root: Sequence[int] | None = None) -> None:
        err = ca_ffi.new("int *")
        self._rules = c_rules(rules)
        raw = ca_lib.tw_ca_new(_counts(counts), self._rules, _counts(root) if root is not None else ca_ffi.NULL,
                               err)
        if raw == ca_ffi.NULL:
            _check(int(err[0]) or int(ca_lib.TW_CA_ENOMEM), "a new analysis")
        self._s = ca_ffi.gc(raw, ca_lib.tw_ca_free)

    def hand(self, counts: Sequence[int], up: int, mode: int = OPTIMAL) -> Values:
        """Values of the hand with these rank counts against up card index ``up``."""
        out = ca_ffi.new("tw_ca_values *")
        _check(ca_lib.tw_ca_hand(self._s, _counts(counts), up, mode, out), f"hand {list(counts)} against {up}")
        return Values(float(out.stand), _opt(out.hit, out.can_hit), _opt(out.dbl, out.can_double),
                      _opt(out.split, out.can_split), _opt(out.surrender, out.can_surrender),
                      float(out.stand2), float(out.hit2), float(out.dbl2), float(out.surrender2),
                      float(out.p_blackjack), bool(out.natural))

    def overall(self, mode: int = OPTIMAL) -> tuple[list[float], list[float], list[float], bool]:
        """(EV by up card, second moment by up card, odds of each up card, second moments exact)."""
        ev, e2, p = ca_ffi.new("double[10]"), ca_ffi.new("double[10]"), ca_ffi.new("double[10]")
        exact = ca_ffi.new("int *")
        _check(ca_lib.tw_ca_overall(self._s, mode, ev, e2, p, exact), "the round's EV")
        return list(ev), list(e2), list(p), bool(exact[0])

    def basic(self) -> list[int]:
        """Derive and install the best total-dependent policy table; return its cells."""
        table = ca_ffi.new("uint16_t[]", 10 * CLASSES * SLOTS)
        _check(ca_lib.tw_ca_basic(self._s, table), "basic strategy")
        return list(table)

    def set_table(self, cells: Sequence[int]) -> None:
        """Install a policy table of ``10 * CLASSES * SLOTS`` cells."""
        if len(cells) != 10 * CLASSES * SLOTS:
            raise AnalysisError(f"policy table of {len(cells)} cells (need {10 * CLASSES * SLOTS})")
        _check(ca_lib.tw_ca_set_table(self._s, ca_ffi.new("uint16_t[]", list(cells))), "a policy table")


def pack(letters: str) -> int:
    """A preference string such as ``DSH`` as a C cell (first choice in the low nibble)."""
    cell = 0
    for i, a in enumerate(letters[:4]):
        cell |= ACTIONS[a] << (4 * i)
    return cell


def unpack(cell: int) -> str:
    """A C cell as its preference string."""
    out = []
    for i in range(4):
        a = (cell >> (4 * i)) & 15
        if not a:
            break
        out.append(LETTERS[a])
    return "".join(out)
