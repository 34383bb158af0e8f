"""A tournament's standings, from its stored matches alone.

Every two players at a table are compared (``rubric.pair_result``): the better rank wins, an equal
rank ties; a player who faulted loses to each who did not, and two who faulted tie.  The win rate
counts a tie as half a win and comes with its Wilson 95% interval; players are ranked by win rate,
then by mean final money (RULES.md, **tournament_results**).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from twentyone.grading.results import StandingRow
from twentyone.grading.rubric import Result, pair_result
from twentyone.grading.stats import wilson
from twentyone.grading.store import MatchRow

__all__ = ["pairwise", "standings"]


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
              errors: dict[str, str] | None = None) -> list[StandingRow]:
    """The standings of a tournament from its stored matches."""
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
        rate, low, high = wilson(s["w"] + s["t"] / 2, n)
        mean = s["money"] / s["matches"] if s["matches"] else 0.0
        out.append(StandingRow(0, name, spec, s["matches"], s["w"], s["t"], s["l"], rate, low, high, mean,
                               s["fouls"], s["faults"], s["causes"], errors.get(name)))
    keys = [(r.error is None, round(r.rate, 12), round(r.mean_account, 9)) for r in out]
    for r, k in zip(out, keys):
        r.rank = 1 + sum(1 for other in keys if other > k)
    out.sort(key=lambda r: (r.rank, r.name))
    return out
