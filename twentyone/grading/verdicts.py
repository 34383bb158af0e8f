"""A win-rate criterion's verdict in words: one short sentence a student understands, and why, with the statistics.

``worded`` fills ``Verdict.summary`` (the sentence: what was decided, after how many matches, and the rate) and
``Verdict.why`` (the counts, the interval, the rule that decided and the error it allows).  The report shows the
sentence and links the why (issue 34, item 5).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from twentyone.grading.config import WinRate
from twentyone.grading.rubric import Judgement, Result, early_fail_most, win_step
from twentyone.grading.sequential import UNIT
from twentyone.grading.stats import Decision, Verdict

__all__ = ["worded", "pct", "chance"]


def pct(x: float) -> str:
    """A rate as a percentage with one decimal: 0.891 -> '89.1%'."""
    return f"{100 * x:.1f}%"


def chance(p: float) -> str:
    """A small probability as a reader takes it in: 1%, 0.1%, 1 in 10,000 ..."""
    return f"{100 * p:.2g}%" if p >= 0.001 else f"1 in {round(1 / p):,}"


def _fold(log_wealth: float) -> str:
    """A bet's wealth (given as its logarithm) as a multiple of its stake: '33-fold', '0.41 of its stake'."""
    w = math.exp(log_wealth)
    return f"{w:,.0f}-fold" if w >= 9.5 else f"{w:.2g}-fold" if w >= 1 else f"to {w:.2g} of its stake"


#: After "so no more count": what became of the matches past a verdict.
_NOT_COUNTED = ": they are not played, and any already playing are stored but not counted."


def worded(j: Judgement, crit: WinRate, used: Sequence[Result], ties: str, borderline: str = "estimate") -> Verdict:
    """``j.verdict`` with its ``summary`` and ``why``: ``used`` are the results of the matches it counts (in index
    order), ``ties`` how a tie counts, ``borderline`` the configuration's rule for the points of a borderline
    verdict."""
    v = j.verdict
    if v is None:
        raise ValueError("no verdict to word: no match counted yet")
    c = Counter(used)
    against = f"against {crit.opponent}"
    line = f"the {100 * crit.threshold:g}% line"
    n = v.matches
    if j.by_faults:
        summary = f"Failed after its first {n} matches {against}: it crashed, timed out or erred in each."
    elif v.status == Decision.PASS:
        summary = f"Passed after {n} matches {against}: it won {pct(v.rate)} of them, enough to show it reaches {line}."
    elif v.status == Decision.FAIL:
        summary = (f"Failed after {n} matches {against}: it won {pct(v.rate)} of them, enough to show it falls "
                   f"short of {line}.")
    elif v.status == Decision.BORDERLINE:
        passed = borderline == "pass" or (borderline == "estimate" and v.rate >= crit.threshold)
        summary = (f"Borderline: after all {n} matches {against} it won {pct(v.rate)}, too close to {line} to be "
                   f"sure; {'the points are given' if passed else 'no points'}"
                   + (f" (it won {'at least' if passed else 'less than'} {100 * crit.threshold:g}%)."
                      if borderline == "estimate" else f" (a borderline result counts as a {borderline})."))
    else:
        summary = f"Not decided yet: {n} matches {against} so far."
    ties_rule = "a tie counts half" if ties == "half" else "a tie counts as a loss"
    why = (f"Won {c[Result.WIN]}, tied {c[Result.TIE]}, lost {c[Result.LOSS]} of {n} matches {against} ({ties_rule}): "
           f"{pct(v.rate)}, {crit.confidence:.0%} CI {pct(v.low)}-{pct(v.high)}; threshold {pct(crit.threshold)}: "
           f"{v.status}. ")
    if j.by_faults:
        why += (f"Decided after its first {n} matches: it faulted in each, and a submission that wins "
                f"{pct(crit.threshold)} of its matches loses {n} in a row at most {chance((1 - crit.threshold) ** n)} "
                f"of the time (RULES.md, grade_faults), so no more count" + _NOT_COUNTED)
    elif crit.rule == "sequential":
        why += _sequential_why(j, crit, v)
    else:
        why += _looks_why(j, crit, v, ties)
    if v.status == Decision.BORDERLINE:
        why += (f" Points by the '{borderline}' rule"
                + (": awarded when the rate reaches the threshold." if borderline == "estimate" else "."))
    return replace(v, summary=summary, why=why.rstrip())


