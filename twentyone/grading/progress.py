"""A grade's progress on the terminal: matches done of the plan, and the time left estimated from what is left.

The plan is every match still to play at most (an undecided criterion counted at its maximum, the tournament
at its budget): it shrinks as criteria are decided early, and never grows (``Grader.expected``).  The time left
is the work left divided by the rate of work of the last minutes (``Eta``), where work counts seats (a 5-seat
match weighs 5, a 2-seat one 2), so the estimate does not jump when the mix of matches changes, and it follows
the plan down as the plan shrinks.  When the plan changes by a tenth or more since it was last said, a line
says so above the bar ("plan: at most 1,240 matches left (was 3,400): criteria decided early").  Piped output
shows nothing (``commands._progress``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

__all__ = ["Eta", "PlanNotes", "format_eta"]


class Eta:
    """Time left = work left / the rate of work over the last ``window`` seconds (all of it while shorter)."""

    def __init__(self, window: float = 180.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self.clock = clock
        self._samples: deque[tuple[float, float]] = deque()
        self._left: float | None = None

    def update(self, done: float, left: float) -> None:
        """Note the work ``done`` so far and the work ``left`` at most, now."""
        now = self.clock()
        self._samples.append((now, done))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window:
            self._samples.popleft()
        self._left = max(0.0, left)

    def rate(self) -> float | None:
        """Work per second over the window, or None before any work was timed."""
        if len(self._samples) < 2:
            return None
        (t0, d0), (t1, d1) = self._samples[0], self._samples[-1]
        if t1 <= t0 or d1 <= d0:
            return None
        return (d1 - d0) / (t1 - t0)

    def seconds(self) -> float | None:
        """Seconds left at the recent rate, or None while it cannot be told."""
        if self._left is None:
            return None
        if self._left == 0:
            return 0.0
        r = self.rate()
        return None if r is None else self._left / r


def format_eta(seconds: float | None) -> str:
    """'about 12 min', 'about 40 s', '-' when unknown."""
    if seconds is None:
        return "-"
    if seconds >= 3600:
        return f"about {seconds / 3600:.1f} h"
    if seconds >= 90:
        return f"about {round(seconds / 60)} min"
    return f"about {round(seconds)} s"


class PlanNotes:
    """Says when the plan (the matches of the whole grade, at most) changes by ``share`` or more of what was left
    under it, since it was last said; matches played never change it."""

    def __init__(self, share: float = 0.1) -> None:
        self.share = share
        self._plan: int | None = None

    def note(self, done: int, plan: int) -> str | None:
        """The line to print for a plan of ``plan`` matches with ``done`` played, or None."""
        if self._plan is None:
            self._plan = plan
            return None
        was, left = self._plan - done, plan - done
        if plan == self._plan or abs(plan - self._plan) < max(1.0, self.share * max(was, 1)):
            return None
        self._plan = plan
        why = "criteria decided early" if plan < was + done else "more tournament deals needed"
        return f"plan: at most {max(left, 0):,} matches left (was {was:,}): {why}"
