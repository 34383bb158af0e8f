"""Tournaments: who plays whom with which seed, and the standings from the stored matches.

Two formats:

- ``pairs``: a round robin of 2-seat matches.  Every pair plays ``matches`` matches; match i uses seed
  ``seed + i // 2`` and the seats swap every match, so each shoe sequence is played once from each seat
  (duplicate format).
- ``table5``: ``matches`` deals of the whole field.  With five entries or fewer they all sit at one
  table and the seating rotates one place every match; with more, every deal shuffles the entries
  (from the seed) into tables of as equal a size as possible, at most five.  All tables of deal m use
  seed ``seed + m``, so they see the same shoes.

Standings count pairwise results: in a match every two players at the table are compared, the
better rank winning, an equal rank a tie.  A player who faulted (crash, time-out, forbidden call,
garbage) loses to everyone at the table who did not; two who faulted tie.  The win rate counts a tie
as half a win and comes with its Wilson 95% interval; players are ranked by win rate, then by mean
final money.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from twentyone.runner import MatchJob
from twentyone.scores import StandingRow
from twentyone.stats import wilson
from twentyone.store import MatchRow

__all__ = ["tournament_jobs", "tables", "pairwise", "standings", "SEED_OFFSET"]

#: Tournament seeds in ``grade`` start here past the configured seed, apart from the criteria's.
SEED_OFFSET = 900_000


def tables(n: int, deal: int, seed: int) -> list[list[int]]:
    """The tables of deal ``deal`` in ``table5`` format: lists of entry indices in seat order."""
    if n <= 5:
        return [[(j + deal) % n for j in range(n)]]
    order = list(range(n))
    random.Random(f"twentyone-table5:{seed}:{deal}").shuffle(order)
    count = -(-n // 5)
    size, extra = divmod(n, count)
    out, start = [], 0
    for t in range(count):
        k = size + (1 if t < extra else 0)
        out.append(order[start:start + k])
        start += k
    return out


def tournament_jobs(entries: Sequence[tuple[str, str]], fmt: str, matches: int, seed: int, decks: int,
                    rules: str, limits: dict[str, Any] | None, skip: set[str] | None = None) -> list[MatchJob]:
    """Every match of a tournament between ``entries`` (name, SPEC), less the keys in ``skip``."""
    skip = skip or set()
    jobs: list[MatchJob] = []

    def add(key: str, idx: int, s: int, seats: list[int]) -> None:
        if key in skip:
            return
        names = [entries[i][0] for i in seats]
        meta = {"purpose": "tournament", "subject": "", "idx": idx, "seed": s, "names": names}
        jobs.append(MatchJob(key, tuple(entries[i][1] for i in seats), s, decks, rules, limits=limits, meta=meta,
                             bankroll=idx < 2))

    if fmt == "pairs":
        idx = 0
        for a in range(len(entries)):
            for b in range(a + 1, len(entries)):
                for i in range(matches):
                    seats = [a, b] if i % 2 == 0 else [b, a]
                    add(f"tournament|{entries[a][0]}|{entries[b][0]}|{i}", idx, seed + i // 2, seats)
                    idx += 1
    else:
        idx = 0
        for m in range(matches):
            for t, seats in enumerate(tables(len(entries), m, seed)):
                add(f"tournament|deal{m}|table{t}", idx, seed + m, seats)
                idx += 1
    return jobs


def pairwise(row: MatchRow) -> Iterable[tuple[str, str, str]]:
    """(a, b, result) for every two players of a stored match; result is 'a', 'b' or 'tie'."""
    o = row.outcome
    names = row.names
    faults = o["faults"]
    ranks = o["ranks"]
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            fi, fj = faults[i] is not None, faults[j] is not None
            if fi != fj:
                result = "b" if fi else "a"
            elif fi or ranks[i] == ranks[j]:
                result = "tie"
            else:
                result = "a" if ranks[i] < ranks[j] else "b"
            yield names[i], names[j], result


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
            s["money"] += o["accounts"][i]
            s["fouls"] += o["fouls"][i]
            if o["faults"][i] is not None:
                s["faults"] += 1
                if o["faults"][i] not in s["causes"]:
                    s["causes"].append(o["faults"][i])
        for a, b, result in pairwise(row):
            if result == "tie":
                stat[a]["t"] += 1
                stat[b]["t"] += 1
            else:
                winner, loser = (a, b) if result == "a" else (b, a)
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
