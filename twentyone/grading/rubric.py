"""Who won a match, what a tie counts, and the one rule that decides a win-rate criterion.

Both sides of grading use these: ``grader`` to know which matches to play next, ``scoring`` to turn
the stored matches into points.  So the score never depends on who computed it, nor on the order in
which matches finished.  A criterion is decided by the sequential test (``grading.sequential``, after every seed)
or, under ``rule = "looks"``, by the Wilson interval batch by batch (RULES.md, **grade_decision**).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from twentyone.grading.config import WinRate
from twentyone.grading.outcome import MatchOutcome
from twentyone.grading.sequential import UNIT, SequentialTest, Step
from twentyone.grading.stats import Decision, Verdict, decide, lower_tail_bound, wilson

__all__ = ["Result", "pair_result", "winner_of", "faulted_in", "win_value", "Judgement", "judge_batches",
           "judge_sequential", "SequentialMemo", "judge_looks", "fault_run", "early_fail_most", "fewest_counted",
           "win_step", "ASK"]


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
    if faulted_in(outcome, seat):
        return Result.LOSS
    return pair_result(False, outcome.faults[j] is not None, outcome.ranks[i], outcome.ranks[j])


def faulted_in(outcome: MatchOutcome, seat: int) -> bool:
    """True when the player at ``seat`` faulted in the match (a time-out, crash or error: RULES.md, **grade_faults**)."""
    return outcome.faults[seat - 1] is not None


def win_value(result: Result, ties: str) -> float:
    """What a result counts for in a win rate: a tie is half a win (``ties = "half"``) or a loss."""
    if result == Result.WIN:
        return 1.0
    return 0.5 if result == Result.TIE and ties == "half" else 0.0


def win_step(ties: str) -> float:
    """The smallest step between two win counts: 0.5 when a tie counts half (``win_value``), else 1."""
    return 0.5 if ties == "half" else 1.0


@dataclass
class Judgement:
    """Where a criterion stands: its verdict (None before a whole batch), how the interval narrowed,
    and how many matches the next look needs."""

    verdict: Verdict | None
    #: (matches, rate, low, high) after each whole batch.
    running: list[tuple[int, float, float, float]] = field(default_factory=list)
    #: The matches 0 .. needed-1 the next look needs (meaningless once decided).
    needed: int = 0
    #: When the verdict came before its look: the look (a number of matches) whose result no later match
    #: could change any more; 0 when a look itself decided.
    settled_at: int = 0
    #: When the verdict is a fail by the run of faults that opened the criterion (RULES.md, **grade_faults**):
    #: that run's length, so the first ``fault_run`` matches; else 0.
    by_faults: int = 0
    #: True when the verdict is a fail at, or settled by, an early look (RULES.md, **grade_early_fail**).
    early: bool = False
    #: The sequential test's last step (``rule = "sequential"``), None under the looks or before a whole unit.
    step: Step | None = None

    @property
    def decided(self) -> bool:
        """True once no more matches are played for the criterion."""
        return self.verdict is not None and self.verdict.status != Decision.OPEN


def fault_run(crit: WinRate) -> int:
    """The length of a run of faulted matches that fails ``crit`` at its start (RULES.md, **grade_faults**): the
    fewest n with (1 - threshold)^n below the one-sided error of the Wilson interval, (1 - confidence) / 2.  A
    faulted match is lost, and a submission that wins (a tie counting half) at least the threshold's share of
    its matches loses each of them with a chance of at most 1 - threshold, so it loses all of its first n less
    often than that.  0 when no run shorter than the criterion's first look (the looks), or than its maximum (the
    sequential test), would do."""
    alpha = (1.0 - crit.confidence) / 2.0
    lose = 1.0 - crit.threshold
    first_look = _next_look(0, crit) if crit.rule == "looks" else crit.max_matches
    n = 1
    while n < first_look:
        if lose ** n < alpha:
            return n
        n += 1
    return 0


def _next_look(n: int, crit: WinRate) -> int:
    """The first look (a whole number of batches, or the maximum) at or after ``n`` matches, and at or after
    ``min_matches``: the first at which the decision rule can pass or fail."""
    look = min(crit.batch, crit.max_matches)
    while look < max(n, crit.min_matches) and look < crit.max_matches:
        look = min(look + crit.batch, crit.max_matches)
    return look


@lru_cache(maxsize=4096)
def _bounds(m: int, threshold: float, confidence: float, step: float) -> tuple[float, float]:
    """(most wins of ``m`` whose interval lies wholly below ``threshold``, fewest wins whose interval lies wholly
    above it), counted in steps of ``step`` (half a win when a tie counts half); -1 and ``m + 1`` when none."""
    units = round(m / step)

    def first(ok: Callable[[int], bool]) -> int:  # the first unit count t (0..units) with ok(t), or units + 1
        lo, hi = 0, units + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    below = first(lambda t: not wilson(t * step, m, confidence)[2] < threshold) - 1
    above = first(lambda t: wilson(t * step, m, confidence)[1] > threshold)
    return (below * step if below >= 0 else -1.0), (above * step if above <= units else m + 1.0)


@lru_cache(maxsize=1024)
def early_fail_most(look: int, threshold: float, error: float, step: float) -> float:
    """The most wins (in steps of ``step``) of ``look`` matches that fail an early look (RULES.md,
    **grade_early_fail**): those that a submission winning ``threshold`` of its matches reaches or falls below
    with a chance under ``error`` by the Chernoff-Hoeffding bound; -1 when none."""
    most = -1.0
    t = 0
    while t * step < look * threshold and lower_tail_bound(t * step, look, threshold) < error:
        most = t * step
        t += 1
    return most


def _fails_early(wins: float, k: int, crit: WinRate, ties: str) -> bool:
    """True when ``k`` is an early look and ``wins`` of ``k`` fail it (RULES.md, **grade_early_fail**)."""
    return (k in crit.early_looks and k < crit.min_matches
            and wins <= early_fail_most(k, crit.threshold, crit.early_error, win_step(ties)))


def _settled(wins: float, k: int, crit: WinRate, ties: str) -> tuple[Decision, int, bool] | None:
    """After the first ``k`` matches (``wins`` won), the verdict of the first look that will decide whatever the
    matches still to play before it give: (verdict, that look, whether it is an early look), else None.  An
    early look can only fail, and every early look comes before the first ordinary one."""
    step = win_step(ties)
    for e in crit.early_looks:
        if k < e < crit.min_matches and wins + (e - k) <= early_fail_most(e, crit.threshold, crit.early_error, step):
            return Decision.FAIL, e, True
    look = _next_look(k, crit)
    if k >= look:
        return None
    fail_most, pass_least = _bounds(look, crit.threshold, crit.confidence, step)
    if wins + (look - k) <= fail_most:
        return Decision.FAIL, look, False
    if wins >= pass_least:
        return Decision.PASS, look, False
    return None


#: Matches asked for at a time past those in hand under the sequential test: a criterion decided meanwhile plays
#: none of those not yet started (``grader.wanted``), so it plays at most a task's worth past its verdict.
ASK = 10
#: Under the sequential test, ``Judgement.running`` notes the rate and its interval every so many matches.
RUNNING_EVERY = 10


def judge_batches(results: Mapping[int, Result], crit: WinRate, ties: str,
                  faulted: Container[int] = frozenset(), memo: SequentialMemo | None = None) -> Judgement:
    """Apply the decision rule of ``crit`` (RULES.md, **grade_decision**) to the results of matches 0, 1, 2 ...: the
    sequential test (``judge_sequential``) or the looks (``judge_looks``).  ``verdicts.worded`` says it in words."""
    if crit.rule == "sequential":
        return judge_sequential(results, crit, ties, faulted, memo)
    return judge_looks(results, crit, ties, faulted)


@dataclass
class SequentialMemo:
    """Where ``judge_sequential`` stopped on a criterion's results, so that the next call, with more results, goes on
    from there instead of from match 0 (the grader judges a criterion after every task: from 0 each time, that was
    quadratic in its matches).  ``seen`` holds each match's (value, faulted) as used, to check they are unchanged."""

    seen: list[tuple[float, bool]] = field(default_factory=list)
    wins: float = 0.0
    unit: float = 0.0
    test: SequentialTest | None = None
    running: list[tuple[int, float, float, float]] = field(default_factory=list)
    step: Step | None = None


