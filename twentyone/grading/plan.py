"""What to play: the jobs of a tournament and of each rubric criterion, with their seeds and seats.

Tournaments have two formats:

- ``pairs``: a round robin of 2-seat matches.  Every pair plays ``matches`` matches; match i uses seed
  ``seed + i // 2`` and the seats swap every match, so each shoe sequence is played once from each seat
  (duplicate format).
- ``duplicate`` (a grade's class tournament): ``matches`` deals; on each, every entry plays alone at the table on
  the deal's seed ``seed + m``, so all see the same shoe, and every decision is priced (``MatchJob.priced``).
- ``table5``: ``matches`` deals of the whole field.  With as many entries as the rule set has seats (five in
  the course) or fewer they all sit at one table and the seating rotates one place every match; with more,
  every deal shuffles the entries (from the seed) into tables of as equal a size as possible, at most the
  seats.  All tables of deal m use seed ``seed + m``, so they see the same shoes.

A rubric criterion's match i uses seed ``seed + i // 2`` with the submission at seat 1 for even i and
seat 2 for odd i (RULES.md, **grade_fairness**); the legal-play matches seat the submission among
built-in players, at each seat in turn, at a table of the rule set's seats.

Under a rule set of one seat (``unix-bj``, ``montecarlo``, ``judge``) two players never share a table, so
they are compared in the **duplicate** format (RULES.md, **grade_table_size**): a duplicate job seats each
of its players alone at the table on the same seed, and its outcome compares them as if they had sat
together (``runner.play_job``).  A criterion's match i is then the submission and its opponent on seed
``seed + i``; a tournament unit compares every pair (``pairs``) or groups of up to five (``table5``), each
on the unit's seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from twentyone.grading.config import DUPLICATE_GROUP, GradingConfig, WinRate, seats_of
from twentyone.grading.outcome import JobInfo
from twentyone.players.sandbox.limits import Limits

__all__ = ["MatchJob", "tournament_jobs", "tables", "criterion_job", "legal_job", "builtin_label", "SEED_OFFSET",
           "LEGAL_TABLE", "LEGAL_SEED_OFFSET", "seats_of", "DUPLICATE_GROUP"]

#: Tournament seeds in ``grade`` start here past the configured seed, apart from the criteria's.
SEED_OFFSET = 900_000
#: The other four seats of a legal-play match, in seat order around the submission.
LEGAL_TABLE = ("basic", "hilo", "stand", "basic")
LEGAL_SEED_OFFSET = 500_000


@dataclass(frozen=True)
class MatchJob:
    """One match to play: its key, the SPEC at each seat, and how; everything a worker needs, picklable."""

    key: str
    specs: tuple[str, ...]
    seed: int
    info: JobInfo
    decks: int = 6
    rules: str = "course"
    #: Sandbox limits, or None to play in process (trusted).
    limits: Limits | None = None
    capture_dir: str | None = None
    #: Keep every seat's money after each round (for bankroll charts).
    bankroll: bool = True
    #: Keep a decision trace of the subject's seat (``grading.traces``), for the similarity page.
    trace: bool = False
    #: Seat each player alone at the table on ``seed`` and compare them (one-seat rules: the duplicate format).
    duplicate: bool = False
    #: Price every decision of every seat with the exact analyser (``MatchOutcome.ev_lost``): a deal of a
    #: ``duplicate`` class tournament.
    priced: bool = False


def tables(n: int, deal: int, seed: int, size: int = 5) -> list[list[int]]:
    """The tables of deal ``deal`` in ``table5`` format, at most ``size`` seats each: lists of entry indices in
    seat order (each is then played in every rotation)."""
    if n <= size:
        return [list(range(n))]
    order = list(range(n))
    random.Random(f"twentyone-table5:{seed}:{deal}").shuffle(order)
    count = -(-n // size)
    size, extra = divmod(n, count)
    out, start = [], 0
    for t in range(count):
        k = size + (1 if t < extra else 0)
        out.append(order[start:start + k])
        start += k
    return out


def tournament_jobs(entries: Sequence[tuple[str, str]], fmt: str, matches: int, seed: int, decks: int,
                    rules: str, limits: Limits | None, skip: set[str] | None = None, start: int = 0) -> list[MatchJob]:
    """The matches of units ``start`` .. ``start + matches - 1`` of a tournament between ``entries`` (name,
    SPEC), less the keys in ``skip``.

    A unit is a deal in ``table5``: its tables, each played once per seat rotation, so every entry of a
    table takes every seat on the deal's seed (``len(entries)`` matches a deal).  In ``pairs`` a unit is
    one match of every pair, the seats swapped on odd units, so each seed is played from both seats.  In
    ``duplicate`` a unit is a deal: every entry alone at the table on the deal's seed, each match priced.
    Under one-seat rules a pair (``pairs``, on seed ``seed + unit``) or a group of up to ``DUPLICATE_GROUP``
    entries (``table5``) is one duplicate job.  A job's ``info.idx`` is its unit.
    """
    skip = skip or set()
    seats = seats_of(rules)
    duplicate = seats == 1
    jobs: list[MatchJob] = []

    def add(key: str, unit: int, s: int, at: list[int]) -> None:
        if key in skip:
            return
        info = JobInfo("tournament", "", unit, s, tuple(entries[i][0] for i in at))
        jobs.append(MatchJob(key, tuple(entries[i][1] for i in at), s, info, decks, rules, limits=limits,
                             bankroll=unit == 0 and not jobs, duplicate=duplicate))

    for unit in range(start, start + matches):
        if fmt == "duplicate":  # every entry alone on the deal's shoe, priced
            for name, spec in entries:
                key = f"tournament|deal{unit}|{name}"
                if key not in skip:
                    info = JobInfo("tournament", "", unit, seed + unit, (name,))
                    jobs.append(MatchJob(key, (spec,), seed + unit, info, decks, rules, limits=limits, bankroll=False,
                                         priced=True))
            continue
        if fmt == "pairs":
            for a in range(len(entries)):
                for b in range(a + 1, len(entries)):
                    if duplicate:
                        add(f"tournament|{entries[a][0]}|{entries[b][0]}|{unit}", unit, seed + unit, [a, b])
                        continue
                    at = [a, b] if unit % 2 == 0 else [b, a]
                    add(f"tournament|{entries[a][0]}|{entries[b][0]}|{unit}", unit, seed + unit // 2, at)
        else:
            for t, table in enumerate(tables(len(entries), unit, seed, DUPLICATE_GROUP if duplicate else seats)):
                if duplicate:
                    add(f"tournament|deal{unit}|table{t}|duplicate", unit, seed + unit, table)
                    continue
                for r in range(len(table)):
                    add(f"tournament|deal{unit}|table{t}|rot{r}", unit, seed + unit, table[r:] + table[:r])
    return jobs


def builtin_label(spec: str) -> str:
    """How a built-in opponent is named in stored matches: never the same as a submission's name."""
    return f"{spec} (built-in)"


