"""The sequential test that decides a win-rate criterion (RULES.md, **grade_decision**): a bet against each edge of
an indifference zone, settled after every seed.

A criterion "wins at least ``t`` of its matches" cannot tell a submission at ``t`` from one just beside it without
thousands of matches, so it is asked a question it can answer: is the submission's rate below ``t - zone`` (the
zone's low edge, ``low``) or above ``t + zone`` (``high``)?  The matches come in *units*: the two matches of one
seed, the submission at each seat (**grade_fairness**), whose mean ``y`` (a tie counts half) lies in 0 .. 1.  Two
bets are kept:

- the **pass** bet stakes, on each unit, a share ``lam`` of its wealth on "the mean is above ``low``": its wealth is
  multiplied by ``1 + lam (y - low)``; a submission whose mean is ``low`` or less makes it no richer on average;
- the **fail** bet, by ``1 + lam (high - y)``, on "the mean is below ``high``".

Each starts with 1.  By Ville's inequality a wealth whose average never grows reaches ``1 / e`` with a chance of
at most ``e``, at any time, however the matches were stopped: the criterion passes when the pass bet's wealth
reaches ``1 / pass_error``, and fails when the fail bet's reaches ``1 / fail_error``.  So a submission at or below
``low`` passes with a chance of at most ``pass_error``, and one at or above ``high`` fails with a chance of at most
``fail_error``, whatever its share of ties and however alike the two matches of a seed are.

Each share is chosen before the unit is seen, from the units before it (Kelly's fraction): the distance to bet on
over the variance seen so far, ``d / (v + d^2)``, ``d`` the larger of the zone's width and the distance from the
mean seen so far to the edge; ``v`` and the mean start from a prior of ``PRIOR`` units at the threshold.  So a
submission that ties every match (no variance) is decided in a few dozen matches, where a test that ignored the
variance would need hundreds; and a share never exceeds ``CAP`` of what keeps the wealth positive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["UNIT", "CAP", "PRIOR", "SequentialTest", "Step"]

#: Matches per unit: the two matches of one seed, the submission at each seat.
UNIT = 2
#: The largest share of what keeps a wealth positive that a bet ever stakes.
CAP = 0.8
#: Units of prior at the threshold (mean ``t``, variance of a unit at ``t``) in the estimates the shares use.
PRIOR = 2.0


@dataclass(frozen=True)
class Step:
    """Where the test stands after a unit: each bet's wealth (as its logarithm), and the verdict if one was reached:
    ``"pass"``, ``"fail"`` or ``""``."""

    log_pass: float
    log_fail: float
    verdict: str


class SequentialTest:
    """The two bets of one criterion (module docstring), fed one unit mean at a time (``add``)."""

    def __init__(self, threshold: float, zone: float, pass_error: float, fail_error: float) -> None:
        self.threshold = threshold
        self.low = threshold - zone
        self.high = threshold + zone
        self.pass_bar = math.log(1.0 / pass_error)
        self.fail_bar = math.log(1.0 / fail_error)
        self.log_pass = 0.0
        self.log_fail = 0.0
        # The estimates, prior included: units, the sum of the means, the sum of squared deviations (Welford).
        self._n = PRIOR
        self._mean = threshold
        self._m2 = PRIOR * threshold * (1.0 - threshold) / UNIT
        self.units = 0

    def shares(self) -> tuple[float, float]:
        """(pass share, fail share) the next unit is bet with: Kelly's fraction for the larger of the zone's width and
        the distance seen so far, over the variance seen so far, capped at ``CAP`` of what keeps a wealth positive."""
        width = self.high - self.low
        var = self._m2 / self._n
        up = max(self._mean - self.low, width)
        down = max(self.high - self._mean, width)
        return (min(up / (var + up * up), CAP / self.low),
                min(down / (var + down * down), CAP / (1.0 - self.high)))

    def add(self, y: float) -> Step:
        """Settle both bets on a unit whose mean result is ``y`` (0 .. 1) and update the estimates."""
        up, down = self.shares()
        self.log_pass += math.log1p(up * (y - self.low))
        self.log_fail += math.log1p(down * (self.high - y))
        self.units += 1
        self._n += 1.0
        delta = y - self._mean
        self._mean += delta / self._n
        self._m2 += delta * (y - self._mean)
        verdict = ""
        if self.log_fail >= self.fail_bar:
            verdict = "fail"
        elif self.log_pass >= self.pass_bar:
            verdict = "pass"
        return Step(self.log_pass, self.log_fail, verdict)
