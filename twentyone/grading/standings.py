"""A tournament's standings, from its stored matches alone.

Every two players at a table are compared (``rubric.pair_result``): the better rank wins, an equal
rank ties; a player who faulted loses to each who did not, and two who faulted tie.  The win rate
counts a tie as half a win and comes with its Wilson 95% interval; players are ranked by win rate,
then by mean final money (RULES.md, **tournament_results**).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from twentyone.grading.config import DUPLICATE_GROUP, TournamentBonus
from twentyone.grading.deals import deal_standings, half_points, separated_pair, settled_pair
from twentyone.grading.results import StandingRow
from twentyone.grading.rubric import Result, pair_result
from twentyone.grading.stats import wilson
from twentyone.grading.store import MatchRow
from twentyone.legality import Foul

__all__ = ["pairwise", "standings", "matches_per_unit", "TournamentJudgement", "judge_tournament", "separated",
           "Place", "places", "withdrawn"]


def pairwise(row: MatchRow) -> Iterable[tuple[str, str, Result]]:
    """(a, b, result for a) for every two players of a stored match."""
    o = row.outcome
    names = row.names
    faults = o.faults
    ranks = o.ranks
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            yield names[i], names[j], pair_result(faults[i] is not None, faults[j] is not None, ranks[i], ranks[j])


def standings(rows: Iterable[MatchRow], entries: Sequence[tuple[str, str]],
              errors: dict[str, str] | None = None, confidence: float = 0.95) -> list[StandingRow]:
    """The standings of a tournament from its stored matches (intervals at ``confidence``)."""
    errors = errors or {}
    stat: dict[str, dict[str, Any]] = {
        name: {"spec": spec, "matches": 0, "w": 0, "t": 0, "l": 0, "money": 0, "fouls": 0, "faults": 0,
               "causes": []} for name, spec in entries}
    for row in rows:
        o = row.outcome
        for i, name in enumerate(row.names):
            s = stat[name]
            s["matches"] += 1
            s["money"] += o.accounts[i]
            s["fouls"] += o.fouls[i]
            fault = o.faults[i]
            if fault is not None:
                s["faults"] += 1
                if fault not in s["causes"]:
                    s["causes"].append(fault)
        for a, b, result in pairwise(row):
            if result == Result.TIE:
                stat[a]["t"] += 1
                stat[b]["t"] += 1
            else:
                winner, loser = (a, b) if result == Result.WIN else (b, a)
                stat[winner]["w"] += 1
                stat[loser]["l"] += 1
    out = []
    for name, spec in entries:
        s = stat[name]
        n = s["w"] + s["t"] + s["l"]
        rate, low, high = wilson(s["w"] + s["t"] / 2, n, confidence)
        mean = s["money"] / s["matches"] if s["matches"] else 0.0
        out.append(StandingRow(0, name, spec, s["matches"], s["w"], s["t"], s["l"], rate, low, high, mean,
                               s["fouls"], s["faults"], s["causes"], errors.get(name)))
    keys = [(r.error is None, round(r.rate, 12), round(r.mean_account, 9)) for r in out]
    for r, k in zip(out, keys):
        r.rank = 1 + sum(1 for other in keys if other > k)
    out.sort(key=lambda r: (r.rank, r.name))
    return out


def matches_per_unit(n: int, fmt: str, seats: int = 5) -> int:
    """Matches in one unit of a tournament of ``n`` entries at tables of ``seats`` (``plan.tournament_jobs``): a
    deal of ``table5`` seats everyone once per rotation of its table (``n`` matches), or under one-seat rules
    is one duplicate job per group of up to ``plan.DUPLICATE_GROUP``; a unit of ``pairs`` is one match of every
    pair; a deal of ``duplicate`` one match of every player, alone."""
    if fmt == "pairs":
        return n * (n - 1) // 2
    if fmt == "duplicate":  # every player alone on the deal's shoe
        return n
    return n if seats > 1 else -(-n // DUPLICATE_GROUP)


def _usable(table: Sequence[StandingRow]) -> list[StandingRow]:
    return [r for r in table if r.error is None]


def separated(table: Sequence[StandingRow], places: int) -> bool:
    """True when the intervals of places 1 | 2, 2 | 3, ... up to ``places`` | ``places + 1`` do not overlap."""
    rows = _usable(table)
    return all(rows[b - 1].low > rows[b].high for b in range(1, min(places, len(rows) - 1) + 1))


@dataclass
class Place:
    """Where one player finished: the places its interval spans, shared with whoever it overlaps, and the
    bonus it gets (the mean of those places' bonus points)."""

    first: int
    last: int
    bonus: float
    #: The places are shared (also) because identical copies of one hand-in finished in them.
    copies: bool = False


def places(table: Sequence[StandingRow], bonus: Sequence[float], code: Mapping[str, str] | None = None,
           cuts: Sequence[bool] | None = None, rounded: bool = False, clean_only: bool = False) -> dict[str, Place]:
    """Each usable player's place range and bonus (RULES.md, **grade_bonus**).

    Players in rank order form groups in which each one's interval overlaps the next one's (or, given ``cuts``,
    ``cuts[i]`` says whether the i-th usable player is told apart from the one before it: ``duplicate``); a group
    spans places ``first .. last`` and each of its players gets the mean bonus of those places (none past the
    list), to the nearest half point when ``rounded``.  ``code`` maps a player to its code as graded: players with
    the same code are identical copies, and the groups from the first copy's to the last copy's become one, so
    identical copies get identical bonuses whatever their seats made of their records.  ``clean_only``
    (``duplicate``): a group of players that faulted (crashed, timed out, erred) in some deal takes no bonus, whatever
    its places: a bonus rewards a more effective strategy, and one that faults is not one.
    """
    rows = _usable(table)
    # cut[i]: a group ends before rows[i] (its interval lies wholly above the next one's).
    cut = [i for i in range(1, len(rows)) if (cuts[i] if cuts is not None else rows[i - 1].low > rows[i].high)]
    joined: set[int] = set()
    if code:
        at: dict[str, list[int]] = {}
        for i, r in enumerate(rows):
            if r.name in code:
                at.setdefault(code[r.name], []).append(i)
        for spots in at.values():
            joined.update(c for c in cut if spots[0] < c <= spots[-1])
    out: dict[str, Place] = {}
    bounds = [0, *(c for c in cut if c not in joined), len(rows)]
    for start, end in zip(bounds, bounds[1:]):
        spanned = [bonus[p] if p < len(bonus) else 0.0 for p in range(start, end)]
        share = sum(spanned) / len(spanned)
        if clean_only and all(r.faults > 0 for r in rows[start:end]):
            share = 0.0
        share = half_points(share) if rounded else share
        copies = any(start < c < end for c in joined)
        for r in rows[start:end]:
            out[r.name] = Place(start + 1, end, share, copies)
    return out


@dataclass
class TournamentJudgement:
    """How far a class tournament has got: the standings over its whole units, and whether it is done."""

    standings: list[StandingRow]
    #: Units (deals or pair rounds) the standings count.
    units: int
    decided: bool
    #: The units 0 .. needed-1 the next look needs.
    needed: int
    rows: list[MatchRow] = field(default_factory=list)
    #: The players the next batch seats: every player, less those withdrawn (``withdrawn``).
    active: list[tuple[str, str]] = field(default_factory=list)
    #: ``duplicate``: for each usable player in rank order, whether it is told apart from the one before it
    #: (``deals.separated_pair``; the first is True); None under the other formats, whose intervals say it.
    cuts: list[bool] | None = None


def withdrawn(rows: Iterable[MatchRow], players: Sequence[tuple[str, str]], table: Sequence[StandingRow] = (),
              bonus_places: int = 0) -> list[str]:
    """The players of ``players`` who sat in some match of ``rows`` and timed out in every one of them (a time-out
    on the box's own clock stands as played; one by a wall-clock backstop, once confirmed on replay): they can
    only lose, so a class tournament seats them no more.  Given ``table``, the standings over ``rows``, and the
    number of places that carry a bonus, also those who timed out in some match and whose interval lies wholly
    below that of the last place with a bonus: they can take no bonus, and each further time-out of theirs would
    cost a decision limit and hand their tablemates a win that players at other tables do not get."""
    played: Counter[str] = Counter()
    timed: Counter[str] = Counter()
    for r in rows:
        for i, name in enumerate(r.names):
            played[name] += 1
            timed[name] += r.outcome.faults[i] == Foul.TIMEOUT
    usable = _usable(table)
    cut = usable[min(bonus_places, len(usable)) - 1].low if usable and bonus_places > 0 else None
    high = {r.name: r.high for r in usable}
    return [name for name, _ in players if played[name] and (
        timed[name] == played[name] or (timed[name] and cut is not None and name in high and high[name] < cut))]


def judge_tournament(rows: Sequence[MatchRow], players: Sequence[tuple[str, str]], t: TournamentBonus,
                     errors: dict[str, str] | None = None, seats: int = 5) -> TournamentJudgement:
    """Apply the tournament's stop rule to its stored matches, unit by unit (RULES.md, **grade_bonus**).

    Units are added in batches of ``t.matches``; after each whole batch, the tournament is done when the
    top places that carry a bonus are separated at ``t.confidence`` (``separated``; in ``duplicate``, when each
    boundary of those places is separated or can no longer be: ``deals.settled_pair``), or when the budget
    ``t.max_matches`` units is reached.  Only whole units in order count, so the result does not depend
    on which matches finished first.  ``seats``: the seats of the rule set's tables.  After units 1, 2 and 4
    (``EARLY_LOOKS``) and after each batch, a player who timed out in every match it played, or who timed out
    and can no longer reach a place with a bonus, is withdrawn (``withdrawn``): the later units are planned
    without it, and it keeps its standing from the matches it played.  The units up to each such look are
    played before any later one is planned, so a looping hand-in sits in one deal's matches, not a batch's, and one that loops on some
    hands in no more than its standing needs.
    """
    have = Counter(r.outcome.info.idx for r in rows)
    budget = max(t.matches, t.max_matches)
    active = list(players)
    start = 0
    judged = TournamentJudgement(standings([], players, errors, t.confidence), 0, False, 0, [], active)
    for units, batch_end in _looks(t.matches, budget):
        judged.needed = units
        if not all(have[u] >= matches_per_unit(len(active), t.format, seats) for u in range(start, units)):
            return judged
        used = [r for r in rows if r.outcome.info.idx < units]
        cuts: list[bool] | None = None
        if t.format == "duplicate":
            table, book = deal_standings(used, players, errors, t.confidence)
            usable = _usable(table)
            looks = -(-budget // t.matches)  # the batch looks over the budget: each separates at its share
            cuts = [True] + [separated_pair(book, a, b, t.confidence, looks) for a, b in zip(usable, usable[1:])]
            # The boundaries a bonus depends on: those of the bonus places, and on past them up to the first that is
            # told apart (a group that holds the last bonus place shares its points with everyone in it).
            last = next((i for i in range(len(t.bonus), len(usable)) if cuts[i]), len(usable) - 1)
            settled = all(settled_pair(book, usable[i - 1], usable[i], t.confidence, budget, looks)
                          for i in range(1, last + 1))
            out = _withdrawn_from_deals(used, active, table, len(t.bonus))
        else:
            table = standings(used, players, errors, t.confidence)
            settled = separated(table, len(t.bonus))
            out = withdrawn(used, active, table, len(t.bonus))
        active = [p for p in active if p[0] not in out]
        if batch_end or len(active) < 2:
            done = units >= budget or settled or len(active) < 2
            judged = TournamentJudgement(table, units, done, units, used, active, cuts)
            if done:
                return judged
        else:  # the first unit's look: who is withdrawn, nothing decided
            judged = replace(judged, active=active)
        start = units
    return judged


def _withdrawn_from_deals(rows: Iterable[MatchRow], players: Sequence[tuple[str, str]], table: Sequence[StandingRow],
                         bonus_places: int) -> list[str]:
    """``duplicate``: the players of ``players`` who timed out in every match they played, or timed out at all while
    at least ``bonus_places`` players never faulted: a player that faulted ranks below every one that never did
    (``deals.deal_standings``), so it can take no bonus, and each further time-out would cost a decision limit."""
    timed = {name for name in withdrawn(rows, players)}
    clean = sum(1 for r in _usable(table) if r.faults == 0)
    for r in rows:
        if r.outcome.faults[0] == Foul.TIMEOUT and clean >= bonus_places:
            timed.add(r.names[0])
    return [name for name, _ in players if name in timed]


#: Before its first batch ends, the tournament is looked at after these many units, for withdrawals only
#: (``judge_tournament``): each is played alone, so a looping hand-in sits in as few deals as its standing needs.
EARLY_LOOKS = (1, 2, 4)


def _looks(batch: int, budget: int) -> Iterator[tuple[int, bool]]:
    """The unit counts after which a tournament is looked at, each with whether a batch ends there: after the
    units of ``EARLY_LOOKS`` below the first batch's end (withdrawals only), then after each batch of ``batch``
    units, up to ``budget``."""
    for units in EARLY_LOOKS:
        if units < min(batch, budget):
            yield units, False
    units = 0
    while units < budget:
        units = min(units + batch, budget)
        yield units, True