def criterion_job(config: GradingConfig, purpose: str, crit: WinRate, name: str, spec: str, i: int,
                  limits: Limits | None) -> MatchJob:
    """Match ``i`` of a win-rate criterion: seed ``seed + i // 2``, the submission at seat 1 + i % 2; under
    one-seat rules the duplicate of the submission and its opponent on seed ``seed + i``."""
    duplicate = seats_of(config.rules) == 1
    seed = config.base_seed + (i if duplicate else i // 2)
    seat = 1 if duplicate else 1 + i % 2
    specs = (spec, crit.opponent) if seat == 1 else (crit.opponent, spec)
    opponent = builtin_label(crit.opponent)
    names = (name, opponent) if seat == 1 else (opponent, name)
    info = JobInfo(purpose, name, i, seed, names, seat)
    # The first matches against stand keep a decision trace: every submission plays them on the same seeds and seats.
    trace = purpose == "beat_stand" and i < config.similarity.traces
    return MatchJob(f"{purpose}|{name}|{i}|{seed}|{seat}", specs, seed, info, config.decks, config.rules,
                    limits=limits, bankroll=i < 2, trace=trace, duplicate=duplicate)


def legal_job(config: GradingConfig, name: str, spec: str, i: int, limits: Limits | None) -> MatchJob:
    """Legal-play match ``i``: a table of the rule set's seats (five in the course), the submission at seat
    1 + i % seats among the first built-in players of ``LEGAL_TABLE``."""
    seed = config.base_seed + LEGAL_SEED_OFFSET + i
    n = seats_of(config.rules)
    seat = 1 + i % n
    specs = list(LEGAL_TABLE[:n - 1])
    specs.insert(seat - 1, spec)
    names = [builtin_label(b) for b in LEGAL_TABLE[:n - 1]]
    names.insert(seat - 1, name)
    info = JobInfo("legal", name, i, seed, tuple(names), seat)
    return MatchJob(f"legal|{name}|{i}|{seed}|{seat}", tuple(specs), seed, info, config.decks, config.rules,
                    limits=limits, bankroll=i == 0)
