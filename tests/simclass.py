"""A class of traced submissions for the similarity benchmark: varied strategies, some handed in twice.

``traced_class(n)`` plays, in this process, the traced matches ``grade`` plays (the first
``similarity.traces`` against ``stand``) for ``n`` Python strategies drawn from 7,560 (``Variant``: where
to stand, hard and soft, what to double against which cards, surrender, insurance, a bet rule); every
fifth student hands in a copy of an earlier one.  Distinct strategies are played once
(a copy's traces are the same), so 200 students take well under a minute.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from twentyone.grading.config import GradingConfig
from twentyone.grading.plan import criterion_job
from twentyone.grading.runner import play_job
from twentyone.grading.similarity.traces import TraceRound
from twentyone.grading.similarity.tracer import Tracer, reference_family
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.sandbox.limits import Limits
from twentyone.records import SeatView
from twentyone.rules import COURSE
from twentyone.strategy import Strategy

__all__ = ["Variant", "traced_class", "traced_overhead"]


class Variant(Strategy):
    """One generated student: hit below ``stand_at`` (soft hands below ``soft_at``), double ``doubles`` against
    ``weak`` up cards, surrender 16 (and 15 with ``surrender`` 2) against a ten, insure on a high count, and a
    bet rule: flat 10 or 20, a count ramp, more after a win (streak) or double after a loss (martingale)."""

    def __init__(self, stand_at: int, soft_at: int, doubles: str, weak: str, surrender: int, insure: bool,
                 bet: str) -> None:
        self.stand_at, self.soft_at, self.doubles, self.weak = stand_at, soft_at, doubles, weak
        self.surrender, self.insure, self.betting = surrender, insure, bet
        self.name = f"hit<{stand_at}/{soft_at} d{doubles or '-'}v{weak} u{surrender} i{int(insure)} {bet}"

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        self.count, self.last_pos, self.last_money, self.streak, self.stake = 0, 0, 0, 0, 10

    def show(self, view: SeatView) -> None:
        if view.pos < self.last_pos:
            self.count = 0
        self.last_pos = view.pos
        self.count += sum(1 if c in "23456" else -1 if c in "TJQKA" else 0 for c in view.round_cards())

    def bet(self, view: SeatView) -> int:
        won = bool(self.last_money) and view.account > self.last_money
        lost = bool(self.last_money) and view.account < self.last_money
        self.streak = self.streak + 1 if won else 0
        self.last_money = view.account
        if self.betting == "ramp":
            return max(10, 10 * self.count // 6)
        if self.betting == "streak":
            return 10 + 10 * min(self.streak, 2)
        if self.betting == "martingale":
            self.stake = min(self.stake * 2, 160) if lost else 10
            return self.stake
        return 20 if self.betting == "flat20" else 10

    def first_action(self, view: SeatView) -> str:
        up = "T" if view.up_card in "JQK" else view.up_card
        t = view.total
        if self.insure and view.can_insure and self.count > 8:
            return "i"
        if view.can_double and str(t) in self.doubles.split(",") and up in self.weak:
            return "d"
        if view.can_surrender and up == "T" and not view.soft and (t == 16 or (t == 15 and self.surrender == 2)) \
                and self.surrender:
            return "u"
        return self.continue_action(view)

    def continue_action(self, view: SeatView) -> str:
        return "h" if view.total < (self.soft_at if view.soft else self.stand_at) else "s"


def _variants(n: int) -> list[Variant]:
    kinds = list(itertools.product(range(12, 19), (17, 18, 19), ("", "11", "10,11", "9,10,11"),
                                   ("23456", "3456", "23456789T"),
                                   (0, 1, 2), (False, True), ("flat", "flat20", "ramp", "streak", "martingale")))
    return [Variant(*k) for k in random.Random(2026).sample(kinds, n)]


def traced_class(n: int, config: GradingConfig | None = None) -> dict[str, dict[tuple[int, int], list[TraceRound]]]:
    """The traces of ``n`` students (``student001`` ...), by match (seed, seat)."""
    config = config or GradingConfig(seed=2026)
    variants = _variants(n)
    out: dict[str, dict[tuple[int, int], list[TraceRound]]] = {}
    for k in range(n):
        name = f"student{k + 1:03d}"
        if k % 5 == 4:  # a copy of an earlier student's hand-in
            originals = [o for o in out if not any(out[o] is out[p] for p in out if p < o)]
            out[name] = out[originals[(k * 7) % len(originals)]]
            continue
        strategy = variants[k]
        traces: dict[tuple[int, int], list[TraceRound]] = {}
        for i in range(config.similarity.traces):
            job = criterion_job(config, "beat_stand", config.beat_stand, name, "stand", i, None)
            seat = job.info.seat or 1
            tracer = Tracer(strategy, reference_family(COURSE, config.decks))
            seats = [Seating("stand", "stand", Stand()), Seating(name, name, tracer)]
            if seat == 1:
                seats.reverse()
            play_match(seats, config.decks, job.seed)
            traces[(job.seed, seat)] = list(tracer.trace())
        out[name] = traces
    return out


def traced_overhead(spec: str, matches: int, limits: Limits | None = None) -> tuple[float, float]:
    """Seconds per match of ``spec`` against stand, traced and untraced, over the first ``matches`` jobs."""
    import time

    config = GradingConfig(seed=2026)
    jobs = [criterion_job(config, "beat_stand", config.beat_stand, "x", spec, i, limits) for i in range(matches)]
    play_job(jobs[0])  # compile, load and warm the references first
    play_job(replace(jobs[0], trace=False))
    t = time.perf_counter()
    for j in jobs:
        play_job(replace(j, trace=True))
    traced = (time.perf_counter() - t) / matches
    t = time.perf_counter()
    for j in jobs:
        play_job(replace(j, trace=False))
    return traced, (time.perf_counter() - t) / matches