def _sequential_why(j: Judgement, crit: WinRate, v: Verdict) -> str:
    """Why the sequential test (RULES.md, grade_decision) gave ``v``."""
    low, high = crit.threshold - crit.zone, crit.threshold + crit.zone
    zone = f"{100 * crit.zone:g} points"
    bars = (f"a bet that the rate is above {pct(low)} (the threshold less {zone}) and one that it is below "
            f"{pct(high)} (the threshold plus {zone}), settled after every seed ({UNIT} matches, one from each seat)")
    step = j.step
    if v.status == Decision.PASS and step is not None:
        return (f"Decided by the sequential test (RULES.md, grade_decision): {bars}. The first grew "
                f"{_fold(step.log_pass)}, past the {1 / crit.pass_error:,.0f}-fold that passes: a submission that "
                f"wins {pct(low)} of its matches or fewer gets there at most {chance(crit.pass_error)} of the time. "
                f"Matches past the verdict do not count" + _NOT_COUNTED)
    if v.status == Decision.FAIL and step is not None:
        return (f"Decided by the sequential test (RULES.md, grade_decision): {bars}. The second grew "
                f"{_fold(step.log_fail)}, past the {1 / crit.fail_error:,.0f}-fold that fails: a submission that "
                f"wins {pct(high)} of its matches or more gets there at most {chance(crit.fail_error)} of the time. "
                f"Matches past the verdict do not count" + _NOT_COUNTED)
    if v.status == Decision.BORDERLINE:
        where = (f" (the first stood at {_fold(step.log_pass)} of the {1 / crit.pass_error:,.0f}-fold that passes, "
                 f"the second at {_fold(step.log_fail)} of the {1 / crit.fail_error:,.0f}-fold that fails)"
                 if step is not None else "")
        return (f"The sequential test (RULES.md, grade_decision), {bars}, had reached neither mark after the maximum "
                f"of {crit.max_matches} matches{where}: borderline.")
    return f"The sequential test (RULES.md, grade_decision): {bars}; neither has reached its mark yet."


def _looks_why(j: Judgement, crit: WinRate, v: Verdict, ties: str) -> str:
    """Why the looks (``rule = "looks"``: RULES.md, grade_decision_looks and grade_early_fail) gave ``v``."""
    if j.early:
        look = j.settled_at or v.matches
        most = (early_fail_most(look, crit.threshold, crit.early_error, win_step(ties))
                if j.settled_at else v.rate * v.matches)
        return (f"Decided after {v.matches} matches by the early look at {look}: "
                + ("whatever the matches up to it give, " if j.settled_at else "")
                + f"it wins at most {most:g} of {look}, and a submission that wins {pct(crit.threshold)} of its "
                f"matches wins so few at most {chance(crit.early_error)} of the time; an early look can only fail"
                + (", so no more count" + _NOT_COUNTED if j.settled_at else "."))
    if j.settled_at:
        return (f"Decided after {v.matches} matches: whatever the matches up to {j.settled_at} gave, the interval at "
                f"{j.settled_at} would {'pass' if v.status == Decision.PASS else 'fail'}, so no more count"
                + _NOT_COUNTED)
    if v.status == Decision.BORDERLINE:
        return f"The interval still holds the threshold after the maximum of {crit.max_matches} matches."
    return f"Decided by the interval after {v.matches} matches (RULES.md, grade_decision_looks)."
