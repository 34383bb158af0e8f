"""Exact analysis of one player off the top of a shoe of any composition: EVs, strategies, charts.

Everything is computed by the C analyser (``c_src/analysis/tw_ca.c``, method in its header comment)
and is exact, not simulated:

- ``dealer_odds``: the dealer's final totals for an up card, given no Black Jack when he peeks;
- ``decision_evs``: the EV of every decision for one hand (stand, hit, double, split, surrender,
  insurance), each assuming the best play afterwards;
- ``house_edge``: the EV of a round under a strategy: ``optimal`` (composition-dependent: every hand
  played by its exact cards; split hands as the same cards unsplit, "CDZ-"), ``basic`` (the best
  total-dependent chart), ``stand``, ``mimic`` (hit below 17 like the dealer) or any ``Chart``; with
  its standard deviation when no hand is split (not computed for splits);
- ``analyse``: all of these for a rule set, with the two charts: ``basic_chart`` (total-dependent)
  and ``best_chart`` (the composition-dependent best first decision of one representative hand per
  row, as REFERENCE.md tabulates it);
- ``derived_basic_chart(rules, decks)``: the basic chart of a rule set, cached.

Splits are exact for the stated strategies with resplits up to ``split_hands``, a pair being resplit
whenever the rules allow it (the algorithm of Eric Farmer's split paper, written anew).  EVs are per
initial bet.  A shoe is the shoe the round is dealt from: the hand and the up card come out of it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from twentyone.analysis import _ca
from twentyone.analysis.charts import UPS, Chart, Kind, Row
from twentyone.analysis.options import MAX_OPTION_DECKS, AnalysisRules
from twentyone.analysis.shoe import RANKS, Shoe, hand_counts, parse_card, parse_hand
from twentyone.errors import BadCardsError, RulesError
from twentyone.i18n import _
from twentyone.rules import COURSE

__all__ = ["DealerOdds", "DecisionEVs", "StrategyEV", "Analysis", "dealer_odds", "decision_evs", "house_edge", "describe",
           "analyse", "derived_basic_chart", "policy_table", "STRATEGIES", "REPRESENTATIVE"]

#: Strategies ``house_edge`` knows by name (a ``Chart`` is accepted too).
STRATEGIES: Final = ("optimal", "basic", "stand", "mimic")



def _hard_pair_of_cards(total: int) -> str:
    """Two different cards making hard ``total``, the larger as high as possible below a ten (9-3 for 12,
    8-2 for 10), a ten only when nothing else will do (T-8, T-9, T-T for 20)."""
    if total == 20:
        return "TT"
    high = min(9, total - 2)
    if high == total - high:
        high += 1
    return RANKS[high - 1] + RANKS[total - high - 1]


#: The representative hand of each row of the best-first-decision chart.  REFERENCE.md does not name
#: its hands; these are the ones that reproduce every row it prints for 1, 4, 6 and 8 decks (T-2 would
#: hit 12 against a 4 at 6 decks; T-6 would surrender 16 against an A at 1 deck).
REPRESENTATIVE: Final[dict[Row, str]] = {
    **{Row(Kind.HARD, t): _hard_pair_of_cards(t) for t in range(5, 21)},
    **{Row(Kind.SOFT, t): "A" + RANKS[t - 12] for t in range(13, 22)},
    **{Row(Kind.PAIR, r): RANKS[r] * 2 for r in range(10)},
    Row(Kind.HARD, 12, True): "246",
    **{Row(Kind.HARD, t, True): "2T" + RANKS[t - 13] for t in range(13, 17)},
}
_COL_INDEX: Final = {u: RANKS.index(u) for u in UPS}  # column letter -> C up-card index


def _options(rules: object, decks: int | None = None) -> AnalysisRules:
    if decks is not None:
        return AnalysisRules.of(rules, decks=decks)
    if _beyond_options(rules):
        return AnalysisRules.of(rules, decks=MAX_OPTION_DECKS)
    return AnalysisRules.of(rules)


def _beyond_options(rules: object) -> int:
    """The decks of an engine rule set with more than the options hold (the judge's 5000), else 0."""
    n = getattr(rules, "decks", 0)
    return n if not isinstance(rules, AnalysisRules) and isinstance(n, int) and n > MAX_OPTION_DECKS else 0


def _prepared(rules: object, decks: int | None = None, shoe: Shoe | None = None) -> tuple[AnalysisRules, Shoe]:
    """The options and the shoe to analyse: ``shoe``, else a full shoe of ``decks``, else of the rules'.

    An engine rule set of more decks than the options take (the ``judge`` preset's 5000) is analysed off
    its own full shoe, as a composition, its options saying 8 (which then only name a shoe size)."""
    opts = _options(rules, decks)
    if shoe is not None:
        return opts, shoe
    many = _beyond_options(rules) if decks is None else 0
    return opts, Shoe.decks(many or opts.decks)


@dataclass(frozen=True)
class DealerOdds:
    """The dealer's final totals with up card ``up``: ``totals[17..21]`` and ``bust`` (given no Black Jack
    when ``given_no_blackjack``), and ``blackjack``, his chance of a Black Jack before any peek."""

    up: str
    totals: dict[int, float]
    bust: float
    blackjack: float
    given_no_blackjack: bool


def dealer_odds(up: str, rules: object = COURSE, shoe: Shoe | None = None) -> DealerOdds:
    """The dealer's outcome odds for ``up`` dealt from ``shoe`` (a full shoe of the rules' decks)."""
    opts, full = _prepared(rules, shoe=shoe)
    card = parse_card(up)
    rest = full.without(card)
    p = _ca.dealer(rest.counts, RANKS.index(card), opts.dealer_hits_soft_17)
    bj = p[6]
    cond = opts.dealer_peeks and bj > 0
    scale = 1.0 / (1.0 - bj) if cond and bj < 1 else 1.0
    return DealerOdds(card, {17 + i: p[i] * scale for i in range(5)}, p[5] * scale, bj, cond)


@dataclass(frozen=True)
class DecisionEVs:
    """The EV per initial bet of each decision for ``hand`` against ``up`` (None: not allowed).

    When the dealer peeks and shows an A or a ten, the values are given that he has no Black Jack
    (``given_no_blackjack``), as the player knows when deciding; ``insurance`` (the side bet's EV per
    initial bet, decided before the peek) and ``p_blackjack`` are not conditioned.
    """

    hand: str
    up: str
    stand: float
    hit: float | None
    double: float | None
    split: float | None
    surrender: float | None
    insurance: float | None
    natural: bool
    given_no_blackjack: bool
    p_blackjack: float

    def options(self) -> list[tuple[str, float]]:
        """The allowed playing decisions and their EVs, in the order stand, hit, double, split, surrender."""
        pairs = [("stand", self.stand), ("hit", self.hit), ("double", self.double), ("split", self.split),
                 ("surrender", self.surrender)]
        return [(name, v) for name, v in pairs if v is not None]

    @property
    def best(self) -> str:
        """The decision with the highest EV (ties go to the earlier one)."""
        best_name, best_v = "stand", self.stand
        for name, v in self.options():
            if v > best_v:
                best_name, best_v = name, v
        return best_name


def decision_evs(hand: str, up: str, rules: object = COURSE, shoe: Shoe | None = None) -> DecisionEVs:
    """Exact EVs of each decision for ``hand`` (e.g. ``T6``) against ``up``, off ``shoe``.

    A two-card hand is a first decision (double, surrender and split as the rules allow); a hand of
    three cards or more may only stand or hit.  Later decisions are played optimally.
    """
    opts, src = _prepared(rules, shoe=shoe)
    cards = parse_hand(hand)
    card = parse_card(up)
    if not src.holds(cards + card):
        raise BadCardsError(f"the shoe cannot deal {cards} and up card {card}: {src}")
    counts = hand_counts(cards)
    pair = len(cards) == 2 and cards[0] == cards[1]
    root = hand_counts(cards[0]) if pair and opts.split else counts
    values = _ca.Session(src.counts, opts, root).hand(counts, RANKS.index(card))
    pbj = values.p_blackjack
    cond = opts.dealer_peeks and 0 < pbj < 1

    def given(v: float | None) -> float | None:
        if v is None or not cond:
            return v
        return (v + pbj) / (1.0 - pbj)

    stand = values.stand / (1.0 - pbj) if cond and values.natural else given(values.stand)
    insurance = 0.5 * (float(opts.insurance_pays) * pbj - (1.0 - pbj)) if card == "A" and opts.insurance else None
    return DecisionEVs(cards, card, stand if stand is not None else values.stand, given(values.hit),
                       given(values.double), given(values.split), given(values.surrender), insurance,
                       values.natural, cond, pbj)


@dataclass(frozen=True)
class StrategyEV:
    """A strategy's EV per initial bet over a round (``by_up``: given each up card) and its standard
    deviation (None when some hand is split: not computed)."""

    strategy: str
    ev: float
    sd: float | None
    by_up: dict[str, float]

    @property
    def house_edge(self) -> float:
        """The house's edge: minus the player's EV."""
        return -self.ev

    def __str__(self) -> str:
        sd = f", SD {self.sd:.4f}" if self.sd is not None else ""
        return f"{self.strategy}: {100 * self.ev:+.4f}%{sd}"


def _strategy_ev(session: _ca.Session, name: str, mode: int) -> StrategyEV:
    ev, e2, p, exact = session.overall(mode)
    mean = sum(pu * e for pu, e in zip(p, ev))
    second = sum(pu * e for pu, e in zip(p, e2))
    sd = math.sqrt(max(second - mean * mean, 0.0)) if exact else None
    by_up = {u: ev[_COL_INDEX[u]] for u in UPS if p[_COL_INDEX[u]] > 0}
    return StrategyEV(name, mean, sd, by_up)


def policy_table(chart: Chart) -> list[int]:
    """The C analyser's policy table for ``chart`` (every situation resolved with the chart's fallbacks)."""
    cells = [0] * (10 * _ca.CLASSES * _ca.SLOTS)
    for u in range(10):
        up = RANKS[u]

        def put(cls: int, slot: int, prefs: str) -> None:
            cells[(u * _ca.CLASSES + cls) * _ca.SLOTS + slot] = _ca.pack(prefs)

        for t in range(4, 22):
            put(_ca.HARD2, t, chart.preference(Kind.HARD, t, 2, None, up))
            put(_ca.HARD3, t, chart.preference(Kind.HARD, t, 3, None, up))
        for t in range(12, 22):
            put(_ca.SOFT2, t, chart.preference(Kind.SOFT, t, 2, None, up))
            put(_ca.SOFT3, t, chart.preference(Kind.SOFT, t, 3, None, up))
        for r in range(10):
            kind, total = (Kind.SOFT, 12) if r == 0 else (Kind.HARD, 2 * (r + 1))
            put(_ca.PAIR, r, chart.preference(kind, total, 2, r, up))
    return cells


def _fixed_chart(name: str, opts: AnalysisRules) -> Chart:
    """``stand`` (always stand) or ``mimic`` (draw as the dealer does) as a chart."""
    rows: list[tuple[Row, tuple[str, ...]]] = []
    for kind, lo in ((Kind.HARD, 4), (Kind.SOFT, 12)):
        for t in range(lo, 22):
            stands = name == "stand" or t >= 18 or (t == 17 and not (kind is Kind.SOFT and opts.dealer_hits_soft_17))
            rows.append((Row(kind, t), ("S" if stands else "H",) * len(UPS)))
    return Chart.build(f"{name}: " + (_("always stand") if name == "stand" else _("hit below 17 as the dealer does")),
                       rows)


def house_edge(rules: object = COURSE, shoe: Shoe | None = None, strategy: str | Chart = "optimal",
               decks: int | None = None) -> StrategyEV:
    """The exact EV (and SD) of a round under ``strategy`` off ``shoe`` (a full shoe by default)."""
    opts, src = _prepared(rules, decks, shoe)
    session = _ca.Session(src.counts, opts)
    if isinstance(strategy, Chart):
        session.set_table(policy_table(strategy))
        return _strategy_ev(session, strategy.title, _ca.TABLE)
    if strategy == "optimal":
        return _strategy_ev(session, "optimal", _ca.OPTIMAL)
    if strategy == "basic":
        session.basic()
        return _strategy_ev(session, "basic", _ca.TABLE)
    if strategy in ("stand", "mimic"):
        session.set_table(policy_table(_fixed_chart(strategy, opts)))
        return _strategy_ev(session, strategy, _ca.TABLE)
    raise RulesError(f"unknown strategy: {strategy!r} (known: {', '.join(STRATEGIES)}, or a chart)")


@dataclass(frozen=True)
class Analysis:
    """A rule set analysed off a shoe: the optimal and basic EVs and the two charts."""

    rules: AnalysisRules
    shoe: Shoe
    optimal: StrategyEV
    basic: StrategyEV
    basic_chart: Chart
    best_chart: Chart
    seconds: float


def _preference(options: dict[str, float]) -> str:
    """Actions by EV, best first (ties in the order S H D P U), up to the first stand or hit."""
    order = sorted(options, key=lambda a: (-options[a], "SHDPU".index(a)))
    cut = next(i for i, a in enumerate(order) if a in "HS")
    return "".join(order[: cut + 1])


def _letters(values: _ca.Values, pair_row: bool) -> dict[str, float]:
    opts = {"S": values.stand}
    for letter, v in (("H", values.hit), ("D", values.double), ("P", values.split if pair_row else None),
                      ("U", values.surrender)):
        if v is not None:
            opts[letter] = v
    return opts


def _basic_chart(table: list[int], opts: AnalysisRules, shoe: Shoe) -> Chart:
    def cell(u: str, cls: int, slot: int) -> str:
        return _ca.unpack(table[(RANKS.index(u) * _ca.CLASSES + cls) * _ca.SLOTS + slot])

    rows: list[tuple[Row, tuple[str, ...]]] = []
    rows += [(Row(Kind.HARD, t), tuple(cell(u, _ca.HARD2, t) for u in UPS)) for t in range(5, 21)]
    rows += [(Row(Kind.SOFT, t), tuple(cell(u, _ca.SOFT2, t) for u in UPS)) for t in range(13, 22)]
    rows += [(Row(Kind.PAIR, r), tuple(cell(u, _ca.PAIR, r) for u in UPS)) for r in range(10)]
    rows += [(Row(Kind.HARD, t, True), tuple(cell(u, _ca.HARD3, t) for u in UPS)) for t in range(6, 22)]
    rows += [(Row(Kind.SOFT, t, True), tuple(cell(u, _ca.SOFT3, t) for u in UPS)) for t in range(13, 22)]
    return Chart.build(_("basic strategy (total-dependent), {game}").format(game=describe(opts, shoe)), rows)


def _best_chart(session: _ca.Session, basic: Chart, opts: AnalysisRules, shoe: Shoe) -> Chart:
    rows: list[tuple[Row, tuple[str, ...]]] = []
    for row, hand in REPRESENTATIVE.items():
        cells: list[str] = []
        for u in UPS:
            if not shoe.holds(hand + u):
                cells.append(basic.cell(row, u) or "H")
                continue
            values = session.hand(hand_counts(hand), RANKS.index(u))
            cells.append("S" if values.natural else _preference(_letters(values, row.kind is Kind.PAIR)))
        rows.append((row, tuple(cells)))
    order = {Kind.HARD: 0, Kind.SOFT: 1, Kind.PAIR: 2}
    rows.sort(key=lambda rc: (rc[0].more, order[rc[0].kind], rc[0].value))
    return Chart.build(_("best first decision (composition-dependent, one representative hand a row), {game}").format(
        game=describe(opts, shoe)), rows)


def describe(opts: AnalysisRules, shoe: Shoe | None = None) -> str:
    """``NAME: the game`` (``twentyone.rules.describe_game``, as ``twentyone rules --presets`` says it): a full
    shoe is named by its decks (the judge's 5000 too); a shoe of given cards names no decks and is listed."""
    if shoe is None or shoe == Shoe.decks(opts.decks):
        return f"{opts.name}: {opts.describe()}"
    full = shoe.is_full_decks()
    return f"{opts.name}: {opts.describe(full)}" if full else f"{opts.name}: {opts.describe(-1)}" + _(
        ", shoe {shoe}").format(shoe=shoe)


def analyse(rules: object = COURSE, shoe: Shoe | None = None, decks: int | None = None) -> Analysis:
    """Analyse ``rules`` off ``shoe`` (a full shoe of ``decks``, else of the rules' decks)."""
    start = time.perf_counter()
    opts, src = _prepared(rules, decks, shoe)
    session = _ca.Session(src.counts, opts)
    optimal = _strategy_ev(session, "optimal", _ca.OPTIMAL)
    table = session.basic()
    basic = _strategy_ev(session, "basic", _ca.TABLE)
    basic_chart = _basic_chart(table, opts, src)
    best_chart = _best_chart(session, basic_chart, opts, src)
    return Analysis(opts, src, optimal, basic, basic_chart, best_chart, time.perf_counter() - start)


@lru_cache(maxsize=64)
def _cached_basic_chart(opts: AnalysisRules) -> Chart:
    session = _ca.Session(Shoe.decks(opts.decks).counts, opts)
    return _basic_chart(session.basic(), opts, Shoe.decks(opts.decks))


def derived_basic_chart(rules: object = COURSE, decks: int | None = None) -> Chart:
    """The best total-dependent chart for ``rules`` with ``decks`` full decks (cached per rule set)."""
    return _cached_basic_chart(_options(rules, decks))

