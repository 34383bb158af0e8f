"""What to play: the jobs of a tournament and of each rubric criterion, with their seeds and seats.

Tournaments have two formats:

- ``pairs``: a round robin of 2-seat matches.  Every pair plays ``matches`` matches; match i uses seed
  ``seed + i // 2`` and the seats swap every match, so each shoe sequence is played once from each seat
  (duplicate format).
- ``table5``: ``matches`` deals of the whole field.  With five entries or fewer they all sit at one
  table and the seating rotates one place every match; with more, every deal shuffles the entries
  (from the seed) into tables of as equal a size as possible, at most five.  All tables of deal m use
  seed ``seed + m``, so they see the same shoes.

A rubric criterion's match i uses seed ``seed + i // 2`` with the submission at seat 1 for even i and
seat 2 for odd i (RULES.md, **grade_fairness**); the legal-play matches seat the submission among
built-in players, at each seat in turn.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from twentyone.grading.config import GradingConfig, WinRate
from twentyone.grading.outcome import JobInfo
from twentyone.players.sandbox.limits import Limits

__all__ = ["MatchJob", "tournament_jobs", "tables", "criterion_job", "legal_job", "builtin_label", "SEED_OFFSET",
           "LEGAL_TABLE", "LEGAL_SEED_OFFSET"]

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


def tables(n: int, deal: int, seed: int) -> list[list[int]]:
    """The tables of deal ``deal`` in ``table5`` format: lists of entry indices in seat order (each is
    then played in every rotation)."""
    if n <= 5:
        return [list(range(n))]
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
                    rules: str, limits: Limits | None, skip: set[str] | None = None, start: int = 0) -> list[MatchJob]:
    """The matches of units ``start`` .. ``start + matches - 1`` of a tournament between ``entries`` (name,
    SPEC), less the keys in ``skip``.

    A unit is a deal in ``table5``: its tables, each played once per seat rotation, so every entry of a
    table takes every seat on the deal's seed (``len(entries)`` matches a deal).  In ``pairs`` a unit is
    one match of every pair, the seats swapped on odd units, so each seed is played from both seats.
    A job's ``info.idx`` is its unit.
    """
    skip = skip or set()
    jobs: list[MatchJob] = []

    def add(key: str, unit: int, s: int, seats: list[int]) -> None:
        if key in skip:
            return
        info = JobInfo("tournament", "", unit, s, tuple(entries[i][0] for i in seats))
        jobs.append(MatchJob(key, tuple(entries[i][1] for i in seats), s, info, decks, rules, limits=limits,
                             bankroll=unit == 0 and not jobs))

    for unit in range(start, start + matches):
        if fmt == "pairs":
            for a in range(len(entries)):
                for b in range(a + 1, len(entries)):
                    seats = [a, b] if unit % 2 == 0 else [b, a]
                    add(f"tournament|{entries[a][0]}|{entries[b][0]}|{unit}", unit, seed + unit // 2, seats)
        else:
            for t, table in enumerate(tables(len(entries), unit, seed)):
                for r in range(len(table)):
                    seats = table[r:] + table[:r]
                    add(f"tournament|deal{unit}|table{t}|rot{r}", unit, seed + unit, seats)
    return jobs


def builtin_label(spec: str) -> str:
    """How a built-in opponent is named in stored matches: never the same as a submission's name."""
    return f"{spec} (built-in)"


def criterion_job(config: GradingConfig, purpose: str, crit: WinRate, name: str, spec: str, i: int,
                  limits: Limits | None) -> MatchJob:
    """Match ``i`` of a win-rate criterion: seed ``seed + i // 2``, the submission at seat 1 + i % 2."""
    seed = config.base_seed + i // 2
    seat = 1 + i % 2
    specs = (spec, crit.opponent) if seat == 1 else (crit.opponent, spec)
    opponent = builtin_label(crit.opponent)
    names = (name, opponent) if seat == 1 else (opponent, name)
    info = JobInfo(purpose, name, i, seed, names, seat)
    # The first matches against stand keep a decision trace: every submission plays them on the same seeds and seats.
    trace = purpose == "beat_stand" and i < config.similarity.traces
    return MatchJob(f"{purpose}|{name}|{i}|{seed}|{seat}", specs, seed, info, config.decks, config.rules,
                    limits=limits, bankroll=i < 2, trace=trace)


def legal_job(config: GradingConfig, name: str, spec: str, i: int, limits: Limits | None) -> MatchJob:
    """Legal-play match ``i``: five seats, the submission at seat 1 + i % 5 among built-in players."""
    seed = config.base_seed + LEGAL_SEED_OFFSET + i
    seat = 1 + i % 5
    specs = list(LEGAL_TABLE)
    specs.insert(seat - 1, spec)
    names = [builtin_label(b) for b in LEGAL_TABLE]
    names.insert(seat - 1, name)
    info = JobInfo("legal", name, i, seed, tuple(names), seat)
    return MatchJob(f"legal|{name}|{i}|{seed}|{seat}", tuple(specs), seed, info, config.decks, config.rules,
                    limits=limits, bankroll=i == 0)
