"""A win-rate criterion's verdict in words: one short sentence a student understands, and why, with the statistics.

``worded`` fills ``Verdict.summary`` (the sentence: what was decided, after how many matches, and the rate) and
``Verdict.why`` (the counts, the interval, the rule that decided and the error it allows), in the active language
(they are worded when a report is made, so ``report --lang zh`` words a stored run in Chinese).  The report shows
the sentence and links the why (issue 34, item 5).
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
from twentyone.i18n import _, pgettext

__all__ = ["worded", "pct", "chance"]


def pct(x: float) -> str:
    """A rate as a percentage with one decimal: 0.891 -> '89.1%'."""
    return f"{100 * x:.1f}%"


def chance(p: float) -> str:
    """A small probability as a reader takes it in: 1%, 0.1%, 1 in 10,000 ..."""
    return f"{100 * p:.2g}%" if p >= 0.001 else _("1 in {n:,}").format(n=round(1 / p))


def _fold(log_wealth: float) -> str:
    """A bet's wealth (given as its logarithm) as a multiple of its stake: '33-fold', '0.41 of its stake'."""
    w = math.exp(log_wealth)
    if w >= 9.5:
        return _("{w:,.0f}-fold").format(w=w)
    return _("{w:.2g}-fold").format(w=w) if w >= 1 else _("to {w:.2g} of its stake").format(w=w)


def _status(status: Decision) -> str:
    """A decision's word in the active language (the status a rubric line shows)."""
    return {Decision.PASS: pgettext("status", "pass"), Decision.FAIL: pgettext("status", "fail"),
            Decision.BORDERLINE: pgettext("status", "borderline")}.get(status, str(status))


def _not_counted() -> str:
    """After "so no more count": what became of the matches past a verdict."""
    return _(": they are not played, and any already playing are stored but not counted.")


def worded(j: Judgement, crit: WinRate, used: Sequence[Result], ties: str, borderline: str = "estimate") -> Verdict:
    """``j.verdict`` with its ``summary`` and ``why`` in the active language: ``used`` are the results of the
    matches it counts (in index order), ``ties`` how a tie counts, ``borderline`` the configuration's rule for the
    points of a borderline verdict."""
    v = j.verdict
    if v is None:
        raise ValueError("no verdict to word: no match counted yet")
    c = Counter(used)
    against = _("against {opponent}").format(opponent=crit.opponent)
    line = _("the {threshold:g}% line").format(threshold=100 * crit.threshold)
    n = v.matches
    if j.by_faults:
        summary = _("Failed after its first {n} matches {against}: it crashed, timed out or erred in each.").format(
            n=n, against=against)
    elif v.status == Decision.PASS:
        summary = _("Passed after {n} matches {against}: it won {rate} of them, enough to show it reaches "
                    "{line}.").format(n=n, against=against, rate=pct(v.rate), line=line)
    elif v.status == Decision.FAIL:
        summary = _("Failed after {n} matches {against}: it won {rate} of them, enough to show it falls short of "
                    "{line}.").format(n=n, against=against, rate=pct(v.rate), line=line)
    elif v.status == Decision.BORDERLINE:
        passed = borderline == "pass" or (borderline == "estimate" and v.rate >= crit.threshold)
        if borderline == "estimate":
            rule = (_(" (it won at least {threshold:g}%).") if passed
                    else _(" (it won less than {threshold:g}%).")).format(threshold=100 * crit.threshold)
        else:
            rule = _(" (a borderline result counts as a {rule}).").format(rule=pgettext("status", borderline)
                                                                          if borderline in ("pass", "fail")
                                                                          else borderline)
        summary = (_("Borderline: after all {n} matches {against} it won {rate}, too close to {line} to be sure; "
                     "{points}").format(n=n, against=against, rate=pct(v.rate), line=line,
                                        points=_("the points are given") if passed else _("no points")) + rule)
    else:
        summary = _("Not decided yet: {n} matches {against} so far.").format(n=n, against=against)
    ties_rule = _("a tie counts half") if ties == "half" else _("a tie counts as a loss")
    why = _("Won {wins}, tied {ties}, lost {losses} of {n} matches {against} ({rule}): {rate}, {confidence:.0%} CI "
            "{low}-{high}; threshold {threshold}: {status}. ").format(
        wins=c[Result.WIN], ties=c[Result.TIE], losses=c[Result.LOSS], n=n, against=against, rule=ties_rule,
        rate=pct(v.rate), confidence=crit.confidence, low=pct(v.low), high=pct(v.high),
        threshold=pct(crit.threshold), status=_status(v.status))
    if j.by_faults:
        why += _("Decided after its first {n} matches: it faulted in each, and a submission that wins {threshold} of "
                 "its matches loses {n} in a row at most {chance} of the time (RULES.md, grade_faults), so no more "
                 "count").format(n=n, threshold=pct(crit.threshold), chance=chance((1 - crit.threshold) ** n)) \
            + _not_counted()
    elif crit.rule == "sequential":
        why += _sequential_why(j, crit, v)
    else:
        why += _looks_why(j, crit, v, ties)
    if v.status == Decision.BORDERLINE:
        why += (_(" Points by the '{rule}' rule: awarded when the rate reaches the threshold.")
                if borderline == "estimate" else _(" Points by the '{rule}' rule.")).format(rule=borderline)
    return replace(v, summary=summary, why=why.rstrip())


