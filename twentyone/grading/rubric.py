"""Who won a match, what a tie counts, and the one rule that decides a win-rate criterion batch by batch.

Both sides of grading use these: ``grader`` to know which matches to play next, ``scoring`` to turn
the stored matches into points.  So the score never depends on who computed it, nor on the order in
which matches finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from twentyone.grading.config import WinRate
from twentyone.grading.outcome import MatchOutcome
from twentyone.grading.stats import Decision, Verdict, decide

__all__ = ["Result", "pair_result", "winner_of", "win_value", "Judgement", "judge_batches"]


class Result(StrEnum):
    """The result of a match for one player."""

    WIN = "win"
    TIE = "tie"
    LOSS = "loss"


def pair_result(fault_a: bool, fault_b: bool, rank_a: int, rank_b: int) -> Result:
    """The result for player a against player b at one table (RULES.md, **tournament_results**).

    A player who faulted loses to one who did not; two who faulted tie; otherwise the better rank wins
    and an equal rank ties.
    """
    if fault_a != fault_b:
        return Result.LOSS if fault_a else Result.WIN
    if fault_a or rank_a == rank_b:
        return Result.TIE
    return Result.WIN if rank_a < rank_b else Result.LOSS


def winner_of(outcome: MatchOutcome, seat: int) -> Result:
    """The result of a 2-seat match for the player at ``seat``: a match in which it faulted is lost,
    whatever the money says (RULES.md, **grade_win_rates**)."""
    i, j = seat - 1, 2 - seat
    if outcome.faults[i] is not None:
        return Result.LOSS
    return pair_result(False, outcome.faults[j] is not None, outcome.ranks[i], outcome.ranks[j])


def win_value(result: Result, ties: str) -> float:
    """What a result counts for in a win rate: a tie is half a win (``ties = "half"``) or a loss."""
    if result == Result.WIN:
        return 1.0
    return 0.5 if result == Result.TIE and ties == "half" else 0.0


@dataclass
class Judgement:
    """Where a criterion stands: its verdict (None before a whole batch), how the interval narrowed,
    and how many matches the next look needs."""

    verdict: Verdict | None
    #: (matches, rate, low, high) after each whole batch.
    running: list[tuple[int, float, float, float]] = field(default_factory=list)
    #: The matches 0 .. needed-1 the next look needs (meaningless once decided).
    needed: int = 0

    @property
    def decided(self) -> bool:
        """True once no more matches are played for the criterion."""
        return self.verdict is not None and self.verdict.status != Decision.OPEN


def judge_batches(results: Mapping[int, Result], crit: WinRate, ties: str) -> Judgement:
    """Apply the decision rule (RULES.md, **grade_decision**) to the results of matches 0, 1, 2 ...

    Whole batches only, in index order: after each batch the Wilson interval passes, fails, or asks for
    the next batch, up to the maximum where it is borderline.
    """
    j = Judgement(None)
    n = min(crit.batch, crit.max_matches)
    while all(i in results for i in range(n)):
        wins = sum(win_value(results[i], ties) for i in range(n))
        j.verdict = decide(wins, n, crit.threshold, crit.min_matches, crit.max_matches, crit.confidence)
        j.running.append((n, j.verdict.rate, j.verdict.low, j.verdict.high))
        if j.verdict.status != Decision.OPEN:
            j.needed = n
            return j
        n = min(n + crit.batch, crit.max_matches)
    j.needed = n
    return j
