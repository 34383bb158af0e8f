"""A solution's verdict over its tests: ``Accepted`` only when every test is won, else ``Wrong_answer`` with the
reason of the first test not won (lost, with the money and the cards used; or its first illegal call, named with
its place in the game; or the fault that stopped it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from twentyone.judge.game import TestResult

__all__ = ["Verdict", "Judgement", "win_rate"]


class Verdict(StrEnum):
    """The statement's two verdicts, and a solution that could not be judged: it does not compile, or its run
    stopped before every test was played while none was lost yet (neither verdict is known)."""

    ACCEPTED = "Accepted"
    WRONG_ANSWER = "Wrong_answer"
    NOT_JUDGED = "Not_judged"


def win_rate(won: int, n: int) -> tuple[float, float, float]:
    """The rate of tests won and its Wilson 95% interval."""
    from twentyone.grading.stats import wilson

    return wilson(won, n, 0.95)


@dataclass
class Judgement:
    """A solution judged on ``seeds``: each test's result, or why it could not be judged."""

    name: str
    spec: str
    kind: str
    seeds: list[int]
    results: list[TestResult] = field(default_factory=list)
    error: str | None = None
    #: The compiler's messages when it did not compile.
    messages: str = ""

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.won)

    @property
    def complete(self) -> bool:
        return self.error is not None or len(self.results) == len(self.seeds)

    @property
    def verdict(self) -> Verdict:
        if self.error is not None:
            return Verdict.NOT_JUDGED
        if self.first_failure() is not None:
            return Verdict.WRONG_ANSWER  # a test lost: whatever the others give
        if not self.complete:
            return Verdict.NOT_JUDGED  # every test so far won, some not played
        return Verdict.ACCEPTED

    def first_failure(self) -> tuple[int, TestResult] | None:
        """The first test not won: (its number from 1, its result)."""
        for i, r in enumerate(self.results, 1):
            if not r.won:
                return i, r
        return None

    def reason(self) -> str:
        """Why the verdict is what it is, in one line ('' for Accepted)."""
        if self.error is not None:
            return self.error
        bad = self.first_failure()
        if bad is None:
            if self.complete:
                return ""
            return (f"the run stopped after {len(self.results)} of {len(self.seeds)} tests, all won so far: "
                    "--resume plays the rest")
        i, r = bad
        return f"test {i} (seed {r.seed}): {r.reason()}"

    def rate(self) -> tuple[float, float, float]:
        """Tests won over tests played, with the Wilson 95% interval."""
        return win_rate(self.passed, len(self.results))

    def to_dict(self, curve_points: int | None = 500) -> dict[str, Any]:
        rate, low, high = self.rate() if self.results else (0.0, 0.0, 0.0)
        return {"name": self.name, "solution": self.spec, "kind": self.kind, "verdict": str(self.verdict),
                "reason": self.reason(), "passed": self.passed, "tests": len(self.seeds), "seeds": self.seeds,
                "win_rate": rate, "win_rate_95": [low, high], "error": self.error, "messages": self.messages,
                "results": [r.to_dict(curve_points) for r in self.results]}

    def lines(self, each: bool = True) -> list[str]:
        """The verdict as the command prints it: one line a test (``each``), the verdict, the pass count."""
        out = []
        if self.error is not None:
            return [f"{Verdict.NOT_JUDGED}: {self.error}"]
        # One line a test (``each``), then the verdict with its reason, then the pass count.
        if each:
            for i, r in enumerate(self.results, 1):
                out.append(f"test {i} (seed {r.seed}): {r.reason()} [{r.seconds:.2f} s]")
        verdict = self.verdict
        out.append(str(verdict) if verdict is Verdict.ACCEPTED else f"{verdict}: {self.reason()}")
        n = len(self.results)
        rate, low, high = self.rate()
        extra = f" ({rate:.1%}, 95% CI {low:.1%}\u2013{high:.1%})" if n > 5 else ""
        out.append(f"passed {self.passed} of {n} test{'s' if n != 1 else ''}{extra}")
        return out
