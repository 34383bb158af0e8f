"""The operating characteristic of the win-rate decision rules, by simulation (GRADING.md, "How a win rate is decided").

Run as ``python -m tests.oc [--runs N]``: for each criterion of the default configuration and each true win rate of
GRADING.md's tables, ``runs`` submissions are simulated (each match won with the rate's chance and lost otherwise,
independently: with no ties, the widest spread a rate can have) and judged by the real rule
(``rubric.judge_batches``), under the sequential test and under the looks it replaced.  Printed: the share that
gets the criterion's points (a pass, or a borderline verdict at or above the threshold: the ``estimate`` rule) and
the mean number of matches counted, each with its standard error.  ``tests/test_rulings.py`` holds the sequential
test to the figures GRADING.md shows.
"""

from __future__ import annotations

import argparse
import math
import random
from dataclasses import dataclass, replace

from twentyone.grading.config import GradingConfig, WinRate
from twentyone.grading.rubric import Result, judge_batches
from twentyone.grading.stats import Decision

__all__ = ["RATES", "Operating", "operating", "looks", "main"]

#: The true win rates of GRADING.md's tables, by criterion.
RATES = {"beat_stand": (0.85, 0.88, 0.89, 0.90, 0.92), "beat_basic": (0.55, 0.56, 0.60, 0.64, 0.65)}


@dataclass(frozen=True)
class Operating:
    """What ``runs`` simulated submissions at one true rate got: the share given the points and the mean matches."""

    rate: float
    runs: int
    points: float
    matches: float
    matches_sd: float

    @property
    def points_se(self) -> float:
        """The standard error of ``points``."""
        return math.sqrt(max(self.points * (1 - self.points), 1e-12) / self.runs)

    @property
    def matches_se(self) -> float:
        """The standard error of ``matches``."""
        return self.matches_sd / math.sqrt(self.runs)


def looks(crit: WinRate) -> WinRate:
    """``crit`` decided by the looks (the rule before issue 33), with its defaults."""
    return replace(crit, rule="looks")


def operating(crit: WinRate, rate: float, runs: int, seed: str = "oc", ties: str = "half") -> Operating:
    """Simulate ``runs`` submissions that win each match with chance ``rate`` (lose it otherwise) against ``crit``."""
    rng = random.Random(f"{seed}:{crit.rule}:{crit.opponent}:{rate}")
    got = 0
    counted: list[int] = []
    for _ in range(runs):
        results = {i: Result.WIN if rng.random() < rate else Result.LOSS for i in range(crit.max_matches)}
        v = judge_batches(results, crit, ties).verdict
        if v is None or v.status == Decision.OPEN:
            raise AssertionError(f"no verdict after {crit.max_matches} matches")
        got += v.status == Decision.PASS or (v.status == Decision.BORDERLINE and v.rate >= crit.threshold)
        counted.append(v.matches)
    mean = sum(counted) / runs
    sd = math.sqrt(sum((m - mean) ** 2 for m in counted) / max(1, runs - 1))
    return Operating(rate, runs, got / runs, mean, sd)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=4000, help="simulated submissions per rate (default 4000)")
    args = p.parse_args(argv)
    g = GradingConfig()
    for name, crit in g.win_criteria().items():
        print(f"{name} ({crit.threshold:.0%} against {crit.opponent}), {args.runs} runs a rate:")
        print("| true rate | points, looks | points, sequential | matches, looks | matches, sequential |")
        print("| --- | --- | --- | --- | --- |")
        for rate in RATES[name]:
            old, new = operating(looks(crit), rate, args.runs), operating(crit, rate, args.runs)
            print(f"| {rate:.2f} | {old.points:.3f} +- {old.points_se:.3f} | {new.points:.3f} +- {new.points_se:.3f} | "
                  f"{old.matches:.0f} +- {old.matches_se:.0f} | {new.matches:.0f} +- {new.matches_se:.0f} |",
                  flush=True)
        for label, r in (("every match tied", Result.TIE), ("every match won", Result.WIN),
                         ("every match lost", Result.LOSS)):
            got = [judge_batches(dict.fromkeys(range(c.max_matches), r), c, g.ties).verdict for c in (looks(crit), crit)]
            shown = [str(v.matches) if v else "-" for v in got]
            print(f"| {label} | | | {shown[0]} | {shown[1]} |")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
