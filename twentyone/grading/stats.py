"""Win rates and their intervals: the Wilson score interval and the sequential decision rule of grading.

A rubric criterion such as "beats the always-stand player in at least 90% of matches" is decided
from a sample of matches.  ``wilson`` gives the 95% interval of a rate; ``Decision`` applies the rule
of RULES.md ("Grading"): after each batch of matches, stop as soon as the interval lies wholly above
the threshold (pass) or wholly below it (fail); at the maximum number of matches an interval that still
holds the threshold is *borderline*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from enum import StrEnum
from statistics import NormalDist

__all__ = ["wilson", "z_for", "lower_tail_bound", "Verdict", "Decision", "decide"]


class Decision(StrEnum):
    """What the decision rule says after a look at the matches."""

    PASS = "pass"
    FAIL = "fail"
    #: At the maximum number of matches the interval still holds the threshold.
    BORDERLINE = "borderline"
    #: More matches are needed.
    OPEN = "open"


@lru_cache(maxsize=64)
def z_for(confidence: float) -> float:
    """The two-sided normal quantile for ``confidence`` (1.959964 for 0.95)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(wins: float, n: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """(rate, low, high): the observed rate and its Wilson score interval; (0, 0, 1) when ``n`` is 0.

    ``wins`` may be fractional (a tie counted as half a win).
    """
    if n <= 0:
        return 0.0, 0.0, 1.0
    z = z_for(confidence)
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # Clamped so rounding never puts the rate outside its own interval (at 0 or 1 exactly).
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def lower_tail_bound(wins: float, n: int, p: float) -> float:
    """The Chernoff-Hoeffding bound exp(-n KL(wins/n || p)) on the chance that ``n`` independent results, each
    between 0 and 1 with mean ``p`` (a tie counting half is one), add up to ``wins`` or fewer; 1 when ``wins``
    is ``n p`` or more.  It holds whatever share of ties there is, unlike the binomial tail."""
    if n <= 0 or wins >= n * p:
        return 1.0
    q = max(0.0, wins / n)
    kl = (q * math.log(q / p) if q > 0 else 0.0) + (1 - q) * math.log((1 - q) / (1 - p))
    return math.exp(-n * kl)


@dataclass(frozen=True)
class Verdict:
    """Where a win-rate criterion stands after some matches."""

    status: Decision
    matches: int
    rate: float
    low: float
    high: float
    #: The verdict in one short sentence a student understands (``verdicts.worded``), '' until worded.
    summary: str = ""
    #: Why, with the statistics behind it: the counts, the interval, the rule and its error (``verdicts.worded``).
    why: str = ""


def decide(wins: float, n: int, threshold: float, min_matches: int, max_matches: int,
           confidence: float = 0.95) -> Verdict:
    """Apply the decision rule to ``wins`` out of ``n`` matches (``n`` at a batch boundary)."""
    rate, low, high = wilson(wins, n, confidence)
    if n >= min_matches and low > threshold:
        status = Decision.PASS
    elif n >= min_matches and high < threshold:
        status = Decision.FAIL
    elif n >= max_matches:
        status = Decision.BORDERLINE
    else:
        status = Decision.OPEN
    return Verdict(status, n, rate, low, high)