def _sequential_why(j: Judgement, crit: WinRate, v: Verdict) -> str:
    """Why the sequential test (RULES.md, grade_decision) gave ``v``."""
    low, high = crit.threshold - crit.zone, crit.threshold + crit.zone
    bars = _("a bet that the rate is above {low} (the threshold less {zone:g} points) and one that it is below "
             "{high} (the threshold plus {zone:g} points), settled after every seed ({unit} matches, one from each "
             "seat)").format(low=pct(low), high=pct(high), zone=100 * crit.zone, unit=UNIT)
    step = j.step
    if v.status == Decision.PASS and step is not None:
        return _("Decided by the sequential test (RULES.md, grade_decision): {bars}. The first grew {grew}, past the "
                 "{mark:,.0f}-fold that passes: a submission that wins {low} of its matches or fewer gets there at "
                 "most {chance} of the time. Matches past the verdict do not count").format(
            bars=bars, grew=_fold(step.log_pass), mark=1 / crit.pass_error, low=pct(low),
            chance=chance(crit.pass_error)) + _not_counted()
    if v.status == Decision.FAIL and step is not None:
        return _("Decided by the sequential test (RULES.md, grade_decision): {bars}. The second grew {grew}, past "
                 "the {mark:,.0f}-fold that fails: a submission that wins {high} of its matches or more gets there "
                 "at most {chance} of the time. Matches past the verdict do not count").format(
            bars=bars, grew=_fold(step.log_fail), mark=1 / crit.fail_error, high=pct(high),
            chance=chance(crit.fail_error)) + _not_counted()
    if v.status == Decision.BORDERLINE:
        where = (_(" (the first stood at {first} of the {pass_mark:,.0f}-fold that passes, the second at {second} "
                   "of the {fail_mark:,.0f}-fold that fails)").format(
            first=_fold(step.log_pass), pass_mark=1 / crit.pass_error, second=_fold(step.log_fail),
            fail_mark=1 / crit.fail_error) if step is not None else "")
        return _("The sequential test (RULES.md, grade_decision), {bars}, had reached neither mark after the maximum "
                 "of {most} matches{where}: borderline.").format(bars=bars, most=crit.max_matches, where=where)
    return _("The sequential test (RULES.md, grade_decision): {bars}; neither has reached its mark yet.").format(
        bars=bars)


def _looks_why(j: Judgement, crit: WinRate, v: Verdict, ties: str) -> str:
    """Why the looks (``rule = "looks"``: RULES.md, grade_decision_looks and grade_early_fail) gave ``v``."""
    if j.early:
        look = j.settled_at or v.matches
        most = (early_fail_most(look, crit.threshold, crit.early_error, win_step(ties))
                if j.settled_at else v.rate * v.matches)
        text = (_("Decided after {n} matches by the early look at {look}: whatever the matches up to it give, it wins "
                  "at most {most:g} of {look}, and a submission that wins {threshold} of its matches wins so few at "
                  "most {chance} of the time; an early look can only fail") if j.settled_at else
                _("Decided after {n} matches by the early look at {look}: it wins at most {most:g} of {look}, and a "
                  "submission that wins {threshold} of its matches wins so few at most {chance} of the time; an "
                  "early look can only fail")).format(n=v.matches, look=look, most=most, threshold=pct(crit.threshold),
                                                     chance=chance(crit.early_error))
        return text + (_(", so no more count") + _not_counted() if j.settled_at else ".")
    if j.settled_at:
        return (_("Decided after {n} matches: whatever the matches up to {at} gave, the interval at {at} would pass, "
                  "so no more count") if v.status == Decision.PASS else
                _("Decided after {n} matches: whatever the matches up to {at} gave, the interval at {at} would fail, "
                  "so no more count")).format(n=v.matches, at=j.settled_at) + _not_counted()
    if v.status == Decision.BORDERLINE:
        return _("The interval still holds the threshold after the maximum of {most} matches.").format(
            most=crit.max_matches)
    return _("Decided by the interval after {n} matches (RULES.md, grade_decision_looks).").format(n=v.matches)
