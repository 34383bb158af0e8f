"""Grade a class: prepare the submissions, play the rubric's matches into the store, resumably.

The rubric (RULES.md, "Grading") has four parts, each configured in ``twentyone.config``:

- **legal**: no foul, crash or time-out in any match the submission plays: the win-rate matches, the
  tournament, and ``legal.matches`` extra 5-seat matches beside built-in players (the submission at
  each seat in turn, which exercises every ``tmpcards`` layout);
- **beat_stand** / **beat_basic**: 2-seat matches against the built-in player, in batches, until the
  Wilson interval of the win rate excludes the threshold or the maximum is reached (``stats.decide``);
- **tournament**: a class tournament between every usable submission; bonus points by rank.

Fairness: the criteria's match i uses seed ``seed + i // 2`` with the submission at seat 1 for even i and
seat 2 for odd i, for every submission alike, so everyone plays the same shoes from both seats.

Every match is stored the moment it finishes (``twentyone.store``).  What to play next is worked out
from the store alone, so a resumed run plays exactly the matches still missing, and a run on Dask
gives the same scores as one in a local pool.  ``twentyone.scoring`` turns the store into the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twentyone.config import GradingConfig, Isolation, WinRate
from twentyone.errors import CompileError, TwentyOneError
from twentyone.runner import MatchJob, MatchOutcome, drive
from twentyone.stats import Verdict, decide
from twentyone.store import EntryRow, Store
from twentyone.submissions import find_submissions
from twentyone.tournament import SEED_OFFSET, tournament_jobs

__all__ = ["prepare_entries", "check_player", "limits_of", "win_value", "winner_of", "Grader", "LEGAL_TABLE",
           "LEGAL_SEED_OFFSET", "criterion_job", "legal_job", "outcome_for_store"]

#: The other four seats of a legal-play match, in seat order around the submission.
LEGAL_TABLE = ("basic", "hilo", "stand", "basic")
LEGAL_SEED_OFFSET = 500_000


def prepare_entries(paths: Sequence[Path], workdir: Path, config: GradingConfig,
                    warn: Callable[[str], None] | None = None) -> list[EntryRow]:
    """Find each submission's strategy and check it can be played: compile C, read Python.

    A submission that cannot be used keeps a one-line ``error`` (and the compiler's messages); the
    others are graded all the same.  C files compile in parallel, one compiler per core.
    """
    from concurrent.futures import ThreadPoolExecutor

    subs = find_submissions(list(paths), workdir)

    def check(pos: int) -> EntryRow:
        sub = subs[pos]
        error, messages, spec = sub.error, "", ""
        if error is None and sub.path is not None:
            spec = f"{sub.path}:{config.function_set}"
            error, messages = check_player(sub.path, sub.kind, config.function_set, warn)
        return EntryRow(sub.name, pos, sub.source, spec, sub.kind, error, messages)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return list(pool.map(check, range(len(subs))))


def check_player(path: Path, kind: str, k: int, warn: Callable[[str], None] | None = None) -> tuple[str | None, str]:
    """(error, compiler messages) for the strategy file ``path`` as function set ``k``; (None, '') if usable."""
    from twentyone.cplayer import compile_student, missing_functions
    from twentyone.errors import PlayerSpecError
    from twentyone.players import ModuleFunctionSet

    try:
        if kind == "c":
            built = compile_student(path, warn)
            missing = missing_functions(built, k)
            if missing:
                raise PlayerSpecError(f"{path.name} has no function set {k} (missing: {', '.join(missing)})")
        elif kind == "py":
            if not path.is_file():
                raise PlayerSpecError(f"cannot read player file {str(path)!r}: no such file")
            ModuleFunctionSet(path, k, execute=False)
        else:
            raise PlayerSpecError(f"{path}: not a .c or .py strategy file")
    except CompileError as e:
        return str(e), e.messages
    except TwentyOneError as e:
        return str(e), ""
    return None, ""


def limits_of(iso: Isolation) -> dict[str, Any] | None:
    """The sandbox limits of a job as a dict, or None when submissions run trusted."""
    if iso.trusted:
        return None
    return {"decision_timeout": iso.decision_timeout, "match_timeout": iso.match_timeout,
            "cpu_seconds": max(1, int(iso.match_timeout) + 1)}


def winner_of(outcome: dict[str, Any], seat: int) -> str:
    """'win', 'tie' or 'loss' for the player at ``seat`` of a 2-seat outcome (a fault is a loss)."""
    i, j = seat - 1, 2 - seat
    if outcome["faults"][i] is not None:
        return "loss"
    if outcome["faults"][j] is not None:
        return "win"
    ri, rj = outcome["ranks"][i], outcome["ranks"][j]
    return "win" if ri < rj else "loss" if ri > rj else "tie"


def win_value(result: str, ties: str) -> float:
    """What a 'win', 'tie' or 'loss' counts for in a win rate."""
    if result == "win":
        return 1.0
    return 0.5 if result == "tie" and ties == "half" else 0.0


def builtin_label(spec: str) -> str:
    """How a built-in opponent is named in stored matches: never the same as a submission's name."""
    return f"{spec} (built-in)"


def criterion_job(config: GradingConfig, purpose: str, crit: WinRate, name: str, spec: str, i: int,
                  limits: dict[str, Any] | None) -> MatchJob:
    """Match ``i`` of a win-rate criterion: seed ``seed + i // 2``, the submission at seat 1 + i % 2."""
    seed = config.seed + i // 2
    seat = 1 + i % 2
    specs = (spec, crit.opponent) if seat == 1 else (crit.opponent, spec)
    opponent = builtin_label(crit.opponent)
    names = [name, opponent] if seat == 1 else [opponent, name]
    meta = {"purpose": purpose, "subject": name, "idx": i, "seed": seed, "names": names, "seat": seat}
    return MatchJob(f"{purpose}|{name}|{i}|{seed}|{seat}", specs, seed, config.decks, config.rules,
                    limits=limits, meta=meta, bankroll=i < 2)


def legal_job(config: GradingConfig, name: str, spec: str, i: int, limits: dict[str, Any] | None) -> MatchJob:
    """Legal-play match ``i``: five seats, the submission at seat 1 + i % 5 among built-in players."""
    seed = config.seed + LEGAL_SEED_OFFSET + i
    seat = 1 + i % 5
    specs = list(LEGAL_TABLE)
    specs.insert(seat - 1, spec)
    names = [builtin_label(b) for b in LEGAL_TABLE]
    names.insert(seat - 1, name)
    meta = {"purpose": "legal", "subject": name, "idx": i, "seed": seed, "names": names, "seat": seat}
    return MatchJob(f"legal|{name}|{i}|{seed}|{seat}", tuple(specs), seed, config.decks, config.rules,
                    limits=limits, meta=meta, bankroll=i == 0)


def outcome_for_store(o: MatchOutcome) -> dict[str, Any]:
    """The outcome as stored: everything but the key and the job's meta, which have their own columns."""
    d = o.to_dict()
    d.pop("key")
    d.pop("meta")
    d["seat"] = o.meta.get("seat")
    return d


@dataclass(eq=False)
class _Progress:
    """A win-rate criterion of one submission: what is played and what is decided."""

    purpose: str
    crit: WinRate
    name: str
    spec: str
    results: dict[int, str] = field(default_factory=dict)
    issued: set[int] = field(default_factory=set)
    verdict: Verdict | None = None


class Grader:
    """Plays every match the rubric needs for ``entries``, storing each one, until all are decided."""

    def __init__(self, store: Store, config: GradingConfig, entries: Sequence[EntryRow], task_size: int = 10,
                 on_match: Callable[[int, int], None] | None = None) -> None:
        self.store = store
        self.config = config
        self.entries = [e for e in entries if e.error is None]
        self.task_size = task_size
        #: Called as (matches done, matches expected at most) after every stored batch.
        self.on_match = on_match
        self.limits = limits_of(config.isolation)
        self.progress: dict[tuple[str, str], _Progress] = {}
        self.done = 0
        self._fixed: list[MatchJob] = []
        stored = store.keys()
        self.done = len(stored)
        for e in self.entries:
            for purpose, crit in config.win_criteria().items():
                if crit.weight > 0:
                    self.progress[(purpose, e.name)] = _Progress(purpose, crit, e.name, e.spec)
            self._fixed += [legal_job(config, e.name, e.spec, i, self.limits) for i in range(config.legal.matches)]
        t = config.tournament
        if t.enabled and len(self.entries) >= 2:
            self._fixed += tournament_jobs([(e.name, e.spec) for e in self.entries], t.format, t.matches,
                                           config.seed + SEED_OFFSET, config.decks, config.rules, self.limits)
        self._fixed = [j for j in self._fixed if j.key not in stored]
        for row in store.matches():
            p = self.progress.get((row.purpose, row.subject))
            if p is not None:
                p.results[row.idx] = winner_of(row.outcome, row.outcome["seat"])
                p.issued.add(row.idx)

    def expected(self) -> int:
        """Matches played or to play, counting an undecided criterion at its maximum."""
        n = self.done + len(self._fixed)
        for p in self.progress.values():
            n += (p.verdict.matches if p.verdict else p.crit.max_matches) - len(p.results)
        return n

    def _advance(self, p: _Progress) -> list[MatchJob]:
        """Decide ``p`` as far as its stored results allow; return the jobs its next batch still needs."""
        if p.verdict is not None:
            return []
        c = p.crit
        n = min(c.batch, c.max_matches)
        while True:
            if all(i in p.results for i in range(n)):
                wins = sum(win_value(p.results[i], self.config.ties) for i in range(n))
                v = decide(wins, n, c.threshold, c.min_matches, c.max_matches, c.confidence)
                if v.status != "open":
                    p.verdict = v
                    return []
                n = min(n + c.batch, c.max_matches)
                continue
            missing = [i for i in range(n) if i not in p.results and i not in p.issued]
            p.issued.update(missing)
            return [criterion_job(self.config, p.purpose, c, p.name, p.spec, i, self.limits) for i in missing]

    def _tasks(self, jobs: list[MatchJob]) -> list[list[MatchJob]]:
        return [jobs[i:i + self.task_size] for i in range(0, len(jobs), self.task_size)]

    def first_tasks(self) -> list[list[MatchJob]]:
        """The tasks to start with: each criterion's next batch, the legal-play and tournament matches."""
        tasks = []
        for p in self.progress.values():
            tasks += self._tasks(self._advance(p))
        # One submission's matches together, so a worker reuses its loaded strategy.
        by_subject: dict[str, list[MatchJob]] = {}
        for j in self._fixed:
            by_subject.setdefault(str(j.meta["subject"]), []).append(j)
        for jobs in by_subject.values():
            tasks += self._tasks(jobs)
        self._fixed = []
        return tasks

    def on_done(self, outcomes: list[MatchOutcome]) -> list[list[MatchJob]]:
        """Store a finished task's matches; return the tasks that became due."""
        touched = []
        for o in outcomes:
            m = o.meta
            if self.store.add_match(o.key, m["purpose"], m["subject"], int(m["idx"]), int(m["seed"]),
                                    list(m["names"]), outcome_for_store(o)):
                self.done += 1
            p = self.progress.get((m["purpose"], m["subject"]))
            if p is not None:
                p.results[int(m["idx"])] = winner_of(o.to_dict(), int(m["seat"]))
                touched.append(p)
        tasks = []
        for p in dict.fromkeys(touched):
            tasks += self._tasks(self._advance(p))
        if self.on_match is not None:
            self.on_match(self.done, self.expected())
        return tasks

    def run(self, workers: int = 0, cluster: str | None = None, dask_workers: int = 2) -> None:
        """Play until every criterion is decided and every fixed match is stored."""
        first = self.first_tasks()
        if self.on_match is not None:
            self.on_match(self.done, self.expected())
        drive(first, self.on_done, workers=workers or (os.cpu_count() or 1), cluster=cluster,
              dask_workers=dask_workers)
