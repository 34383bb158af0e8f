"""The ``duplicate`` class tournament (RULES.md, **grade_bonus**): every player alone on the same shoes, ranked by the
exact EV its decisions gave up.

Each deal seats every player alone at the table on the deal's seed (``plan.tournament_jobs``), so all of them are
dealt the same shoe, and prices every decision with the review's exact analyser (``MatchOutcome.ev_lost``): the EV
it lost against the best play off the cards it could see, in initial bets.  A player's figure is its **EV lost per
100 hands**, deal by deal; two players are compared deal by deal on the deals both played (paired differences), so
the luck of the shoe, which they share, cancels, and the cards' luck after a decision never counts at all (the price
is an expectation).  Money and a pairwise win rate (who ended richer on the same shoe, against every other player of
the deal) are kept to show, not to rank.

A boundary between two neighbours in rank order is **separated** when the paired mean difference, less ``z`` of its
standard errors, is above 0 (``z`` the normal quantile of the tournament's confidence); a player that faulted (a
crash, time-out or error) in some deal ranks below every player that never did, so that boundary is always one.
A boundary is **settled** when it is separated, or when more deals up to the budget could separate it with a chance
under ``FUTILE`` if the difference per deal stayed what it is (conditional power: the chance that the paired z at the
budget passes ``z``).  Everything here is linear in the matches (each deal is sorted once).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from twentyone.grading.results import StandingRow
from twentyone.grading.stats import wilson, z_for
from twentyone.grading.store import MatchRow

__all__ = ["DealRecord", "Ledger", "ledger", "deal_standings", "separated_pair", "settled_pair", "FUTILE",
           "MIN_DEALS", "half_points", "t_for"]

#: A boundary is no longer played for when the budget would separate it with a chance below this (at the trend seen,
#: read generously).
FUTILE = 0.05
#: The fewest deals two players must share before they can be told apart.
MIN_DEALS = 4


@dataclass(frozen=True)
class DealRecord:
    """One player's match of one deal."""

    lost: float
    hands: int
    account: int
    rounds: int
    faulted: bool

    @property
    def per_100(self) -> float:
        """EV lost per 100 hands of this deal (0 with no hand)."""
        return 100.0 * self.lost / self.hands if self.hands else 0.0


@dataclass
class Ledger:
    """Every player's deals (deal -> record), the pairwise results on the same shoes, and matches by player."""

    deals: dict[str, dict[int, DealRecord]] = field(default_factory=lambda: defaultdict(dict))
    wins: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ties: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    losses: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    fouls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    causes: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def ledger(rows: Iterable[MatchRow]) -> Ledger:
    """The ledger of a ``duplicate`` tournament's stored matches (one seat each).  On each deal every two players
    are compared as if they had sat together (RULES.md, **tournament_results**): a player that faulted loses to one
    that did not, two that faulted tie, else more money (at zero, more rounds) wins; each deal is sorted once."""
    book = Ledger()
    by_deal: dict[int, list[tuple[str, DealRecord]]] = defaultdict(list)
    for r in rows:
        o = r.outcome
        name = r.names[0]
        rec = DealRecord(o.ev_lost[0] if o.ev_lost else 0.0, o.ev_hands[0] if o.ev_hands else 0, o.accounts[0],
                         o.seat_rounds[0], o.faults[0] is not None)
        book.deals[name][o.info.idx] = rec
        book.fouls[name] += o.fouls[0]
        if o.faults[0] is not None and o.faults[0] not in book.causes[name]:
            book.causes[name].append(str(o.faults[0]))
        by_deal[o.info.idx].append((name, rec))
    for seated in by_deal.values():
        keys = sorted(_key(rec) for _, rec in seated)
        for name, rec in seated:
            k = _key(rec)
            below = _count_below(keys, k)
            same = _count_below(keys, (k[0], k[1], k[2] + 1)) - below - 1
            book.losses[name] += len(keys) - below - same - 1
            book.wins[name] += below
            book.ties[name] += same
    return book


def _key(rec: DealRecord) -> tuple[int, int, int]:
    """What a deal is ranked by: not faulted first, then money, then (at zero money) rounds."""
    return (0 if rec.faulted else 1, 0 if rec.faulted else rec.account, rec.rounds if rec.account == 0 and
            not rec.faulted else 0)


def _count_below(keys: Sequence[tuple[int, int, int]], k: tuple[int, int, int]) -> int:
    """How many of the sorted ``keys`` are below ``k``."""
    lo, hi = 0, len(keys)
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo


def deal_standings(rows: Iterable[MatchRow], entries: Sequence[tuple[str, str]], errors: dict[str, str] | None = None,
                   confidence: float = 0.95) -> tuple[list[StandingRow], Ledger]:
    """The standings of a ``duplicate`` tournament: players that never faulted first, then by EV lost per 100 hands
    (the mean over their deals, with its interval), then by mean money, then by name."""
    errors = errors or {}
    book = ledger(rows)
    z = z_for(confidence)
    out = []
    for name, spec in entries:
        recs = [r for r in book.deals.get(name, {}).values() if r.hands]
        n_all = len(book.deals.get(name, {}))
        w, t, lo = book.wins[name], book.ties[name], book.losses[name]
        rate, low, high = wilson(w + t / 2, w + t + lo, confidence)
        money = sum(r.account for r in book.deals.get(name, {}).values()) / n_all if n_all else 0.0
        row = StandingRow(0, name, spec, n_all, w, t, lo, rate, low, high, money, book.fouls[name],
                          sum(r.faulted for r in book.deals.get(name, {}).values()), list(book.causes[name]),
                          errors.get(name))
        if recs:
            per = [r.per_100 for r in recs]
            mean = sum(per) / len(per)
            half = z * _sd(per) / math.sqrt(len(per)) if len(per) > 1 else math.inf
            row.ev_lost, row.ev_low, row.ev_high = mean, max(0.0, mean - half), mean + half
            row.hands = sum(r.hands for r in recs)
        out.append(row)
    def order(r: StandingRow) -> tuple[bool, bool, float, float, str]:
        return (r.error is not None, r.faults > 0, r.ev_lost if r.ev_lost is not None else math.inf,
                -r.mean_account, r.name)
    out.sort(key=order)
    for i, r in enumerate(out):
        r.rank = i + 1 if i == 0 or order(out[i - 1])[:4] != order(r)[:4] else out[i - 1].rank
    return out, book


def _sd(xs: Sequence[float]) -> float:
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))


def _paired(book: Ledger, a: str, b: str) -> list[float]:
    """EV lost per 100 hands of ``b`` less ``a``'s on each deal both played hands in."""
    da, db = book.deals.get(a, {}), book.deals.get(b, {})
    return [db[d].per_100 - da[d].per_100 for d in sorted(da.keys() & db.keys()) if da[d].hands and db[d].hands]


def t_for(confidence: float, df: int) -> float:
    """Student's t quantile for a two-sided ``confidence`` with ``df`` degrees of freedom (Cornish-Fisher: within
    0.3% of the exact one from 3 degrees of freedom)."""
    z = z_for(confidence)
    v = float(df)
    return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v * v)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3))


def _look_confidence(confidence: float, looks: int) -> float:
    """The confidence of each of ``looks`` looks that keeps the chance of a false separation over all of them
    below ``1 - confidence`` (Bonferroni)."""
    return 1.0 - (1.0 - confidence) / max(1, looks)


def separated_pair(book: Ledger, above: StandingRow, below: StandingRow, confidence: float, looks: int = 1) -> bool:
    """True when ``above`` and its neighbour ``below`` are told apart: one never faulted and the other did, or the
    paired mean difference of their EV lost per 100 hands, less Student's t (at the confidence of one of ``looks``
    looks) standard errors, is above 0.  Two players no better than each other are told apart at some look with a
    chance of at most ``1 - confidence``."""
    if (above.faults > 0) != (below.faults > 0):
        return True
    diffs = _paired(book, above.name, below.name)
    if len(diffs) < MIN_DEALS:
        return False
    mean, sd = sum(diffs) / len(diffs), _sd(diffs)
    if sd == 0:
        return mean > 0
    t = t_for(_look_confidence(confidence, looks), len(diffs) - 1)
    return mean - t * sd / math.sqrt(len(diffs)) > 0


def settled_pair(book: Ledger, above: StandingRow, below: StandingRow, confidence: float, budget: int,
                 looks: int = 1) -> bool:
    """True when the boundary cannot change enough to matter: separated, or (``FUTILE``) more deals up to ``budget``
    would separate it with a chance under ``FUTILE`` even if the paired difference per deal were its upper
    confidence bound now (a trend no better than what was seen, read generously); two players whose every deal
    came out the same never part."""
    if separated_pair(book, above, below, confidence, looks):
        return True
    diffs = _paired(book, above.name, below.name)
    n = len(diffs)
    if n < MIN_DEALS:
        return False
    mean, sd = sum(diffs) / n, _sd(diffs)
    if sd == 0:
        return mean <= 0  # the same on every deal (or the wrong way round): more deals give the same
    left = budget - n
    if left <= 0:
        return True
    t = t_for(_look_confidence(confidence, looks), budget - 1)
    trend = mean + z_for(1 - 2 * FUTILE) * sd / math.sqrt(n)  # generous: the difference's upper bound
    # The paired sum at the budget, if the trend held: n * mean + left * trend + noise of sd * sqrt(left).
    need = t * sd * math.sqrt(budget) - n * mean - left * trend
    return 1.0 - NormalDist().cdf(need / (sd * math.sqrt(left))) < FUTILE


def half_points(x: float) -> float:
    """``x`` rounded to the nearest half point (halves up): a shared bonus as a reader takes it in."""
    return math.floor(2 * x + 0.5) / 2