def judge_sequential(results: Mapping[int, Result], crit: WinRate, ties: str,
                     faulted: Container[int] = frozenset(), memo: SequentialMemo | None = None) -> Judgement:
    """The sequential test (``grading.sequential``) on the results of matches 0, 1, 2 ... in index order, one seed
    (``UNIT`` matches) at a time: pass or fail as soon as a bet reaches its bar, borderline at ``max_matches``.  A
    criterion whose first ``fault_run`` matches the submission all faulted in fails there (``Judgement.by_faults``;
    RULES.md, **grade_faults**).  ``memo``: kept by the caller between calls on the same criterion's growing results;
    the judgement is the same with it as without."""
    j = Judgement(None)
    run = fault_run(crit)
    m = memo if memo is not None else SequentialMemo()
    k = len(m.seen)
    if m.test is None or any(i not in results or (win_value(results[i], ties), i in faulted) != m.seen[i]
                             for i in range(k)):
        m.seen, m.wins, m.unit, m.running, m.step, k = [], 0.0, 0.0, [], None, 0
        m.test = SequentialTest(crit.threshold, crit.zone, crit.pass_error, crit.fail_error)
    test = m.test
    while k < crit.max_matches and k in results:
        value = win_value(results[k], ties)
        m.seen.append((value, k in faulted))
        m.wins += value
        m.unit += value
        k += 1
        if k == run and all(i in faulted for i in range(run)):
            j.verdict = Verdict(Decision.FAIL, k, *wilson(m.wins, k, crit.confidence))
            j.needed, j.by_faults = k, k
            j.running, j.step = list(m.running), m.step
            m.test = None  # decided: a later call judges from match 0 again
            return j
        if k % UNIT:
            continue
        m.step = test.add(m.unit / UNIT)
        m.unit = 0.0
        if m.step.verdict or k % RUNNING_EVERY == 0:
            m.running.append((k, *wilson(m.wins, k, crit.confidence)))
        if m.step.verdict:
            j.verdict = Verdict(Decision(m.step.verdict), k, *wilson(m.wins, k, crit.confidence))
            j.needed = k
            j.running, j.step = list(m.running), m.step
            m.test = None
            return j
    j.running, j.step = list(m.running), m.step
    if k >= crit.max_matches:
        j.verdict = Verdict(Decision.BORDERLINE, k, *wilson(m.wins, k, crit.confidence))
        if not j.running or j.running[-1][0] != k:
            j.running.append((k, j.verdict.rate, j.verdict.low, j.verdict.high))
        j.needed = k
        return j
    j.verdict = Verdict(Decision.OPEN, k, *wilson(m.wins, k, crit.confidence)) if k else None
    j.needed = min(crit.max_matches, k - k % UNIT + ASK)
    return j


