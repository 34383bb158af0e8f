"""Grade a class: plan the rubric's matches, play them (resumably), and score every submission.

The course rubric (RULES.md, "Grading") in four parts:

- **legal play** over every match a submission plays: any foul, crash, time-out or compile failure is
  an incident, reported with its round-log excerpt;
- **beats stand** and **beats basic**: 2-seat matches against the built-in players, the win rate with a
  Wilson 95% interval, played in batches until the interval excludes the threshold or the maximum is
  reached (then the result is *borderline*);
- **class tournament** bonus by rank.

Fairness: every submission plays the same seeds (so the same shoes: duplicate format), and the seats
alternate: in match i the submission sits at seat 1 when i is even, at seat 2 when i is odd.
A match counts as a win when the submission ranks above its opponent, a tie when they share the rank
(counted as ``ties`` in the configuration says: half a win by default), and a loss otherwise; a match in
which the submission faulted (crash, time-out, forbidden call) is a loss whatever the money says.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twentyone.runner import MatchJob, MatchOutcome, run_jobs

__all__ = ["Plan", "match_key", "winner_of", "criterion_jobs", "tournament_jobs"]

OPPONENTS = {"beat_stand": "stand", "beat_basic": "basic"}


def match_key(purpose: str, submission: str, opponent: str, seed: int, seat: int) -> str:
    """The deterministic key of a match: the same match always has the same key (for --resume)."""
    return f"{purpose}|{submission}|{opponent}|{seed}|{seat}"


def winner_of(outcome: MatchOutcome, sub_seat: int) -> str:
    """'submission', 'opponent' or 'tie' for a 2-seat outcome, the submission at ``sub_seat``."""
    i, j = sub_seat - 1, 2 - sub_seat
    if outcome.error is not None or outcome.faults[i] is not None:
        return "opponent"
    if outcome.faults[j] is not None:
        return "submission"
    if outcome.ranks[i] < outcome.ranks[j]:
        return "submission"
    if outcome.ranks[i] > outcome.ranks[j]:
        return "opponent"
    return "tie"


def criterion_jobs(purpose: str, name: str, spec: str, start: int, count: int, seed: int, decks: int,
                   limits: dict[str, Any] | None, capture_dir: str | None) -> list[MatchJob]:
    """Matches ``start .. start+count-1`` of a beat-X criterion: same seeds for everyone, seats alternate."""
    opponent = OPPONENTS[purpose]
    jobs = []
    for i in range(start, start + count):
        s = seed + i
        sub_seat = 1 if i % 2 == 0 else 2
        specs = (spec, opponent) if sub_seat == 1 else (opponent, spec)
        meta = {"purpose": purpose, "submission": name, "opponent": opponent, "seed": s, "seat": sub_seat,
                "index": i}
        jobs.append(MatchJob(match_key(purpose, name, opponent, s, sub_seat), specs, s, decks,
                             limits=limits, capture_dir=capture_dir, meta=meta))
    return jobs


def tournament_jobs(entries: list[tuple[str, str]], matches: int, seed: int, decks: int,
                    limits: dict[str, Any] | None, capture_dir: str | None) -> list[MatchJob]:
    """Round robin of 2-seat matches between every pair, ``matches`` per pair, seats alternating."""
    jobs = []
    for a in range(len(entries)):
        for b in range(a + 1, len(entries)):
            (na, sa), (nb, sb) = entries[a], entries[b]
            for i in range(matches):
                s = seed + i
                first = i % 2 == 0
                specs = (sa, sb) if first else (sb, sa)
                meta = {"purpose": "tournament", "submission": na, "opponent": nb, "seed": s,
                        "seat": 1 if first else 2, "index": i}
                jobs.append(MatchJob(match_key("tournament", na, nb, s, 1 if first else 2), specs, s, decks,
                                     limits=limits, capture_dir=capture_dir, meta=meta))
    return jobs


@dataclass
class Plan:
    """Where and how the matches run."""

    workers: int = 0
    batch: int = 8
    cluster: str | None = None
    dask_workers: int = 2

    def run(self, jobs: list[MatchJob], done: Callable[[MatchOutcome], None]) -> None:
        """Play ``jobs`` and hand each outcome to ``done`` as it arrives."""
        for outcome in run_jobs(jobs, self.workers, self.batch, self.cluster, self.dask_workers):
            done(outcome)


def outcome_row(outcome: MatchOutcome, run_id: str) -> dict[str, Any]:
    """A 2-seat outcome as the store's match row, seen from the submission."""
    m = outcome.meta
    seat = int(m["seat"])
    i, j = seat - 1, 2 - seat
    incidents = [
        {"round": inc["round"], "foul": inc["foul"], "excerpt": json.dumps(inc["record"], ensure_ascii=False)}
        for inc in outcome.incidents if inc["seat"] == seat
    ]
    if outcome.error is not None:
        incidents.append({"round": 0, "foul": "error", "excerpt": outcome.error})
    elif outcome.faults[i] is not None:
        incidents.append({"round": outcome.seat_rounds[i], "foul": outcome.faults[i],
                          "excerpt": outcome.fault_details[i]})
    return {
        "match_key": outcome.key, "run_id": run_id, "submission": m["submission"], "opponent": m["opponent"],
        "purpose": m["purpose"], "seed": int(m["seed"]), "seat_of_submission": seat,
        "winner": winner_of(outcome, seat),
        "submission_account": outcome.accounts[i] if outcome.accounts else 0,
        "opponent_account": outcome.accounts[j] if outcome.accounts else 0,
        "rounds": outcome.rounds,
        "fouls_json": json.dumps(outcome.fouls), "incidents_json": json.dumps(incidents, ensure_ascii=False),
        "bankroll_json": json.dumps([[h[i], h[j]] for h in outcome.bankroll]),
        "finished_at": time.time(),
    }


def win_count(winners: Iterable[str], ties: str = "half") -> tuple[float, int]:
    """(wins, matches) where a tie counts half a win (``ties='half'``) or nothing (``'loss'``)."""
    wins = 0.0
    n = 0
    for w in winners:
        n += 1
        if w == "submission":
            wins += 1
        elif w == "tie" and ties == "half":
            wins += 0.5
    return wins, n


def default_workdir(out: Path) -> Path:
    """Where unpacked submissions and captured output go."""
    return out / "work"