def judge_looks(results: Mapping[int, Result], crit: WinRate, ties: str,
                faulted: Container[int] = frozenset()) -> Judgement:
    """Apply the looks (``rule = "looks"``: RULES.md, **grade_decision_looks**) to the results of matches 0, 1, 2 ...

    Whole batches only, in index order: after each batch the Wilson interval passes, fails, or asks for
    the next batch, up to the maximum where it is borderline.  A criterion already decided stops early: when,
    after the first k matches in index order, the next look that can decide would pass (or fail) whatever the
    matches before it give, that is the verdict, over those k matches (``Judgement.settled_at`` names the
    look).  The points are the same as the look's; only the matches no result could matter to are not played.
    And a criterion whose first ``fault_run`` matches the submission all faulted in (``faulted``: their indices)
    fails there (``Judgement.by_faults``; RULES.md, **grade_faults**).  Before ``min_matches``, each of
    ``crit.early_looks`` fails the criterion when a submission at the threshold would do as badly with a chance
    below ``crit.early_error``, and settles a fail the same way (``Judgement.early``; RULES.md, **grade_early_fail**).
    """
    j = Judgement(None)
    run = fault_run(crit)
    n = min(crit.batch, crit.max_matches)
    wins = 0.0
    k = 0
    while True:
        while k < n and k in results:
            wins += win_value(results[k], ties)
            k += 1
            if k == run and all(i in faulted for i in range(run)):
                j.verdict = Verdict(Decision.FAIL, k, *wilson(wins, k, crit.confidence))
                j.needed, j.by_faults = k, k
                return j
            if _fails_early(wins, k, crit, ties):
                j.verdict = Verdict(Decision.FAIL, k, *wilson(wins, k, crit.confidence))
                j.needed, j.early = k, True
                return j
            settled = _settled(wins, k, crit, ties)
            if settled is not None:
                rate, low, high = wilson(wins, k, crit.confidence)
                j.verdict = Verdict(settled[0], k, rate, low, high)
                j.needed, j.settled_at, j.early = k, settled[1], settled[2]
                return j
        if k < n:
            break
        j.verdict = decide(wins, n, crit.threshold, crit.min_matches, crit.max_matches, crit.confidence)
        j.running.append((n, j.verdict.rate, j.verdict.low, j.verdict.high))
        if j.verdict.status != Decision.OPEN:
            j.needed = n
            return j
        n = min(n + crit.batch, crit.max_matches)
    j.needed = n
    return j


def fewest_counted(crit: WinRate, ties: str) -> int:
    """The fewest matches a verdict of ``crit`` can use (``judge_batches``): that of a submission that loses every
    match, or wins every one, or faults in every one, whichever is decided first.  The report counts a criterion's matches up to its
    verdict's only, so an incident in a match of lower index counts against legal play whatever comes next."""
    def every(r: Result) -> int:
        v = judge_batches(dict.fromkeys(range(crit.max_matches), r), crit, ties).verdict
        return v.matches if v is not None else crit.max_matches
    return min(every(Result.LOSS), every(Result.WIN), fault_run(crit) or crit.max_matches)
